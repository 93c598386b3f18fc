#pragma once
// `mcphealth policy`: the effective per-server policy (every value and where it comes from), and the policy file's
// problems.
#include "common.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth policy`.
struct PolicyOptions {
  std::vector<std::string> servers;
  bool json = false;
  std::optional<std::string> cwd;
};

/// Adds `policy` to `app`.
void register_policy(CLI::App& app, CommandLine& command_line);

/// Prints the effective policy; returns 0 (the file is valid or absent), 1 (the file is not valid: every problem
/// is printed, and the values shown are the environment's) or 2 (usage error: a server Claude Code would not start).
int run_policy(const PolicyOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
