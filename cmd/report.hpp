#pragma once
// `mcphealth report`: the morning question, what happened overnight.
#include "common.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth report`.
struct ReportOptions {
  std::vector<std::string> servers;
  std::string since = "24h";
  bool json = false;
};

/// Adds `report` to `app`.
void register_report(CLI::App& app, CommandLine& command_line);

/// Prints the outages and blocked calls the history holds since `--since`; returns 0 (nothing is down at the end of
/// the window), 1 (an outage is still open) or 2 (usage error).
int run_report(const ReportOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
