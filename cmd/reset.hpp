#pragma once
// `mcphealth reset`: the one-line fix for a server stuck in backoff.
#include "common.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth reset`.
struct ResetOptions {
  std::vector<std::string> servers;
  bool all = false;
  bool unhealthy = false;
  /// `--stale`: the superseded verdicts only.
  bool stale = false;
  bool dry_run = false;
  bool json = false;
  bool list = false;
  bool strict = false;
};

/// Adds `reset` to `app`.
void register_reset(CLI::App& app, CommandLine& command_line);

/// Removes entries under the hook's lock; returns 0 (done, or nothing to do, or a name not in the cache) or 2 (usage
/// error, a name not in the cache with --strict, or the
/// state file could not be written).
int run_reset(const ResetOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
