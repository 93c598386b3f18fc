#pragma once
// Every tunable of the hook and probes, resolved once from flags, variables (both spellings) and defaults, each
// with where it came from, so `explain-config` can say why a value is what it is.
#include <mcphealth/util/env.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// Claude Code's start-up timeout for an MCP server when `MCP_TIMEOUT` is not set: `claude mcp list` gives a
/// silent server 30 s before "Failed to connect" (2.1.197).
inline constexpr std::int64_t k_client_startup_timeout_ms = 30'000;

/// Where a setting's value came from. Text is made only where it is printed (`text()`).
struct Origin {
  enum class Kind { built_in, variable, policy, flag };
  Kind kind = Kind::built_in;
  /// The variable as it was set (`MCPHEALTH_TTL_MS` or `ECC_MCP_HEALTH_TTL_MS`), the flag (`--state`), or the
  /// policy entry (`defaults`, `servers.github`).
  std::string name;

  static Origin variable(std::string name) { return {Kind::variable, std::move(name)}; }
  static Origin flag(std::string name) { return {Kind::flag, std::move(name)}; }
  static Origin policy(std::string name) { return {Kind::policy, std::move(name)}; }
  /// "default" (or "default (WHY)" for a built-in value with a reason), "variable NAME", "policy servers.NAME" or
  /// "flag --name".
  std::string text() const;
};

/// A resolved value and its origin.
template <typename T>
struct Setting {
  T value{};
  Origin origin{};
};

/// Something wrong with how a setting was given, and what was done about it.
struct SettingWarning {
  enum class Code {
    not_a_whole_number, ///< ignored; `detail` is the value used instead
    zero_timeout,       ///< a timeout of 0 (every probe would fail, or pass, at once); ignored like a non-number
    capped,             ///< too large; `detail` is the cap used instead
    home_in_path,       ///< `~` or `$HOME` expanded in a path list; `detail` is the expansion
    not_a_choice,       ///< not one of the accepted words; ignored; `detail` lists them
  };
  Code code;
  std::string variable; ///< as it was set
  std::string value;    ///< the offending value (for home_in_path, the one entry)
  std::string detail;
  /// One line for a person: what was wrong and what mcphealth did.
  std::string text() const;
};

/// How a server is probed: not at all (`skip`: the hook allows without probing, failures are still recorded), or
/// at a depth (see probe::Depth).
enum class ProbeMode { automatic, liveness, handshake, skip };

/// Which protocol generation a probe speaks: modern (2026-07-28 `server/discover`), legacy (`initialize`), or
/// modern then legacy.
enum class ProtocolMode { automatic, modern, legacy };

/// The one spelling of each mode, in the policy file, MCPHEALTH_PROBE_DEPTH, the flags and every output: `skip`,
/// `liveness`, `handshake`, `auto`; `legacy`, `modern`, `auto`. Parsing takes exactly those words.
std::string_view probe_mode_name(ProbeMode mode);
std::string_view protocol_mode_name(ProtocolMode mode);
std::optional<ProbeMode> parse_probe_mode(std::string_view text);
std::optional<ProtocolMode> parse_protocol_mode(std::string_view text);

/// A reconnect command from the policy: an argv run without a shell (`{server}` in any word becomes the name), or
/// a string run with `/bin/sh -c` as the variables' commands are.
struct ReconnectSpec {
  std::vector<std::string> argv;
  std::string shell;
  /// The command as a person reads it, credentials redacted (util::redact): every place that prints it.
  std::string text() const;
};

/// A check the user declares for one server (the policy's `check`): what a look runs after the server's own probe,
/// for what its handshake cannot see (a backend behind a healthy stdio server, a separate health endpoint). Only
/// from the user's policy file (config::check_refused_because says when a policy is not the user's).
struct CheckSpec {
  enum class Kind {
    command, ///< exit 0 is healthy: `argv` without a shell (`{server}` in a word becomes the name), or `shell`
    url,     ///< a GET; a 2xx status is healthy
    tool,    ///< an MCP `tools/call` after the handshake; `isError` or a JSON-RPC error is unhealthy
  };
  Kind kind = Kind::command;
  std::vector<std::string> argv;
  std::string shell;
  std::string url;
  /// With `url`: send the definition's headers, which happens only when the URL has the definition's own origin.
  bool headers = false;
  std::string tool;
  /// With `tool`: its arguments, as JSON object text.
  std::string arguments = "{}";
  /// The check as a person reads it, credentials redacted: `command pg_isready -h db`, `url https://host/health`,
  /// `tool ping`.
  std::string text() const;
};

/// What the command line says, when it says anything; flags win over everything else.
struct SettingsOverrides {
  std::optional<std::filesystem::path> state_path;
  std::vector<std::filesystem::path> config_paths;
  std::optional<std::filesystem::path> policy_path;
  std::optional<std::int64_t> timeout_ms;
  std::optional<ProbeMode> probe;
  std::optional<ProtocolMode> protocol;
};

/// The defaults the JS hook uses, kept in one place.
inline constexpr std::int64_t k_default_ttl_ms = 120'000;
inline constexpr std::int64_t k_default_timeout_ms = 5'000;
inline constexpr std::int64_t k_default_backoff_ms = 30'000;
inline constexpr std::int64_t k_default_max_backoff_ms = 600'000;
/// A crash loop's trial calls (each a failed call the model reads) keep doubling past the look cap to this one.
inline constexpr std::int64_t k_default_crash_loop_max_backoff_ms = 3'600'000;
inline constexpr std::int64_t k_default_reconnect_timeout_ms = 5'000;
inline constexpr std::int64_t k_default_look_cpu_percent = 2;
inline constexpr std::int64_t k_default_input_max_bytes = 16 * 1024 * 1024;

/// The resolved settings.
struct Settings;

/// The longest one check of a server takes under `timeout_ms` and `reconnect_timeout_ms`: a probe, its reconnect
/// command and the re-probe after it.
inline std::int64_t recovery_budget_ms(std::int64_t timeout_ms, std::int64_t reconnect_timeout_ms) {
  return 2 * timeout_ms + reconnect_timeout_ms;
}

struct Settings {
  Setting<std::filesystem::path> state_path;
  Setting<std::int64_t> ttl_ms{k_default_ttl_ms};
  Setting<std::int64_t> timeout_ms{k_default_timeout_ms};
  Setting<std::int64_t> backoff_ms{k_default_backoff_ms};
  Setting<std::int64_t> max_backoff_ms{k_default_max_backoff_ms};
  /// The cap of a crash loop's backoff: its trial calls, not its looks (`MCPHEALTH_CRASH_LOOP_MAX_BACKOFF_MS`, the
  /// policy's `crashLoopMaxBackoffMs`). Never below `max_backoff_ms` (crash_loop_cap_ms).
  Setting<std::int64_t> crash_loop_max_backoff_ms{k_default_crash_loop_max_backoff_ms};
  Setting<std::int64_t> reconnect_timeout_ms{k_default_reconnect_timeout_ms};
  /// The most of one core a down server's looks may spend while calls ask for it, in percent
  /// (`MCPHEALTH_LOOK_CPU_PERCENT`, 1 to 100; gate::look_spacing_ms).
  Setting<std::int64_t> look_cpu_percent{k_default_look_cpu_percent};
  Setting<bool> fail_open{false};
  /// How to probe (`MCPHEALTH_PROBE_DEPTH`, `--depth`, the policy's `probe`).
  Setting<ProbeMode> probe{ProbeMode::automatic};
  Setting<ProtocolMode> protocol{ProtocolMode::automatic};
  /// The policy's reconnect command; nothing = the variables decide (recover/reconnect.hpp).
  Setting<std::optional<ReconnectSpec>> reconnect;
  /// The policy's declared check for this server; nothing when it has none, or when the policy is not the user's
  /// (then `check_refused` says why, and no check runs).
  Setting<std::optional<CheckSpec>> check;
  std::optional<std::string> check_refused;
  /// The policy file (config/policy.hpp): `--policy`, `MCPHEALTH_POLICY`, else the XDG place.
  Setting<std::filesystem::path> policy_path;
  /// Explicit config files (flag or variable) that replace the search; empty = search Claude Code's places.
  Setting<std::vector<std::filesystem::path>> config_paths;
  /// Things worth telling the user: malformed numbers, `~` in a path variable.
  std::vector<SettingWarning> warnings;
  /// The timeout reaches the client's own start-up timeout (config::unhurried): a stdio server still silent then
  /// is one Claude Code gives up on ("Failed to connect"), so a probe calls it a timeout, not alive-silent.
  bool silence_fails = false;
};

/// The cap a crash loop's backoff doubles to under `s`: its own, never below the look cap.
inline std::int64_t crash_loop_cap_ms(const Settings& s) {
  return std::max(s.crash_loop_max_backoff_ms.value, s.max_backoff_ms.value);
}

/// Expands a leading `~` or a literal `$HOME` in `path`; sets `expanded` when it did.
std::filesystem::path expand_home(const std::string& path, const util::Environment& env, bool& expanded);

/// Resolves the state path alone: what the hook's hot path needs before anything else.
Setting<std::filesystem::path> resolve_state_path(const util::Environment& env, const SettingsOverrides& flags);

/// Resolves the explicit config files alone (`--config`, else `ECC_MCP_CONFIG_PATH`; empty = search): what the
/// hook's cache hit needs, without the rest of the settings. Warnings about `~` are appended to `warnings`.
Setting<std::vector<std::filesystem::path>> resolve_config_paths(const util::Environment& env,
                                                                 const SettingsOverrides& flags,
                                                                 std::vector<SettingWarning>& warnings);

/// Where the policy file is: `--policy`, else `MCPHEALTH_POLICY`, else `$XDG_CONFIG_HOME/mcphealth/policy.json`,
/// else `~/.config/mcphealth/policy.json` (defined with the policy, config/policy.cpp).
Setting<std::filesystem::path> resolve_policy_path(const util::Environment& env, const SettingsOverrides& flags);

/// Resolves every setting.
Settings resolve_settings(const util::Environment& env, const SettingsOverrides& flags);

/// Reads the input byte limit (`ECC_HOOK_INPUT_MAX_BYTES`), needed before the payload is parsed.
Setting<std::int64_t> resolve_input_max_bytes(const util::Environment& env, std::vector<SettingWarning>& warnings);

} // namespace mcphealth::config
