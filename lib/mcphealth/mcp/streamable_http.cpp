#include <mcphealth/mcp/streamable_http.hpp>

#include <mcphealth/mcp/http_common.hpp>
#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/mcp/sse.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>

namespace mcphealth::mcp {

namespace json = boost::json;

namespace {

constexpr std::int64_t k_delete_timeout_ms = 1000;

/// True for a non-empty string of 0x21-0x7E only, as the Streamable HTTP transport requires of a session id.
bool is_visible_ascii(std::string_view s) {
  return !s.empty() && s.size() <= 1024 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

} // namespace

std::vector<std::pair<std::string, std::string>> mirrored_headers(std::string_view method, const json::object& params,
                                                                  const std::string& negotiated) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string version = negotiated;
  if (const json::object* meta = util::get_object(params, "_meta")) {
    if (auto v = util::get_string(*meta, k_meta_protocol_version)) version = *v;
  }
  if (!version.empty()) out.emplace_back("MCP-Protocol-Version", version);
  if (method.empty()) return out; // a reply to a server's request
  out.emplace_back("Mcp-Method", std::string(method));
  std::optional<std::string> name;
  if (method == "tools/call" || method == "prompts/get") name = util::get_string(params, "name");
  if (method == "resources/read") name = util::get_string(params, "uri");
  if (name) out.emplace_back("Mcp-Name", *name);
  return out;
}

http::Request StreamableHttpTransport::post(const std::string& body, std::string_view method, const json::object& params,
                                            util::EpochMs deadline) const {
  http::Request req;
  req.method = "POST";
  req.url = m_server.url;
  req.headers = m_server.headers;
  req.headers.emplace_back("Content-Type", "application/json");
  req.headers.emplace_back("Accept", "application/json, text/event-stream");
  if (m_session_id) req.headers.emplace_back("Mcp-Session-Id", *m_session_id);
  for (auto& header : mirrored_headers(method, params, m_protocol_version)) req.headers.push_back(std::move(header));
  req.body = body;
  req.timeout_ms = time_left(deadline, m_clock);
  return req;
}

CallOutcome StreamableHttpTransport::call(std::string_view method, const json::object& params, util::EpochMs deadline) {
  const std::int64_t id = m_next_id++;
  http::Request req = post(request_line(id, method, params), method, params, deadline);
  CallOutcome out;
  bool answered = false;
  SseParser sse;
  std::string json_body;
  std::vector<std::string> replies; // answers to server requests met in the stream, sent after it
  req.on_body = [&](std::string_view chunk, const http::Response& so_far) {
    if (!is_event_stream(so_far)) {
      if (json_body.size() < (1u << 20)) json_body.append(chunk);
      return true;
    }
    const std::vector<SseEvent> events = sse.feed(chunk);
    if (sse.overflowed()) return false; // cut off: read below
    for (const SseEvent& event : events) {
      util::JsonParse parsed = util::parse_json(event.data);
      if (!parsed) continue;
      if (is_response_to(*parsed, id)) {
        out = outcome_of_response(parsed->get_object());
        answered = true;
        return false;
      }
      if (classify(*parsed) == MessageKind::server_request) {
        replies.push_back(reply_to_server_request(parsed->get_object()));
      }
    }
    return true;
  };
  const http::Response response = m_client.perform(req);
  // A session id goes back in a header: visible ASCII only (the spec's rule), so a server cannot inject a header.
  if (auto sid = response.header("mcp-session-id"); sid && method == "initialize" && is_visible_ascii(*sid)) {
    m_session_id = *sid;
  }
  for (const std::string& reply : replies) {
    http::Request r = post(reply, {}, {}, deadline);
    r.on_body = [](std::string_view, const http::Response&) { return false; };
    m_client.perform(r);
  }
  if (answered) return out;
  if (sse.overflowed()) {
    out.status = CallOutcome::Status::failed;
    out.protocol_violation = true;
    out.reason = std::string(k_sse_overflow_reason);
    return out;
  }
  const bool success_status = response.succeeded();
  // Out of time before any status, or while a 2xx stream stayed silent: no answer, not an HTTP failure.
  if (response.timed_out && (!response.has_status() || success_status)) {
    CallOutcome late = no_answer_in_time(method);
    late.connected = response.connected || response.has_status();
    return late;
  }
  util::JsonParse parsed = util::parse_json(json_body);
  if (!success_status) {
    // Still an HTTP failure (its status decides), with the JSON-RPC error a 2026-07-28 server explains it with.
    CallOutcome failure = http_failure(response, m_clock.now_ms(), json_body);
    if (parsed && parsed->is_object() && parsed->get_object().contains("error")) {
      const CallOutcome rpc = outcome_of_response(parsed->get_object());
      failure.error_code = rpc.error_code;
      failure.error_message = rpc.error_message;
      failure.error_data = rpc.error_data;
      if (rpc.error_code == k_header_mismatch) {
        failure.reason += ": the server says the MCP headers mcphealth sent do not match the request body "
                          "(HeaderMismatch, -32020). That is a bug in mcphealth, not in the server: please report it "
                          "with `mcphealth -vv probe` output";
      } else if (!rpc.error_message.empty()) {
        failure.reason += ": " + rpc.error_message + " (" + std::to_string(rpc.error_code) + ")";
      }
    }
    return failure;
  }
  if (parsed) {
    // One message, or a batch of them.
    std::vector<const json::value*> messages;
    if (parsed->is_array()) {
      for (const auto& m : parsed->get_array()) messages.push_back(&m);
    } else {
      messages.push_back(&*parsed);
    }
    for (const json::value* m : messages) {
      if (is_response_to(*m, id)) return outcome_of_response(m->get_object());
    }
  }
  out.status = CallOutcome::Status::failed;
  out.http_status = static_cast<int>(response.status);
  out.reason = "HTTP " + std::to_string(response.status) + " without an MCP answer to " + std::string(method);
  return out;
}

void StreamableHttpTransport::notify(std::string_view method, const json::object& params, util::EpochMs deadline) {
  http::Request req = post(notification_line(method, params), method, params, deadline);
  req.on_body = [](std::string_view, const http::Response&) { return false; };
  m_client.perform(req); // 202 expected; a server that minds will say so on the next request
}

void StreamableHttpTransport::close() {
  if (m_closed) return;
  m_closed = true;
  if (!m_session_id) return;
  http::Request req;
  req.method = "DELETE";
  req.url = m_server.url;
  req.headers = m_server.headers;
  req.headers.emplace_back("Mcp-Session-Id", *m_session_id);
  if (!m_protocol_version.empty()) req.headers.emplace_back("MCP-Protocol-Version", m_protocol_version);
  req.timeout_ms = k_delete_timeout_ms;
  m_client.perform(req); // 405 means the server keeps no sessions to end: fine
}

} // namespace mcphealth::mcp
