#pragma once
// `mcphealth refresh`: re-probe the servers of a folder whose marks are missing or stale. The hook starts it
// detached (background refresh, session warm-up); it is as useful by hand.
#include "common.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/gate/engine.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth refresh`.
struct RefreshOptions {
  std::vector<std::string> servers;
  std::optional<std::string> project;
  /// `--agent`: whose servers (nothing: Claude Code's).
  std::optional<std::string> agent;
  /// `--look-again`: look at down servers before their backoff ends (a blocked call asked).
  bool look_again = false;
};

/// Adds `refresh` to `app`.
void register_refresh(CLI::App& app, CommandLine& command_line);

/// Refreshes; returns 0 (nothing refreshed is down), 1 (something is) or 2 (usage error).
int run_refresh(const RefreshOptions& options, const GlobalOptions& globals);

/// Starts `mcphealth refresh --project FOLDER [--agent ID] [--look-again] SERVERS...` detached: its own session and process group,
/// no terminal, standard streams on /dev/null, the same state and config options; it outlives the caller, which
/// never waits for it. `agent` is whose servers they are (Claude Code's: no --agent). Returns false when it could
/// not be started.
bool start_detached_refresh(const GlobalOptions& globals, const agent::Agent& agent, const std::string& folder,
                            const std::vector<std::string>& servers, gate::Refreshing why);

} // namespace mcphealth::cli
