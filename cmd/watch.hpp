#pragma once
// `mcphealth watch`: a live view of the health cache, a background prober, and one structured event per transition.
#include "common.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace mcphealth::cli {

/// Options of `mcphealth watch`.
struct WatchOptions {
  bool probe = false;
  std::int64_t interval_s = 60;
  /// `--every`: re-probe a healthy server at least this often.
  std::optional<std::int64_t> every_s;
  bool events = false;
  std::optional<std::string> exec;
  std::int64_t exec_timeout_ms = 5000;
  bool once = false;
  std::optional<std::string> prometheus;
  /// `--agent`: only that agent's servers are probed and shown.
  std::optional<std::string> agent;
  std::optional<std::string> cwd;
};

/// Adds `watch` to `app`.
void register_watch(CLI::App& app, CommandLine& command_line);

/// Watches until SIGTERM/SIGINT (or `q` on a terminal), then exits 0; with --once, status's exit code.
int run_watch(const WatchOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
