#pragma once
// How Gemini CLI (0.61.0) starts a stdio server from its definition: `$VAR` read too, where (`cwd`, from the
// session's folder: a missing one fails the server), and with what of the hook's environment: it redacts what may be
// a secret, sets GEMINI_CLI=1 beneath, refuses `env` keys that change how a runtime starts. Apart from gemini.cpp,
// as Codex CLI's trust is apart from codex.cpp: a rule set of its own, with its own tests.
#include <mcphealth/config/server.hpp>
#include <mcphealth/util/env.hpp>

namespace mcphealth::agent {

/// Sets `def`'s expansion, folder and environment rule to Gemini CLI's.
void start_as_gemini(config::ServerDefinition& def, const util::Environment& env);

} // namespace mcphealth::agent
