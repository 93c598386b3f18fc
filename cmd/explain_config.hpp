#pragma once
// `mcphealth explain-config`: why a server is (not) found or (not) checked.
#include "common.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth explain-config`.
struct ExplainOptions {
  std::vector<std::string> servers;
  bool json = false;
  bool hook_snippet = false;
  /// `--agent`: whose servers and registration; nothing = Claude Code.
  std::optional<std::string> agent;
  std::optional<std::string> cwd;
};

/// Adds `explain-config` to `app`.
void register_explain_config(CLI::App& app, CommandLine& command_line);

/// Explains; returns 0 (clean or warnings only), 1 (an error finding) or 2 (usage error).
int run_explain_config(const ExplainOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
