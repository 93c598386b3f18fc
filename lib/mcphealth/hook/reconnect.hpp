#pragma once
// The reconnect command (`pm2 restart {server}`): which variable holds it, the one safe way to put a server name
// into it, and running it in a process group of its own under a timeout.
#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::hook {

/// A configured reconnect command and the variable it came from.
struct ReconnectCommand {
  std::string command;
  std::string variable;
};

/// Returns the per-server variable suffix: upper-cased, every non-alphanumeric character replaced by `_`.
std::string reconnect_env_suffix(std::string_view server);

/// Finds the reconnect command: `ECC_MCP_RECONNECT_<SERVER>` (never for servers whose suffix is `COMMAND` or
/// `TIMEOUT_MS`), else `ECC_MCP_RECONNECT_COMMAND`; each also as `MCPHEALTH_RECONNECT_...`, which wins.
std::optional<ReconnectCommand> find_reconnect_command(std::string_view server, const util::Environment& env);

/// True for names made only of `[A-Za-z0-9._-]`.
bool is_plain_server_name(std::string_view server);

/// Quotes `text` for `/bin/sh` with single quotes.
std::string shell_quote(std::string_view text);

/// Replaces every `{server}` in `command` with the shell-quoted name.
std::string expand_reconnect_command(std::string_view command, std::string_view server);

/// Runs shell commands; an interface so the hook's reconnect logic is tested without processes.
class CommandRunner {
public:
  virtual ~CommandRunner() = default;
  /// Runs `command` with `/bin/sh -c` in its own process group, killing the group after `timeout_ms`.
  virtual proc::CommandResult run_shell(const std::string& command, std::int64_t timeout_ms) = 0;
};

/// The real runner.
class ShellRunner final : public CommandRunner {
public:
  explicit ShellRunner(util::Clock& clock) : m_clock(clock) {}
  proc::CommandResult run_shell(const std::string& command, std::int64_t timeout_ms) override;

private:
  util::Clock& m_clock;
};

/// The outcome of a reconnect attempt.
struct ReconnectOutcome {
  enum class Status { ok, failed, refused };
  Status status = Status::failed;
  /// Why it failed or was refused.
  std::string reason;
};

/// Runs the reconnect `command` for `server`. A name that is neither `defined` in a config file nor plain is
/// refused: it came from the payload and is not trusted.
ReconnectOutcome run_reconnect(const ReconnectCommand& command, std::string_view server, bool defined,
                               std::int64_t timeout_ms, CommandRunner& runner);

} // namespace mcphealth::hook
