#include <mcphealth/probe/probe.hpp>

#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/proc/errno_name.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <cerrno>
#include <cstring>

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
  case Kind::misconfigured: return "misconfigured";
  case Kind::not_probed: return "not-probed";
  case Kind::local_fault: return "local-fault";
  case Kind::skipped: return "skipped";
  case Kind::check_failed: return "check-failed";
  }
  return "unknown";
}

std::optional<Kind> kind_from_name(std::string_view name) {
  for (Kind k : {Kind::answered, Kind::alive_silent, Kind::reachable, Kind::needs_auth, Kind::exited,
                 Kind::spawn_failed, Kind::timeout, Kind::http_status, Kind::transport, Kind::protocol_error,
                 Kind::unsupported, Kind::misconfigured, Kind::not_probed, Kind::local_fault, Kind::skipped,
                 Kind::check_failed}) {
    if (kind_name(k) == name) return k;
  }
  return std::nullopt;
}

bool is_local_fault(int error) {
  return error == EMFILE || error == ENFILE || error == ENOMEM || error == EAGAIN || error == ENOSPC;
}

ProbeResult local_fault(std::string_view what, int error) {
  ProbeResult r;
  r.kind = Kind::local_fault;
  r.reason = "this machine could not run the probe: " + std::string(what) + " " + proc::errno_name(error) +
             " (" + std::strerror(error) + "); nothing was learned of the server";
  return r;
}

std::optional<ProbeResult> starved_of_cpu(pid_t group, std::int64_t window_ms) {
  if (group <= 0) return std::nullopt;
  const std::optional<platform::GroupCpu> cpu = platform::group_cpu(group);
  if (!cpu || cpu->longest_wait_ms < 100 || cpu->longest_wait_ms * 4 < window_ms) return std::nullopt;
  // A group that spent half its window on a CPU was not kept from running: its own processes took turns (a server
  // stuck in a busy loop), and its silence is its own.
  if (cpu->on_cpu_ms * 2 >= window_ms) return std::nullopt;
  ProbeResult r;
  r.kind = Kind::local_fault;
  r.reason = "this machine is too busy: the server waited " + std::to_string(cpu->longest_wait_ms) + " ms of the " +
             std::to_string(window_ms) + " ms for a CPU, so its silence says nothing; nothing was learned of the server";
  return r;
}

std::optional<ProbeResult> not_on_this_path(const config::ResolvedServer& server, PathOrigin origin,
                                            const std::string& path) {
  if (origin == PathOrigin::agents) return std::nullopt;
  const auto* stdio = std::get_if<config::StdioServer>(&server.transport);
  if (stdio == nullptr || !stdio->executable.empty() || stdio->command.find('/') != std::string::npos) return std::nullopt;
  ProbeResult r;
  r.kind = Kind::not_probed;
  r.reason = "`" + stdio->command + "` is not on this PATH (" + path +
             "); not recorded: the agent's own PATH is not known yet (its hook records it when a session starts), "
             "and may hold it";
  return r;
}

bool gives_no_verdict(Kind kind) { return kind == Kind::not_probed || kind == Kind::local_fault || kind == Kind::skipped; }

state::Health health_of(const ProbeResult& r) {
  using state::Health;
  if (r.kind == Kind::not_probed || r.kind == Kind::local_fault) return Health::not_probed;
  if (r.kind == Kind::skipped) return Health::skipped;
  if (r.kind == Kind::misconfigured) return Health::misconfigured;
  if (!r.ok) return Health::unhealthy;
  switch (r.kind) {
  case Kind::needs_auth: return Health::needs_auth;
  case Kind::alive_silent: return Health::alive_silent;
  case Kind::reachable: return Health::reachable;
  default: return Health::healthy;
  }
}

state::ProbeDetails ProbeResult::details() const {
  return {kind_name(kind), latency_ms,      http_status ? std::optional<std::int64_t>(*http_status) : std::nullopt,
          exit_status,     protocol_version, server_name, server_version, tool_count, via,
          cpu_ms,          check_passed};
}

LearnedMethod learned_from(const json::object* entry) {
  LearnedMethod out;
  const std::optional<state::ProbeDetails> details = entry ? state::probe_details(*entry) : std::nullopt;
  if (!details || details->kind != kind_name(Kind::answered)) return out;
  if (const auto& version = details->protocol_version) {
    out.era = *version == mcp::k_modern_version ? LearnedMethod::Era::modern : LearnedMethod::Era::legacy;
  }
  const std::optional<std::string>& via = details->via;
  if (via && *via == k_via_sse) out.http = LearnedMethod::Http::sse;
  if (via && *via == k_via_streamable_http) out.http = LearnedMethod::Http::streamable;
  return out;
}

mcp::Protocol first_protocol(const ProbeOptions& options) {
  if (options.protocol == mcp::Protocol::automatic && options.learned.era == LearnedMethod::Era::legacy) {
    return mcp::Protocol::legacy_first;
  }
  return options.protocol;
}

void take_answer(const mcp::HandshakeResult& hs, std::string via, ProbeResult& r) {
  r.via = std::move(via);
  r.ok = true;
  r.kind = Kind::answered;
  r.protocol_version = hs.protocol_version;
  r.server_name = hs.server_name;
  r.server_version = hs.server_version;
  r.tool_count = hs.tool_count;
}

std::string protocol_error_reason(const mcp::CallOutcome& failure) {
  std::string reason = "initialize failed: " + failure.error_message;
  if (failure.error_code != 0) reason += " (" + std::to_string(failure.error_code) + ")";
  return reason;
}

ProbeSpec spec_of(const config::Settings& settings, const json::object* entry) {
  ProbeSpec spec;
  if (settings.protocol.value == config::ProtocolMode::automatic) spec.options.learned = learned_from(entry);
  spec.timeout_ms = settings.timeout_ms.value;
  if (const std::optional<state::ProbeDetails> last = entry ? state::probe_details(*entry) : std::nullopt) {
    spec.expected_ms = last->latency_ms;
  }
  spec.options.silence_fails = settings.silence_fails;
  spec.check = settings.check.value;
  switch (settings.probe.value) {
  case config::ProbeMode::liveness: spec.options.depth = Depth::liveness; break;
  case config::ProbeMode::handshake: spec.options.depth = Depth::handshake; break;
  case config::ProbeMode::automatic:
  case config::ProbeMode::skip: spec.options.depth = Depth::automatic; break;
  }
  switch (settings.protocol.value) {
  case config::ProtocolMode::modern: spec.options.protocol = mcp::Protocol::modern; break;
  case config::ProtocolMode::legacy: spec.options.protocol = mcp::Protocol::legacy; break;
  case config::ProtocolMode::automatic: spec.options.protocol = mcp::Protocol::automatic; break;
  }
  return spec;
}

} // namespace mcphealth::probe
