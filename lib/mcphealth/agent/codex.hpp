#pragma once
// The few facts about Codex CLI that its hook trust (ops/codex_trust.cpp) needs besides the agent itself.
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/files.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace mcphealth::agent {

/// `$CODEX_HOME`, else `~/.codex`: where the user's config.toml and hooks.json are.
std::filesystem::path codex_home(const util::Environment& env);

/// A server's name as Codex CLI spells it in tool names: every character outside `[A-Za-z0-9_]` becomes `_`
/// (`my-svc.v2` -> `my_svc_v2`).
std::string codex_tool_server(std::string_view name);

/// The project `dir` belongs to for Codex CLI: the nearest folder at or above it holding `.git`, else `dir`.
std::filesystem::path codex_project_root(const std::filesystem::path& dir, util::FileReader& reader);

} // namespace mcphealth::agent
