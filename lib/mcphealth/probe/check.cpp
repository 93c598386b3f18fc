// The check a user declares for a server (config::CheckSpec): a command, a GET or a tool call that a look runs after
// the server's own probe passes. Apart from the probe vocabulary, as LiveProber is: it starts processes and loads
// libcurl.
#include <mcphealth/probe/probe.hpp>

#include <mcphealth/config/server.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::probe {

namespace {

/// `{server}` in `word` replaced by `name`.
std::string with_name(std::string word, std::string_view name) {
  constexpr std::string_view placeholder = "{server}";
  for (std::size_t at = word.find(placeholder); at != std::string::npos; at = word.find(placeholder, at + name.size()))
    word.replace(at, placeholder.size(), name);
  return word;
}

bool names_server(const config::CheckSpec& check) {
  auto has = [](const std::string& s) { return s.find("{server}") != std::string::npos; };
  if (has(check.shell) || has(check.url)) return true;
  for (const std::string& word : check.argv) {
    if (has(word)) return true;
  }
  return false;
}

/// The environment a command check runs with: a stdio server's own (the agent's, with its definition's `env`), as
/// its probe starts it; for a remote one, this process's.
std::vector<std::string> environment_of(const config::ResolvedServer& server) {
  if (const auto* stdio = std::get_if<config::StdioServer>(&server.transport)) return stdio->environment;
  return util::ProcessEnvironment().entries();
}

std::optional<CheckFailure> run_command(const config::CheckSpec& check, const config::ResolvedServer& server,
                                        std::int64_t timeout_ms, util::Clock& clock) {
  const std::string& name = server.definition.name;
  std::vector<std::string> environment = environment_of(server);
  const std::string variable(recover::k_server_variable);
  std::erase_if(environment, [&](const std::string& e) { return e.compare(0, variable.size() + 1, variable + "=") == 0; });
  environment.push_back(variable + "=" + name);
  proc::CommandResult ran;
  if (!check.argv.empty()) {
    std::vector<std::string> argv;
    for (const std::string& word : check.argv) argv.push_back(with_name(word, name));
    std::filesystem::path program = config::find_on_path(argv.front(), environment, {}, util::disk());
    if (program.empty()) program = argv.front(); // spawning it reports ENOENT with the name the user wrote
    ran = proc::run_to_completion({program, {argv.begin() + 1, argv.end()}, std::move(environment)}, timeout_ms, clock);
  } else {
    ran = proc::run_to_completion({"/bin/sh", {"-c", recover::expand_reconnect_command(check.shell)}, std::move(environment)},
                                  timeout_ms, clock);
  }
  if (ran.succeeded()) return std::nullopt;
  switch (ran.status) {
  case proc::CommandResult::Status::spawn_failed: return CheckFailure{"could not start: " + ran.error, {}, true};
  case proc::CommandResult::Status::timed_out:
    return CheckFailure{"no answer within " + std::to_string(timeout_ms) + " ms", {}};
  case proc::CommandResult::Status::exited: break;
  }
  std::string why = "exited " + ran.exit.describe();
  const std::string said = util::last_meaningful_line(ran.err.empty() ? ran.out : ran.err);
  if (!said.empty()) why += ": " + util::cap_utf8(said, 300);
  return CheckFailure{why, {}};
}

std::optional<CheckFailure> run_url(const config::CheckSpec& check, const config::ResolvedServer& server,
                                    std::int64_t timeout_ms, const std::function<http::Client*()>& client) {
  http::Request request;
  request.url = util::SecretUrl(with_name(check.url, server.definition.name));
  request.timeout_ms = timeout_ms;
  // The definition's headers go only where the definition sends them: its own origin (credentials never go to
  // another), and only when the check asks for them.
  const auto* remote = std::get_if<config::HttpServer>(&server.transport);
  if (check.headers && remote != nullptr) {
    const std::optional<std::string> own = http::origin_of(remote->url.for_transport(), http::Userinfo::ignore);
    const std::optional<std::string> asked = http::origin_of(request.url.for_transport(), http::Userinfo::ignore);
    if (own && asked && *own == *asked) request.headers = remote->headers;
  }
  http::Client* http = client();
  if (http == nullptr) return CheckFailure{"HTTP checks need libcurl", {}, true};
  // A health endpoint's body is not read: the status says it all.
  request.on_body = [](std::string_view, const http::Response&) { return false; };
  const http::Response got = http->perform(request);
  if (got.succeeded()) return std::nullopt;
  if (got.has_status()) return CheckFailure{"HTTP " + std::to_string(got.status), static_cast<int>(got.status)};
  return CheckFailure{got.error.empty() ? std::string("no answer") : got.error, {}};
}

} // namespace

std::optional<CheckFailure> run_check(const config::CheckSpec& check, const config::ResolvedServer& server,
                                      std::int64_t timeout_ms, const std::function<http::Client*()>& http,
                                      util::Clock& clock) {
  // The name reaches a program's words (or a URL): only a name no shell or URL reads as more than words.
  if (names_server(check) && !recover::is_inert_server_name(server.definition.name)) {
    return CheckFailure{"its words name the server, and the name " + util::shell_quote(server.definition.name) +
                            " is not made of letters, digits, spaces and ._-",
                        {}, true};
  }
  switch (check.kind) {
  case config::CheckSpec::Kind::command: return run_command(check, server, timeout_ms, clock);
  case config::CheckSpec::Kind::url: return run_url(check, server, timeout_ms, http);
  case config::CheckSpec::Kind::tool: break;
  }
  return std::nullopt; // a tool check runs inside the probe (ProbeOptions::tool_check)
}

std::optional<std::string> tool_check_failure(const mcp::CallOutcome& called) {
  using Status = mcp::CallOutcome::Status;
  switch (called.status) {
  case Status::result: {
    const auto it = called.result.find("isError");
    if (it != called.result.end() && it->value().is_bool() && it->value().get_bool()) {
      return std::string("the tool answered with isError"); // its text is third-party words: never kept
    }
    return std::nullopt;
  }
  case Status::rpc_error: return "a JSON-RPC error (" + std::to_string(called.error_code) + ")";
  case Status::timeout: return std::string("no answer in time");
  case Status::closed: return std::string("the server went away");
  case Status::failed: break;
  }
  return called.http_status ? "HTTP " + std::to_string(*called.http_status) : std::string("the request failed");
}

void take_tool_check(const mcp::CallOutcome& called, ProbeResult& r) {
  const std::optional<std::string> failure = tool_check_failure(called);
  r.check_passed = !failure.has_value();
  if (failure) r.reason = *failure;
}

void take_check(const config::CheckSpec& check, const std::optional<CheckFailure>& failure, ProbeResult& r) {
  r.check_passed = !failure.has_value();
  if (!failure) return;
  r.ok = false;
  if (failure->not_run) {
    r.check_passed.reset();
    r.kind = Kind::not_probed;
    r.reason = "its check (" + check.text() + ") could not run here: " + util::redact(failure->why) +
               "; nothing recorded";
    return;
  }
  r.kind = Kind::check_failed;
  r.http_status = failure->http_status;
  r.code = failure->http_status ? state::FailureCode::http(*failure->http_status) : state::FailureCode::transport();
  r.reason = "answers, but its check (" + check.text() + ") failed: " + util::redact(failure->why);
}

} // namespace mcphealth::probe
