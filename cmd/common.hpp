#pragma once
// What every subcommand shares: the root options and the exit code the chosen subcommand decides.
#include <mcphealth/config/settings.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Root options: `--state`, `--config` (repeatable), `-v`.
struct GlobalOptions {
  std::optional<std::string> state;
  std::vector<std::string> configs;
  int verbosity = 0;

  /// The overrides these options make to the resolved settings.
  config::SettingsOverrides overrides() const {
    config::SettingsOverrides o;
    if (state) o.state_path = *state;
    for (const auto& c : configs) o.config_paths.emplace_back(c);
    return o;
  }
};

/// The parse's shared state: root options, and the exit code the subcommand's run function returns.
struct Invocation {
  GlobalOptions globals;
  int exit_code = 0;
};

} // namespace mcphealth::cli
