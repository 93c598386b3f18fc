#pragma once
// `mcphealth status`: the operator's view of the health cache.
#include "common.hpp"

#include <mcphealth/ops/status.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth status`.
struct StatusOptions {
  std::vector<std::string> servers;
  bool json = false;
  bool statusline = false;
  bool quiet = false;
  bool names = false;
  std::optional<std::string> cwd;
};

/// The status table (also `watch`'s view): one row per definition, its status, scope, failures, last code, age,
/// what comes next, and the last error cut to `width`.
std::string render_status_table(const ops::StatusReport& report, bool color, std::size_t width);

/// Adds `status` to `app`.
void register_status(CLI::App& app, Invocation& invocation);

/// Reads the state file (never writes it, never probes); returns 0 (nothing unhealthy), 1 (a server is unhealthy) or
/// 2 (error).
int run_status(const StatusOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
