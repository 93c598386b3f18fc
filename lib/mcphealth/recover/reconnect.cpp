#include <mcphealth/recover/reconnect.hpp>

#include <mcphealth/config/server.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

#include <cctype>

namespace mcphealth::recover {

std::string reconnect_env_suffix(std::string_view server) {
  std::string out;
  for (char c : server) {
    const auto u = static_cast<unsigned char>(c);
    out += std::isalnum(u) != 0 ? static_cast<char>(std::toupper(u)) : '_';
  }
  return out;
}

std::optional<ReconnectCommand> find_reconnect_command(std::string_view server, const util::Environment& env) {
  const std::string suffix = reconnect_env_suffix(server);
  if (!suffix.empty() && suffix != "COMMAND" && suffix != "TIMEOUT_MS") {
    if (auto found = util::lookup_setting(env, "ECC_MCP_RECONNECT_" + suffix)) return ReconnectCommand{found->value, {}, found->name};
  }
  if (auto found = util::lookup_setting(env, "ECC_MCP_RECONNECT_COMMAND")) return ReconnectCommand{found->value, {}, found->name};
  return std::nullopt;
}

bool is_inert_server_name(std::string_view server) {
  if (server.empty()) return false;
  for (char c : server) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '_' && c != '-' && c != ' ') return false;
  }
  return true;
}

bool is_plain_server_name(std::string_view server) {
  if (server.empty()) return false;
  for (char c : server) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

std::string expand_reconnect_command(std::string_view command) {
  constexpr std::string_view placeholder = "{server}";
  const std::string reference = "${" + std::string(k_server_variable) + "}";
  enum class Quote { none, single, double_ };
  Quote quote = Quote::none;
  std::string out;
  for (std::size_t i = 0; i < command.size();) {
    if (command.compare(i, placeholder.size(), placeholder) == 0) {
      switch (quote) {
      case Quote::none: out += "\"" + reference + "\""; break;
      case Quote::double_: out += reference; break;
      // Inside single quotes nothing expands: close them, expand in double quotes, reopen.
      case Quote::single: out += "'\"" + reference + "\"'"; break;
      }
      i += placeholder.size();
      continue;
    }
    const char c = command[i];
    out += c;
    ++i;
    if (quote == Quote::single) {
      if (c == '\'') quote = Quote::none;
    } else if (c == '\\' && i < command.size()) {
      out += command[i++]; // an escaped character never opens or closes a quote
    } else if (c == '\'' && quote == Quote::none) {
      quote = Quote::single;
    } else if (c == '"') {
      quote = quote == Quote::double_ ? Quote::none : Quote::double_;
    }
  }
  return out;
}

std::vector<std::string> expand_reconnect_argv(const std::vector<std::string>& argv, std::string_view server) {
  constexpr std::string_view placeholder = "{server}";
  std::vector<std::string> out;
  for (const auto& word : argv) {
    std::string expanded;
    for (std::size_t i = 0; i < word.size();) {
      if (word.compare(i, placeholder.size(), placeholder) == 0) {
        expanded += server;
        i += placeholder.size();
      } else {
        expanded += word[i++];
      }
    }
    out.push_back(std::move(expanded));
  }
  return out;
}

std::vector<std::string> ShellRunner::environment_for(std::string_view server) const {
  const std::string variable(k_server_variable);
  std::vector<std::string> environment;
  for (auto& entry : m_env.entries()) {
    if (entry.compare(0, variable.size() + 1, variable + "=") != 0) environment.push_back(entry);
  }
  environment.push_back(variable + "=" + std::string(server));
  return environment;
}

proc::CommandResult ShellRunner::run_shell(const std::string& command, std::string_view server, std::int64_t timeout_ms,
                                           std::string_view input) {
  return proc::run_to_completion({"/bin/sh", {"-c", command}, environment_for(server)}, timeout_ms, m_clock, 64 * 1024, input);
}

proc::CommandResult ShellRunner::run_argv(const std::vector<std::string>& argv, std::string_view server,
                                          std::int64_t timeout_ms) {
  std::vector<std::string> environment = environment_for(server);
  std::filesystem::path program = config::find_on_path(argv.front(), environment, {}, util::disk());
  if (program.empty()) program = argv.front(); // spawning it reports ENOENT with the name the user wrote
  return proc::run_to_completion({program, {argv.begin() + 1, argv.end()}, std::move(environment)}, timeout_ms, m_clock);
}

ReconnectOutcome run_reconnect(const ReconnectCommand& command, std::string_view server, NameOrigin origin,
                               std::int64_t timeout_ms, CommandRunner& runner) {
  ReconnectOutcome out;
  // Whatever its origin: a config's name is a repository's choice too, and the command may hand it to a shell of its
  // own (`sh -c "... {server}"`, `ssh host pm2 restart {server}`), which would read `a;touch PWN;b` as commands.
  if (origin == NameOrigin::payload && !is_plain_server_name(server)) {
    out.status = ReconnectOutcome::Status::refused;
    out.reason = "refusing to run the reconnect command for server name " + util::shell_quote(server) +
                 ": it is not defined in any config file and is not made of [A-Za-z0-9._-]";
    return out;
  }
  if (!is_inert_server_name(server)) {
    out.status = ReconnectOutcome::Status::refused;
    out.reason = "refusing to run the reconnect command for server name " + util::shell_quote(server) +
                 ": it holds a character a shell reads (only letters, digits, spaces and ._- are passed on: a shell "
                 "inside the command, such as sh -c or ssh, would run the rest)";
    return out;
  }
  if (command.argv.empty()) {
    std::string shown = command.command;
    for (std::size_t at = shown.find("{server}"); at != std::string::npos; at = shown.find("{server}", at + server.size()))
      shown.replace(at, 8, server);
    out.command = util::redact(shown);
  } else {
    std::vector<std::string> words;
    for (const std::string& w : expand_reconnect_argv(command.argv, server)) words.push_back(util::shell_word(w));
    out.command = util::redact(util::join(words, " "));
  }
  proc::CommandResult result = command.argv.empty()
                                   ? runner.run_shell(expand_reconnect_command(command.command), server, timeout_ms)
                                   : runner.run_argv(expand_reconnect_argv(command.argv, server), server, timeout_ms);
  switch (result.status) {
  case proc::CommandResult::Status::spawn_failed: out.reason = result.error; break;
  case proc::CommandResult::Status::timed_out:
    out.reason = "timed out after " + std::to_string(timeout_ms) + " ms";
    break;
  case proc::CommandResult::Status::exited:
    out.exit = result.exit.describe();
    for (const std::string& printed : {result.err, result.out}) {
      for (const std::string& line : util::split_lines(printed)) {
        const std::string plain = util::trim(util::strip_terminal_escapes(line));
        if (out.line.empty() && !plain.empty()) out.line = util::cap_utf8(util::redact(plain), 300);
      }
    }
    if (result.succeeded()) {
      out.status = ReconnectOutcome::Status::ok;
      return out;
    }
    out.reason = util::trim(result.err);
    if (out.reason.empty()) out.reason = util::trim(result.out);
    if (out.reason.empty()) out.reason = "exited with " + result.exit.describe();
    break;
  }
  out.reason = util::cap_utf8(out.reason, 500);
  return out;
}

} // namespace mcphealth::recover
