#include <mcphealth/probe/probe.hpp>

#include <mcphealth/mcp/handshake.hpp>
#include <mcphealth/mcp/stdio_transport.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

#include <poll.h>

namespace mcphealth::probe {

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

ProbeResult probe_stdio(const config::StdioServer& server, std::int64_t timeout_ms, const ProbeOptions& options,
                        util::Clock& clock) {
  if (options.depth == Depth::liveness) return probe_stdio_liveness(server, timeout_ms, clock);
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
  mcp::StdioTransport transport(std::move(spawned.child), clock);
  const mcp::HandshakeResult hs = mcp::handshake(transport, options.protocol, started + timeout_ms, clock);
  r.latency_ms = clock.now_ms() - started; // the answer's time, not the shutdown's
  if (hs.answered) {
    r.ok = true;
    r.kind = Kind::answered;
    r.protocol_version = hs.protocol_version;
    r.server_name = hs.server_name;
    r.server_version = hs.server_version;
    r.tool_count = hs.tool_count;
  } else {
    switch (hs.failure.status) {
    case mcp::CallOutcome::Status::rpc_error:
      r.kind = Kind::protocol_error;
      r.reason = "initialize failed: " + hs.failure.error_message +
                 (hs.failure.error_code != 0 ? " (" + std::to_string(hs.failure.error_code) + ")" : "");
      break;
    case mcp::CallOutcome::Status::timeout:
      if (options.depth == Depth::automatic && transport.running()) {
        r.ok = true; // alive but silent: a non-MCP wrapper, or a slow starter; the gate lets it through
        r.kind = Kind::alive_silent;
      } else {
        r.kind = Kind::timeout;
        r.reason = "no MCP answer within " + std::to_string(timeout_ms) + " ms";
        if (std::string err = transport.stderr_text(); !err.empty()) r.reason += ": " + err;
      }
      break;
    default:
      r.kind = Kind::exited;
      r.reason = transport.running() ? hs.failure.reason : transport.exit_reason();
      break;
    }
  }
  transport.close();
  return r;
}

} // namespace mcphealth::probe
