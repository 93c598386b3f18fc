#pragma once
// `mcphealth probe`: real MCP probes of configured servers, concurrent and cron-ready.
#include "common.hpp"
#include "output.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth probe`.
struct ProbeCommandOptions {
  std::vector<std::string> servers;
  bool all = false;
  std::optional<config::ProbeMode> depth;
  std::optional<config::ProtocolMode> protocol;
  std::optional<std::int64_t> timeout_ms;
  /// `--parallel N`; unset: probe::default_parallelism().
  std::optional<std::size_t> parallel;
  Format format = Format::table;
  bool unhealthy = false;
  bool no_update = false;
  bool reconnect = false;
  bool quiet = false;
  std::optional<std::string> prometheus;
  std::optional<std::string> cwd;
  std::optional<std::string> project;
  /// `--agent ID`: only that agent's servers.
  std::optional<std::string> agent;
};

/// Adds `probe` to `app`.
void register_probe(CLI::App& app, CommandLine& command_line);

/// Probes, records, reports; returns 0 (nothing unhealthy), 1 (something unhealthy) or 2 (usage or config error).
int run_probe(const ProbeCommandOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli
