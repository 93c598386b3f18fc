#pragma once
// What every subcommand shares: the root options and the exit code the chosen subcommand decides.
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/ops/probe.hpp>
#include <mcphealth/util/env.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Root options: `--state`, `--config` (repeatable), `-v`.
struct GlobalOptions {
  std::optional<std::string> state;
  std::vector<std::string> configs;
  std::optional<std::string> policy;
  int verbosity = 0;

  /// The overrides these options make to the resolved settings.
  config::SettingsOverrides overrides() const {
    config::SettingsOverrides o;
    if (state) o.state_path = *state;
    for (const auto& c : configs) o.config_paths.emplace_back(c);
    if (policy) o.policy_path = *policy;
    return o;
  }
};

/// Exit codes shared by the operator commands (each documents its own in the man page).
inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_unhealthy = 1;
inline constexpr int k_exit_usage = 2;
/// `probe`: some probe could not run on this machine (no descriptors, memory, processes): nothing was recorded for it.
inline constexpr int k_exit_local_fault = 3;

/// The discovery inputs for an operator command: explicit configs from flags or variables, and the project dir from
/// `--cwd` when given, else as the hook finds it (`CLAUDE_PROJECT_DIR`, else the current dir).
config::DiscoveryInputs discovery_for(const util::Environment& env, const config::Settings& settings,
                                      const std::optional<std::string>& cwd);

/// The PATH `probe` and `watch` start servers with (ops::probe_path), read from the state file at `state`: of
/// `agent_id`'s hook when one is named, else of the most recent hook.
ops::ProbePath probe_path_for(const std::filesystem::path& state, const std::optional<std::string>& agent_id,
                              const util::Environment& own);

/// Joins names for a message: `a, b, c`, or `none`.
std::string join_names(const std::vector<std::string>& names);

/// Prints each settings warning on stderr.
void warn_all(const std::vector<config::SettingWarning>& warnings);

/// The parse's shared state: root options, and the exit code the subcommand's run function returns.
struct CommandLine {
  GlobalOptions globals;
  /// argv[0], as the user ran this binary.
  std::string invoked_as;
  int exit_code = 0;
};

} // namespace mcphealth::cli
