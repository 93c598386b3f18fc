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
  ProbeResult r;
  r.kind = Kind::unsupported;
  if (const auto* bad = std::get_if<config::UnsupportedServer>(&server.transport)) r.reason = bad->reason;
  else r.reason = "HTTP probes are not available in this build";
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
