#pragma once
// `mcphealth install --service`: the background prober (`watch --probe`) as the OS's service manager runs it, a
// systemd user unit or a launchd agent, written so that the traps of a hand-made one cannot happen: every path
// absolute (launchd does not expand `~`), the PATH the agent's hook last ran with (a service has no login shell), the
// variables the servers' definitions reference named with where to set them (their values are never copied), and
// no fail-open setting. `doctor` checks the file in place, however it got there.
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

enum class ServiceManager { systemd, launchd };

/// `systemd` or `launchd`.
std::string_view manager_name(ServiceManager manager);

/// This OS's own: launchd on macOS, systemd elsewhere.
ServiceManager native_service_manager();

/// What the service file is made from.
struct ServiceInputs {
  ServiceManager manager = ServiceManager::systemd;
  /// The mcphealth the service runs: absolute.
  std::filesystem::path binary;
  std::filesystem::path home;
  /// The PATH servers are started with, and whether an agent's hook recorded it (else it is this shell's).
  std::string path;
  bool path_recorded = false;
  /// `--state`, when not the default: the service must keep the same file.
  std::optional<std::filesystem::path> state;
  /// The variables the servers' definitions reference (`${NAME}`), sorted, each once.
  std::vector<std::string> variables;
  /// Whether `man mcphealth` finds a page: the unit names it as its documentation only then.
  bool man_page_installed = false;
};

/// A setting the shell sets that a service started without it would lack: the reconnect commands, the TTL, the
/// backoff and the timeouts, the config and policy files, the probe depth (never a fail-open one).
struct ShellSetting {
  std::string name;
  std::string value;
  /// It holds a credential (a reconnect command with a token in it): named, never copied.
  bool secret = false;
  /// Where else it can be set for the service: the policy's key (`reconnect`, `ttlMs`), when it has one.
  std::string policy_key;
};
std::vector<ShellSetting> shell_settings(const util::Environment& env);

/// Why a service file is not written for `in`: a value that reaches it holds a control character (a PATH with a
/// newline would become a directive of its own). Nothing when every value is safe.
std::optional<std::string> refused_value(const ServiceInputs& in);

/// The service file and what goes with it.
struct ServiceFile {
  ServiceManager manager = ServiceManager::systemd;
  /// Where it goes: ~/.config/systemd/user/mcphealth-watch.service, ~/Library/LaunchAgents/com.mcphealth.watch.plist.
  std::filesystem::path path;
  std::string text;
  /// Where the referenced variables are to be set (NAME=value lines; read by the service, never written by us).
  std::filesystem::path env_file;
  /// The commands that load it, and that unload it.
  std::string load;
  std::string unload;
};

/// The inputs as this machine has them: the PATH the agents' hooks last ran with (the state file's record), the
/// variables every definition in the folders in use references, the state file when it is not the default.
ServiceInputs service_inputs(ServiceManager manager, const std::filesystem::path& binary,
                             const config::Settings& settings, const config::DiscoveryInputs& base,
                             const util::Environment& env);

/// Where `manager`'s file for the prober goes under `home` (XDG_CONFIG_HOME, when `env` sets it, for systemd).
std::filesystem::path service_path(ServiceManager manager, const std::filesystem::path& home,
                                   const util::Environment& env);

/// The file for `in` (pure: the same inputs give the same bytes).
ServiceFile service_file(const ServiceInputs& in, const util::Environment& env);

/// What is wrong with a service file in place (`text`, at `path`): a path that is not absolute or names no program,
/// `~` where launchd does not expand it, a fail-open setting, no PATH. Each problem in words, with its fix.
struct ServiceProblem {
  std::string found;
  std::string fix;
};
std::vector<ServiceProblem> check_service_file(ServiceManager manager, const std::string& text);

/// What the service manager says of the prober: whether it starts it (enabled: systemd's `is-enabled`, else the
/// unit's link in `default.target.wants/`; launchd: loaded), and whether it runs now. `unknown` with the reason
/// when the manager could not be asked (no user manager runs: a container, a session without one).
struct ServiceState {
  enum class Answer { yes, no, unknown };
  Answer enabled = Answer::unknown;
  Answer running = Answer::unknown;
  /// How `enabled` was learned when systemd was not asked: "its link in default.target.wants".
  std::string enabled_from;
  /// Why the manager could not be asked, when it could not.
  std::string not_asked;
  /// The manager's own word for what it is doing (`inactive`, `failed`), when it is not running.
  std::string manager_says;
};
ServiceState ask_service_state(ServiceManager manager, const std::filesystem::path& file,
                               recover::CommandRunner& runner);

/// Whether mcphealth wrote `text` (its first comment says so): uninstall removes no one else's file.
bool written_by_mcphealth(const std::string& text);

} // namespace mcphealth::ops
