#include <mcphealth/mcp/handshake.hpp>

#include <mcphealth/util/json.hpp>

#include <algorithm>

namespace mcphealth::mcp {

namespace json = boost::json;

namespace {

void read_server_info(const json::object* info, HandshakeResult& out) {
  if (info == nullptr) return;
  out.server_name = util::get_string(*info, "name");
  out.server_version = util::get_string(*info, "version");
}

void count_tools(Transport& transport, const json::object& params, util::EpochMs deadline, HandshakeResult& out) {
  CallOutcome tools = transport.call("tools/list", params, deadline);
  if (tools.status != CallOutcome::Status::result) return; // answered MCP already; the tool count stays unknown
  if (auto it = tools.result.find("tools"); it != tools.result.end() && it->value().is_array()) {
    out.tool_count = static_cast<std::int64_t>(it->value().get_array().size());
  }
}

void note_http_failure(const CallOutcome& outcome, HandshakeResult& out) {
  if (outcome.status == CallOutcome::Status::failed && !out.first_http_failure) out.first_http_failure = outcome;
}

/// True when the discover answer names the stateless revision among its supported versions.
bool supports_modern(const json::object& result) {
  auto it = result.find("supportedVersions");
  if (it == result.end() || !it->value().is_array()) return false;
  for (const auto& v : it->value().get_array()) {
    if (v.is_string() && v.get_string() == k_modern_version) return true;
  }
  return false;
}

/// Takes a `server/discover` answer: true (and the server's details read) when it names the stateless revision.
bool accept_discover(Transport& transport, const CallOutcome& discover, util::EpochMs deadline, HandshakeResult& out) {
  if (discover.status != CallOutcome::Status::result || !supports_modern(discover.result)) {
    out.failure = discover;
    if (discover.status == CallOutcome::Status::result) {
      out.failure.status = CallOutcome::Status::rpc_error;
      out.failure.error_message = "server/discover does not list " + std::string(k_modern_version);
    }
    return false;
  }
  out.answered = true;
  out.protocol_version = std::string(k_modern_version);
  if (const json::object* meta = util::get_object(discover.result, "_meta")) {
    read_server_info(util::get_object(*meta, "io.modelcontextprotocol/serverInfo"), out);
  }
  if (!out.server_name) read_server_info(util::get_object(discover.result, "serverInfo"), out);
  transport.set_protocol_version(out.protocol_version);
  count_tools(transport, modern_params(), deadline, out);
  return true;
}

bool try_modern(Transport& transport, util::EpochMs deadline, HandshakeResult& out) {
  CallOutcome discover = transport.call("server/discover", modern_params(), deadline);
  note_http_failure(discover, out);
  return accept_discover(transport, discover, deadline, out);
}

/// The newest version in a -32022 answer's `supported` list that mcphealth speaks with initialize; nothing when
/// the answer is not a -32022 or names none.
std::optional<std::string> offered_legacy_version(const CallOutcome& refusal) {
  if (refusal.error_code != k_unsupported_protocol_version || !refusal.error_data.is_object()) return std::nullopt;
  const json::object& data = refusal.error_data.get_object();
  auto it = data.find("supported");
  if (it == data.end() || !it->value().is_array()) return std::nullopt;
  std::optional<std::string> best;
  for (const auto& v : it->value().get_array()) {
    if (!v.is_string() || v.get_string().size() != 10) continue;
    const std::string version(v.get_string());
    if (version < k_oldest_version || version > k_initialize_version) continue;
    if (!best || version > *best) best = version;
  }
  return best;
}

bool try_initialize(Transport& transport, util::EpochMs deadline, HandshakeResult& out,
                    std::string_view version = k_initialize_version) {
  CallOutcome init = transport.call("initialize", initialize_params(version), deadline);
  note_http_failure(init, out);
  // Refused with the versions the server does speak: ask again with the newest of them that we speak too.
  if (init.status != CallOutcome::Status::result) {
    if (auto offered = offered_legacy_version(init); offered && *offered != version) {
      init = transport.call("initialize", initialize_params(*offered), deadline);
    }
  }
  if (init.status != CallOutcome::Status::result) {
    out.failure = init;
    return false;
  }
  const std::string answered = util::get_string(init.result, "protocolVersion").value_or("");
  if (answered.size() != 10 || answered < k_oldest_version) {
    out.failure = init;
    out.failure.status = CallOutcome::Status::rpc_error;
    out.failure.error_message = "initialize answered with protocolVersion '" + answered + "', older than " +
                                std::string(k_oldest_version) + " or not a version";
    return false;
  }
  out.answered = true;
  out.protocol_version = answered;
  read_server_info(util::get_object(init.result, "serverInfo"), out);
  transport.set_protocol_version(answered);
  transport.notify("notifications/initialized", {}, deadline);
  count_tools(transport, {}, deadline, out);
  return true;
}

} // namespace

CallOutcome call_tool(Transport& transport, const HandshakeResult& hs, std::string_view name,
                      const json::object& arguments, util::EpochMs deadline) {
  json::object params = hs.protocol_version == k_modern_version ? modern_params() : json::object();
  params["name"] = name;
  params["arguments"] = arguments;
  return transport.call("tools/call", params, deadline);
}

HandshakeResult handshake(Transport& transport, Protocol protocol, util::EpochMs deadline, util::Clock& clock) {
  HandshakeResult out;
  if (protocol == Protocol::modern) {
    try_modern(transport, deadline, out);
    return out;
  }
  if (protocol == Protocol::legacy_first) {
    if (try_initialize(transport, deadline, out)) return out;
    // Refused (a JSON-RPC error, an HTTP status): it may have moved to the modern protocol. Gone or silent: a
    // discover would meet the same.
    const CallOutcome& f = out.failure;
    if (f.status == CallOutcome::Status::closed || f.status == CallOutcome::Status::timeout ||
        (f.status == CallOutcome::Status::failed && f.transport_failure)) {
      return out;
    }
    HandshakeResult modern;
    modern.first_http_failure = out.first_http_failure;
    if (try_modern(transport, deadline, modern)) return modern;
    return out;
  }
  if (protocol == Protocol::automatic) {
    const util::EpochMs now = clock.now_ms();
    const util::EpochMs discover_deadline = now + std::max<std::int64_t>(1, (deadline - now) / 3);
    if (try_modern(transport, discover_deadline, out)) return out;
    // A 2026-07-28 server that does not speak 2026-07-28 says which versions it does: initialize with one of them.
    if (auto offered = offered_legacy_version(out.failure)) {
      try_initialize(transport, deadline, out, *offered);
      return out;
    }
    // A process that died answers nothing more; an HTTP server that refused discover may still initialize.
    if (out.failure.status == CallOutcome::Status::closed) return out;
    if (out.failure.status == CallOutcome::Status::failed && out.failure.transport_failure && !out.failure.timed_out) {
      return out; // refused or broken: initialize would meet the same
    }
  }
  if (try_initialize(transport, deadline, out) || protocol != Protocol::automatic) return out;
  // A server slow to start answers both requests in order: a modern one said what it is to the discover that timed
  // out, then refused initialize. Its late answer is the verdict, not the refusal.
  if (std::optional<CallOutcome> late = transport.late_answer("server/discover");
      late && late->status == CallOutcome::Status::result && supports_modern(late->result)) {
    HandshakeResult modern;
    accept_discover(transport, *late, deadline, modern);
    return modern;
  }
  return out;
}

} // namespace mcphealth::mcp
