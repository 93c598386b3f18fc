#pragma once
// Claude Code's catalogue rules (agent/claude_code_servers.cpp), for agent/claude_code.cpp and nothing else: every
// other part of mcphealth asks agent::Agent::catalogue.
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/util/files.hpp>

#include <filesystem>
#include <vector>

namespace mcphealth::agent {

/// What Claude Code starts in `inputs.project_dir`, reading every file through `reader`.
config::Resolution claude_code_servers(const config::DiscoveryInputs& inputs, const util::Environment& env,
                                       util::FileReader& reader);

/// The folders Claude Code knows (`projects` in `~/.claude.json`).
std::vector<std::filesystem::path> claude_code_projects(const config::DiscoveryInputs& inputs, util::FileReader& reader);

} // namespace mcphealth::agent
