#pragma once
// `mcphealth status`: the operator's view of the health cache.
#include "common.hpp"
#include "output.hpp"

#include <mcphealth/ops/status.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth status`.
struct StatusOptions {
  std::vector<std::string> servers;
  Format format = Format::table;
  bool statusline = false;
  bool quiet = false;
  /// `--here`: only the servers an agent starts in the folder asked about.
  bool here = false;
  bool unhealthy = false;
  /// `--superseded`: also the verdicts of definitions nothing uses now.
  bool superseded = false;
  /// `--agent`: only the definitions that agent starts.
  std::optional<std::string> agent;
  std::optional<std::string> cwd;
};

/// The status table (also `watch`'s view): one row per definition, its status, scope, failures, last code, age,
/// what comes next, and the last meaningful line of its error, cut to `width` (nothing: never cut); then, with
/// `hints`, a hint per server that is not fine.
std::string render_status_table(const ops::StatusReport& report, bool color, std::optional<std::size_t> width,
                                bool hints = true);

/// Adds `status` to `app`.
void register_status(CLI::App& app, CommandLine& command_line);

/// Reads the state file (never writes it, never probes); returns 0 (nothing unhealthy), 1 (a server is unhealthy) or
/// 2 (error).
int run_status(const StatusOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
