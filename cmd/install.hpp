#pragma once
// `mcphealth install` and `mcphealth uninstall`: register the hook in Claude Code's settings without editing JSON
// by hand, and take it out again.
#include "common.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/ops/service.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth install` and `uninstall`.
struct InstallOptions {
  /// `--agent`: whose settings file (agent/agents.cpp); nothing = Claude Code.
  std::optional<std::string> agent;
  agent::InstallScope scope = agent::InstallScope::user;
  std::optional<std::string> cwd;
  std::vector<std::string> events;
  std::optional<std::string> binary;
  bool statusline = false;
  bool disable_js_hook = false;
  /// `--no-trust`: leave trusting the new hooks to the user (Codex CLI).
  bool no_trust = false;
  /// How the user ran this binary (argv[0]): what the hook command names, when it is this program.
  std::string invoked_as;
  bool dry_run = false;
  bool json = false;
  /// `--list-agents`, `--list-events`: print the table's words (for the shell completions) and do nothing else.
  bool list_agents = false;
  bool list_events = false;
  /// `--service`: the background prober's service file instead of a hook (cmd/service.cpp), for `--manager`.
  bool service = false;
  std::optional<ops::ServiceManager> manager;
  /// `--force`, with --service: replace a service file mcphealth did not write, keeping it as a backup.
  bool force = false;
  /// `--no-settings`, with --service: list the shell's settings the service would lack instead of writing them
  /// into the variables file.
  bool no_settings = false;
};

/// Adds `install` and `uninstall` to `app`.
void register_install(CLI::App& app, CommandLine& command_line);
void register_uninstall(CLI::App& app, CommandLine& command_line);

/// Returns 0 (done, or nothing to change) or 2 (usage error, a settings file that does not parse or cannot be
/// written).
int run_install(const InstallOptions& options, bool uninstall, const GlobalOptions& globals);

/// run_install for each agent `options` names, without the closing words.
int install_each(const InstallOptions& options, bool uninstall);

/// `--service` and `--manager`, which exclude the options that name an agent's hook.
void add_service_options(CLI::App* sub, const std::shared_ptr<InstallOptions>& o, bool uninstall);

/// Writes (shows, with --dry-run) or removes the background prober's service file: 0 done or nothing to do, 2 a
/// usage error or a file that cannot be written.
int run_service(const InstallOptions& options, bool uninstall, const GlobalOptions& globals);

} // namespace mcphealth::cli
