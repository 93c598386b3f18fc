#pragma once
// The per-server policy file (`~/.config/mcphealth/policy.json`): how each server is probed, its timeouts, TTL and
// backoff, fail-open, and its reconnect command, in `defaults` and per server name or pattern. Loading validates
// the whole file (JSON errors with line and column, unknown keys with a "did you mean", wrong types named); an
// invalid file is reported and ignored as a whole, so the environment keeps deciding.
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/util/env.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// What a policy's values say; each is unset unless the entry gives it.
struct PolicyValues {
  std::optional<ProbeMode> probe;
  std::optional<ProtocolMode> protocol;
  std::optional<std::int64_t> timeout_ms;
  std::optional<std::int64_t> ttl_ms;
  std::optional<std::int64_t> backoff_ms;
  std::optional<std::int64_t> max_backoff_ms;
  std::optional<std::int64_t> crash_loop_max_backoff_ms;
  std::optional<bool> fail_open;
  std::optional<ReconnectSpec> reconnect;
  std::optional<std::int64_t> reconnect_timeout_ms;
  /// Per server only (never in `defaults`).
  std::optional<CheckSpec> check;
};

/// One entry of `servers`: the values for the servers whose tool-name spelling matches `pattern` (`*` matches any
/// run of characters), in one project folder when `project` is set.
struct PolicyRule {
  std::string pattern;
  std::optional<std::filesystem::path> project;
  PolicyValues values;
  /// Where it is in the file: `servers.github`, or `servers.github[1]` for the second entry of a list.
  std::string where;
  /// True when `pattern` holds a `*`.
  bool is_pattern() const { return pattern.find('*') != std::string::npos; }
  /// True when this rule applies to `server` (a tool-name server) defined for `project` (local or project scope;
  /// nothing for user, plugin and explicit files, which no `project` entry matches).
  bool applies_to(std::string_view server, const std::optional<std::filesystem::path>& project) const;
};

/// One problem with a policy file. JSON syntax errors carry a line and column; the rest name the key.
struct PolicyProblem {
  std::string where;
  std::size_t line = 0;
  std::size_t column = 0;
  std::string message;
  /// `line 3, column 14: ...` or `servers.github.timeotMs: ...`.
  std::string text() const;
};

/// The policy file as loaded.
struct Policy {
  enum class Status {
    absent,  // no file: nothing overrides the environment
    ok,      // read and valid
    invalid, // read, but not valid: ignored as a whole (see problems)
  };
  Status status = Status::absent;
  Setting<std::filesystem::path> path;
  /// Size, modification time and inode of the file: changes when it is edited (for saying a problem once).
  std::string stamp;
  PolicyValues defaults;
  std::vector<PolicyRule> rules;
  std::vector<PolicyProblem> problems;
  /// Why its checks do not run, when the file is not the user's alone (check_refused_because); nothing when they do.
  std::optional<std::string> checks_refused;
  /// True when some rule declares a check.
  bool has_checks() const;

  /// The rules that apply to `server` (see PolicyRule::applies_to), least specific first: patterns before exact
  /// names, and rules without `project` before those with one (file order within each).
  std::vector<const PolicyRule*> rules_for(std::string_view server, const std::optional<std::filesystem::path>& project) const;
  /// True when some rule names a project: then a server's settings depend on its definition, not on its name alone.
  bool has_project_rules() const;
  /// The longest a probe, a reconnect and a re-probe can take for any server under `base` and this policy.
  std::int64_t longest_recovery_ms(const Settings& base) const;
};

/// Why a policy's declared checks must not run, or nothing when they may: a check runs a program, and it is as
/// trusted as the file that holds it. Refused when the file lies inside `project_dir` (a folder a repository
/// controls), or when the variable that put it there (`MCPHEALTH_POLICY`, `XDG_CONFIG_HOME`, `HOME`) has the
/// value a project settings file's `env` gives it (`.claude/settings.json`, `.claude/settings.local.json`: Claude
/// Code passes its settings' `env` to the hooks it runs).
std::optional<std::string> check_refused_because(const Policy& policy, const util::Environment& env,
                                                 const std::filesystem::path& project_dir,
                                                 util::FileReader& reader);

/// A policy status as output spells it: `absent`, `ok`, `invalid`.
std::string_view policy_status_name(Policy::Status status);

/// Reads and validates the policy file at `path` (a regular file of at most 1 MiB); `env` gives the home folder
/// a `project` starting with `~` is in.
/// Its checks are judged against `project_dir` (check_refused_because); nothing: the current folder.
Policy load_policy(const Setting<std::filesystem::path>& path, const util::Environment& env,
                   util::FileReader& reader, const std::optional<std::filesystem::path>& project_dir);

/// Validates policy text (what load_policy does after reading); `path` only labels the result.
Policy parse_policy(std::string_view text, const Setting<std::filesystem::path>& path, const util::Environment& env);

/// The settings for one server: `base` (flags, variables, defaults) with the policy's values laid over it, except
/// where a command-line flag set a value. Precedence, highest first: flag > policy rules for the server (most
/// specific first) > policy defaults > MCPHEALTH_* > ECC_* > built-in default. An invalid policy changes nothing.
Settings settings_for(const Settings& base, const Policy& policy, std::string_view server,
                      const std::optional<std::filesystem::path>& project);

/// The settings for a definition (its tool name, and its project for local and project scope).
Settings settings_for(const Settings& base, const Policy& policy, const Candidate& candidate);


/// The client's start-up timeout: `MCP_TIMEOUT` (ms) where it is a positive whole number, else 30 s.
std::int64_t client_startup_timeout_ms(const util::Environment& env);

/// `s` for a probe no agent is waiting for (`probe`, `watch --probe`, `refresh`): a timeout nobody chose (the
/// built-in 5 s) becomes the client's start-up timeout, so a slow but healthy server gets the time Claude Code
/// gives it. A timeout from a flag, a variable or the policy file is kept. When the timeout is at least the
/// client's, silence at it fails the probe (Settings::silence_fails), as it fails the server in Claude Code.
Settings unhurried(Settings s, const util::Environment& env);

/// The most of a policy file that is read.
inline constexpr std::size_t k_max_policy_bytes = 1024 * 1024;

} // namespace mcphealth::config
