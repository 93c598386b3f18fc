#pragma once
// The reconnect command (`pm2 restart {server}`): which variable holds it, putting a server name into it without
// ever putting the name into the command text, and running it in a process group of its own under a timeout.
#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::recover {

/// The variable a reconnect command finds the server's name in; `{server}` becomes a reference to it.
inline constexpr std::string_view k_server_variable = "MCPHEALTH_SERVER";

/// A configured reconnect command and where it came from.
struct ReconnectCommand {
  /// Run with `/bin/sh -c` (the variables' form, or a string in the policy); empty when `argv` is used.
  std::string command;
  /// Run without a shell (a list in the policy); `{server}` in a word becomes the name itself.
  std::vector<std::string> argv;
  /// The variable (`ECC_MCP_RECONNECT_GITHUB`) or the policy entry (`policy servers.github`).
  std::string variable;
};

/// Returns the per-server variable suffix: upper-cased, every non-alphanumeric character replaced by `_`.
std::string reconnect_env_suffix(std::string_view server);

/// Finds the reconnect command: `ECC_MCP_RECONNECT_<SERVER>` (never for servers whose suffix is `COMMAND` or
/// `TIMEOUT_MS`), else `ECC_MCP_RECONNECT_COMMAND`; each also as `MCPHEALTH_RECONNECT_...`, which wins.
std::optional<ReconnectCommand> find_reconnect_command(std::string_view server, const util::Environment& env);

/// True for names made only of `[A-Za-z0-9._-]`.
bool is_plain_server_name(std::string_view server);

/// True when no shell reads anything in `server` but words: letters, digits, spaces and `._-`. Only such names reach
/// a reconnect command, wherever they came from (a repository's `.mcp.json` chooses its names, and the command may
/// start a shell of its own: `sh -c "echo {server}"`, `ssh host pm2 restart {server}`).
bool is_inert_server_name(std::string_view server);

/// Replaces every `{server}` in `command` with a reference to `$MCPHEALTH_SERVER` written for the quoting context it
/// stands in (bare, inside double quotes, inside single quotes), so that no name can end a quote or run code: the
/// name itself never enters the command text.
std::string expand_reconnect_command(std::string_view command);

/// Runs shell commands; an interface so the reconnect logic is tested without processes.
class CommandRunner {
public:
  virtual ~CommandRunner() = default;
  /// Runs `command` with `/bin/sh -c` in its own process group, with `MCPHEALTH_SERVER=server` added to the
  /// environment and `input` on its stdin, killing the group after `timeout_ms`.
  virtual proc::CommandResult run_shell(const std::string& command, std::string_view server, std::int64_t timeout_ms,
                                        std::string_view input = {}) = 0;
  /// Runs `argv` (the program looked up on PATH) without a shell, otherwise as run_shell does.
  virtual proc::CommandResult run_argv(const std::vector<std::string>& argv, std::string_view server,
                                       std::int64_t timeout_ms) = 0;
};

/// The real runner: this process's environment plus `MCPHEALTH_SERVER`.
class ShellRunner final : public CommandRunner {
public:
  ShellRunner(util::Clock& clock, const util::Environment& env) : m_clock(clock), m_env(env) {}
  proc::CommandResult run_shell(const std::string& command, std::string_view server, std::int64_t timeout_ms,
                                std::string_view input = {}) override;
  proc::CommandResult run_argv(const std::vector<std::string>& argv, std::string_view server,
                               std::int64_t timeout_ms) override;

private:
  /// This process's environment with `MCPHEALTH_SERVER=server`.
  std::vector<std::string> environment_for(std::string_view server) const;

  util::Clock& m_clock;
  const util::Environment& m_env;
};

/// The outcome of a reconnect attempt.
struct ReconnectOutcome {
  enum class Status { ok, failed, refused };
  Status status = Status::failed;
  /// Why it failed or was refused.
  std::string reason;
  /// The command as it ran, for a person (`{server}` as the name), credentials redacted; empty when refused.
  std::string command;
  /// How it exited (`1`, `SIGTERM`), when it ran and exited.
  std::optional<std::string> exit;
  /// The first line it printed (its stderr, else its stdout): terminal escapes stripped, credentials redacted.
  std::string line;
};

/// Whether a server name comes from a config file (trusted as a name) or only from the hook's payload.
enum class NameOrigin { config, payload };

/// Replaces every `{server}` in each word of `argv` with `server` (no shell ever reads the words).
std::vector<std::string> expand_reconnect_argv(const std::vector<std::string>& argv, std::string_view server);

/// Runs the reconnect `command` for `server`. A payload name that is not plain is refused: it is not a server the
/// user defined, and no command should run for it.
ReconnectOutcome run_reconnect(const ReconnectCommand& command, std::string_view server, NameOrigin origin,
                               std::int64_t timeout_ms, CommandRunner& runner);

} // namespace mcphealth::recover
