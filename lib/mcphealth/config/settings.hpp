#pragma once
// Every tunable of the hook and probes, resolved once from flags, variables (both spellings) and defaults, each
// with where it came from, so `explain-config` can say why a value is what it is.
#include <mcphealth/util/env.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::config {

/// A resolved value and its origin: `default`, `variable NAME` or `flag --name`.
template <typename T>
struct Setting {
  T value{};
  std::string origin = "default";
};

/// What the command line says, when it says anything; flags win over variables.
struct SettingsOverrides {
  std::optional<std::filesystem::path> state_path;
  std::vector<std::filesystem::path> config_paths;
};

/// The defaults the JS hook uses, kept in one place.
inline constexpr std::int64_t k_default_ttl_ms = 120'000;
inline constexpr std::int64_t k_default_timeout_ms = 5'000;
inline constexpr std::int64_t k_default_backoff_ms = 30'000;
inline constexpr std::int64_t k_default_max_backoff_ms = 600'000;
inline constexpr std::int64_t k_default_reconnect_timeout_ms = 5'000;
inline constexpr std::int64_t k_default_input_max_bytes = 16 * 1024 * 1024;

/// The resolved settings.
struct Settings {
  Setting<std::filesystem::path> state_path;
  Setting<std::int64_t> ttl_ms{k_default_ttl_ms};
  Setting<std::int64_t> timeout_ms{k_default_timeout_ms};
  Setting<std::int64_t> backoff_ms{k_default_backoff_ms};
  Setting<std::int64_t> max_backoff_ms{k_default_max_backoff_ms};
  Setting<std::int64_t> reconnect_timeout_ms{k_default_reconnect_timeout_ms};
  Setting<bool> fail_open{false};
  /// Explicit config files (flag or variable) that replace the search; empty = search Claude Code's places.
  Setting<std::vector<std::filesystem::path>> config_paths;
  /// Things worth telling the user: malformed numbers, `~` in a path variable.
  std::vector<std::string> warnings;
};

/// Expands a leading `~` or a literal `$HOME` in `path`; sets `expanded` when it did.
std::filesystem::path expand_home(const std::string& path, const util::Environment& env, bool& expanded);

/// Resolves the state path alone: what the hook's hot path needs before anything else.
Setting<std::filesystem::path> resolve_state_path(const util::Environment& env, const SettingsOverrides& flags);

/// Resolves the explicit config files alone (`--config`, else `ECC_MCP_CONFIG_PATH`; empty = search): what the
/// hook's cache hit needs, without the rest of the settings. Warnings about `~` are appended to `warnings`.
Setting<std::vector<std::filesystem::path>> resolve_config_paths(const util::Environment& env,
                                                                 const SettingsOverrides& flags,
                                                                 std::vector<std::string>& warnings);

/// Resolves every setting.
Settings resolve_settings(const util::Environment& env, const SettingsOverrides& flags);

/// Reads the input byte limit (`ECC_HOOK_INPUT_MAX_BYTES`), needed before the payload is parsed.
Setting<std::int64_t> resolve_input_max_bytes(const util::Environment& env, std::vector<std::string>& warnings);

} // namespace mcphealth::config
