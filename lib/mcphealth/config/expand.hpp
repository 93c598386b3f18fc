#pragma once
// `${VAR}` expansion in what starts a server, in each agent's own reading of it.
#include <mcphealth/util/env.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// How an agent reads variables in a definition's command, args, env, cwd, url and headers:
/// - `braces`: Claude Code's `${VAR}` and `${VAR:-default}`, the default standing for an unset or empty variable;
/// - `braces_and_bare`: Gemini CLI's (0.61.0, seen in the real program), which also reads a bare `$VAR` and gives the
///   default only for an unset one (a variable set to "" stays "");
/// - `literal`: as written (Codex CLI, seen passing `${HOME}` on to a server unchanged);
/// - `env_colon`: opencode's `{env:VAR}` alone; a `${VAR}` is sent as written (seen in opencode 1.18.33 with
///   `opencode mcp list`: a remote server's url and headers keep it literally).
enum class VarExpansion { braces, braces_and_bare, literal, env_colon };

/// What an unset variable without a default becomes: its own text (and its name is appended to `unset`), or "".
enum class UnsetVar { literal, empty };

/// Expands the variables in `text` as `syntax` reads them. An unset variable without a default stays literal (its
/// name appended to `unset`, once) or, with `UnsetVar::empty`, becomes "".
std::string expand_vars(std::string_view text, const util::Environment& env, std::vector<std::string>& unset,
                        VarExpansion syntax = VarExpansion::braces, UnsetVar unset_var = UnsetVar::literal);

} // namespace mcphealth::config
