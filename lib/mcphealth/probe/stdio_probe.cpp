#include <mcphealth/probe/probe.hpp>

#include <mcphealth/probe/pacer.hpp>
#include <mcphealth/proc/errno_name.hpp>

#include <mcphealth/mcp/handshake.hpp>
#include <mcphealth/mcp/stdio_transport.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/json.hpp>

#include <cerrno>
#include <poll.h>
#include <sys/stat.h>

namespace mcphealth::probe {

namespace {
/// Starts the server in its own process group; on failure fills `r` (`spawn <command> ENOENT`) and returns nothing.
std::unique_ptr<proc::Child> start_server(const config::StdioServer& server, ProbeResult& r) {
  // The agent cannot start it there either: the folder's fault, said as such (a failed chdir reads like exec's).
  struct stat folder {};
  const bool found = server.cwd.empty() || ::stat(server.cwd.c_str(), &folder) == 0;
  if (!found || (!server.cwd.empty() && !S_ISDIR(folder.st_mode))) {
    const int why = found ? ENOTDIR : errno;
    if (is_local_fault(why)) {
      r = local_fault("stat " + server.cwd.string(), why);
      return nullptr;
    }
    r.kind = Kind::spawn_failed;
    r.reason = "spawn " + server.command + ": its folder " + server.cwd.string() +
               (why == ENOENT ? " is not there" : " cannot be used (" + proc::errno_name(why) + ")") + " (cwd)";
    return nullptr;
  }
  int error = ENOENT;
  if (!server.executable.empty()) {
    auto spawned = proc::spawn({server.executable, server.args, server.environment, server.cwd});
    if (spawned) return std::move(*spawned);
    error = spawned.error().code;
  }
  if (is_local_fault(error)) { // out of descriptors or processes: ours, not the server's
    r = local_fault("spawn " + server.command, error);
    return nullptr;
  }
  r.kind = Kind::spawn_failed;
  r.reason = "spawn " + server.command + " " + proc::errno_name(error);
  return nullptr;
}
} // namespace

namespace {
/// A slot to start in, when the batch paces starts (waiting for it is not the server's time).
StartPacer::Ticket pace(const ProbeOptions& options) {
  return options.pacer ? options.pacer->enter(options.pace_order) : StartPacer::Ticket();
}
} // namespace

ProbeResult probe_stdio_liveness(const config::StdioServer& server, std::int64_t timeout_ms,
                                 const ProbeOptions& options, util::Clock& clock) {
  ProbeResult r;
  StartPacer::Ticket ticket = pace(options);
  const util::EpochMs started = clock.now_ms();
  std::unique_ptr<proc::Child> started_child = start_server(server, r);
  if (!started_child) return r;
  proc::Child& child = *started_child;
  ticket.started(child.pid());
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
      if (!proc::drain_fd(fds[i].fd, sink, is_err ? k_max_stderr_bytes : 0)) child.close_output(fds[i].fd);
    }
  }
  if (exited) {
    if (child.stderr_fd() >= 0) proc::drain_fd(child.stderr_fd(), err, k_max_stderr_bytes);
    r.kind = Kind::exited;
    r.exit_status = exited->describe();
    std::string text = util::trim(err);
    r.reason = text.empty() ? "process exited before handshake (" + exited->describe() + ")" : text;
  } else if (auto starved = starved_of_cpu(child.pid(), clock.now_ms() - started)) {
    r = *starved; // it had no chance to exit (or to show it stays up)
  } else {
    r.ok = true;
    r.kind = Kind::alive_silent;
  }
  child.terminate_group(1000, clock);
  r.latency_ms = clock.now_ms() - started;
  r.cpu_ms = child.cpu_ms();
  return r;
}

ProbeResult probe_stdio(const config::StdioServer& server, std::int64_t timeout_ms, const ProbeOptions& options,
                        util::Clock& clock) {
  if (options.depth == Depth::liveness) return probe_stdio_liveness(server, timeout_ms, options, clock);
  ProbeResult r;
  StartPacer::Ticket ticket = pace(options);
  const util::EpochMs started = clock.now_ms();
  std::unique_ptr<proc::Child> started_child = start_server(server, r);
  if (!started_child) return r;
  ticket.started(started_child->pid());
  mcp::StdioTransport transport(std::move(started_child), clock);
  // In a batch, the starts share the cores (the pacer lets as many start as it expects them to get through): time a
  // server waits for a CPU is not its silence, up to twice its timeout more.
  if (options.pacer != nullptr) transport.allow_cpu_wait(2 * timeout_ms);
  const mcp::HandshakeResult hs = mcp::handshake(transport, first_protocol(options), started + timeout_ms, clock);
  r.latency_ms = clock.now_ms() - started; // the answer's time, not the shutdown's
  ticket.answered(); // its start's cost is known, and the shutdown needs no slot
  if (hs.answered) {
    take_answer(hs, "stdio", r);
    if (options.tool_check != nullptr) {
      take_tool_check(mcp::call_tool(transport, hs, options.tool_check->name, options.tool_check->arguments,
                                     clock.now_ms() + timeout_ms), r);
    }
  } else {
    switch (hs.failure.status) {
    case mcp::CallOutcome::Status::rpc_error:
      r.kind = Kind::protocol_error;
      r.reason = protocol_error_reason(hs.failure);
      break;
    case mcp::CallOutcome::Status::timeout: {
      // What it said meanwhile is often the why ("connect ECONNREFUSED" from the backend it waits for).
      const std::string err = transport.stderr_text();
      r.reason = "no MCP answer within " + std::to_string(timeout_ms) + " ms";
      if (options.silence_fails) r.reason += " (Claude Code's start-up timeout: it fails the server too)";
      if (!err.empty()) r.reason += "; its stderr: " + err;
      if (options.depth == Depth::automatic && transport.running() && !options.silence_fails) {
        // Alive but silent: a non-MCP wrapper, or a slow starter; the gate lets it through. Unless the machine
        // kept it from running: a starved process is not alive-and-silent, it is unknown.
        if (auto starved = starved_of_cpu(transport.pid(), clock.now_ms() - started)) {
          const std::int64_t latency = r.latency_ms;
          r = *starved;
          r.latency_ms = latency;
          break;
        }
        r.ok = true;
        r.kind = Kind::alive_silent;
      } else {
        r.kind = Kind::timeout;
      }
      break;
    }
    default:
      r.kind = Kind::exited;
      r.reason = transport.running() ? hs.failure.reason : transport.exit_reason();
      r.exit_status = transport.exit_status();
      break;
    }
  }
  transport.close();
  r.cpu_ms = transport.cpu_ms();
  return r;
}

} // namespace mcphealth::probe
