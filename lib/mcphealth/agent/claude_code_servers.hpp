#pragma once
// Claude Code's catalogue rules (agent/claude_code_servers.cpp), for agent/claude_code.cpp and nothing else: every
// other part of mcphealth asks agent::Agent::catalogue.
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/util/files.hpp>

#include <filesystem>
#include <vector>

namespace mcphealth::agent {

/// Claude Code's own files, wherever its environment puts them.
struct ClaudePaths {
  /// `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json`: user and local servers, approvals, projects.
  std::filesystem::path claude_json;
  /// `$CLAUDE_CONFIG_DIR`, else `~/.claude`: settings.json and plugins.
  std::filesystem::path config_dir;
  /// Managed (administrator) settings: `$MCPHEALTH_MANAGED_DIR`, else `/etc/claude-code` (Linux) or
  /// `/Library/Application Support/ClaudeCode` (macOS).
  std::filesystem::path managed_dir;
};
ClaudePaths claude_paths(const util::Environment& env);

/// What Claude Code starts in `inputs.project_dir`, reading every file through `reader`.
config::Resolution claude_code_servers(const config::DiscoveryInputs& inputs, const util::Environment& env,
                                       util::FileReader& reader);

/// The folders Claude Code knows (`projects` in `~/.claude.json`).
std::vector<std::filesystem::path> claude_code_projects(const util::Environment& env, util::FileReader& reader);

} // namespace mcphealth::agent
