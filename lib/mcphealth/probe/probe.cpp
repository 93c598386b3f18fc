#include <mcphealth/probe/probe.hpp>

#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

#include <poll.h>

namespace mcphealth::probe {

namespace json = boost::json;

std::string kind_name(Kind kind) {
  switch (kind) {
  case Kind::answered: return "answered";
  case Kind::alive_silent: return "alive-silent";
  case Kind::reachable: return "reachable";
  case Kind::needs_auth: return "needs-auth";
  case Kind::exited: return "exited";
  case Kind::spawn_failed: return "spawn-failed";
  case Kind::timeout: return "timeout";
  case Kind::http_status: return "http-status";
  case Kind::transport: return "transport";
  case Kind::protocol_error: return "protocol-error";
  case Kind::unsupported: return "unsupported";
  case Kind::not_probed: return "not-probed";
  }
  return "unknown";
}

json::object ProbeResult::details() const {
  json::object o;
  o["kind"] = kind_name(kind);
  o["latencyMs"] = latency_ms;
  if (http_status) o["httpStatus"] = *http_status;
  if (protocol_version) o["protocolVersion"] = *protocol_version;
  if (server_name) o["serverName"] = *server_name;
  if (server_version) o["serverVersion"] = *server_version;
  if (tool_count) o["tools"] = *tool_count;
  return o;
}

ProbeResult LiveProber::probe(const config::ResolvedServer& server, std::int64_t timeout_ms) {
  if (const auto* stdio = std::get_if<config::StdioServer>(&server.transport)) {
    return probe_stdio_liveness(*stdio, timeout_ms, m_clock);
  }
  if (const auto* remote = std::get_if<config::HttpServer>(&server.transport)) {
    std::string error;
    if (m_http == nullptr) m_http = http::curl_client(error);
    if (m_http == nullptr) {
      ProbeResult r;
      r.kind = Kind::not_probed;
      r.reason = "HTTP probes need libcurl (" + error + ")";
      return r;
    }
    return probe_http_liveness(*remote, timeout_ms, *m_http, m_clock);
  }
  ProbeResult r;
  r.kind = Kind::unsupported;
  r.reason = std::get<config::UnsupportedServer>(server.transport).reason;
  return r;
}

bool is_reachable_status(long status) {
  switch (status) {
  case 200: case 201: case 202: case 204:
  case 301: case 302: case 303: case 304: case 307: case 308:
  case 400: case 401: case 403: case 405: case 406:
    return true;
  default:
    return false;
  }
}

ProbeResult probe_http_liveness(const config::HttpServer& server, std::int64_t timeout_ms, http::Client& client,
                                util::Clock& clock) {
  ProbeResult r;
  const util::EpochMs started = clock.now_ms();
  http::Request request;
  request.url = server.url;
  request.headers = server.headers;
  request.timeout_ms = timeout_ms;
  request.on_body = [](std::string_view) { return false; }; // the status is all we need; an SSE stream never ends
  const http::Response response = client.perform(request);
  r.latency_ms = clock.now_ms() - started;
  if (!response.has_status()) {
    r.kind = response.timed_out ? Kind::timeout : Kind::transport;
    r.code = state::FailureCode::transport();
    r.reason = response.error;
    return r;
  }
  r.http_status = static_cast<int>(response.status);
  if (is_reachable_status(response.status)) {
    r.ok = true;
    r.kind = (response.status == 401 || response.status == 403) ? Kind::needs_auth : Kind::reachable;
    return r;
  }
  r.kind = Kind::http_status;
  r.reason = "HTTP " + std::to_string(response.status);
  if (response.status == 429 || response.status == 503) {
    r.code = state::FailureCode::http(static_cast<int>(response.status));
    if (auto value = response.header("retry-after")) r.retry_after_ms = http::parse_retry_after(*value, clock.now_ms());
  }
  return r;
}

ProbeResult probe_stdio_liveness(const config::StdioServer& server, std::int64_t timeout_ms, util::Clock& clock) {
  ProbeResult r;
  const util::EpochMs started = clock.now_ms();
  if (server.executable.empty()) {
    r.kind = Kind::spawn_failed;
    r.reason = "spawn " + server.command + " ENOENT";
    return r;
  }
  proc::SpawnResult spawned = proc::spawn({server.executable, server.args, server.environment});
  if (!spawned.child) {
    r.kind = Kind::spawn_failed;
    r.reason = "spawn " + server.command + " " + util::errno_name(spawned.error);
    return r;
  }
  proc::Child& child = *spawned.child;
  std::string out_discard;
  std::string err;
  const util::EpochMs deadline = started + timeout_ms;
  std::optional<proc::ExitStatus> exited;
  for (;;) {
    if ((exited = child.poll_exit())) break;
    const std::int64_t left = deadline - clock.now_ms();
    if (left <= 0) break;
    pollfd fds[2];
    nfds_t n = 0;
    for (int fd : {child.stdout_fd(), child.stderr_fd()}) {
      if (fd >= 0) fds[n++] = {fd, POLLIN, 0};
    }
    ::poll(fds, n, static_cast<int>(std::min<std::int64_t>(left, 20)));
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      const bool is_err = fds[i].fd == child.stderr_fd();
      std::string& sink = is_err ? err : out_discard;
      if (!proc::drain_fd(fds[i].fd, sink, is_err ? k_max_stderr_chars : 0)) child.close_output(fds[i].fd);
    }
  }
  if (exited) {
    if (child.stderr_fd() >= 0) proc::drain_fd(child.stderr_fd(), err, k_max_stderr_chars);
    r.kind = Kind::exited;
    std::string text = util::trim(err);
    r.reason = text.empty() ? "process exited before handshake (" + exited->describe() + ")" : text;
  } else {
    r.ok = true;
    r.kind = Kind::alive_silent;
  }
  child.terminate_group(1000, clock);
  r.latency_ms = clock.now_ms() - started;
  return r;
}

} // namespace mcphealth::probe
