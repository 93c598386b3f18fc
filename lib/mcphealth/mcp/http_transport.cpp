#include <mcphealth/mcp/http_transport.hpp>

#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <cctype>

namespace mcphealth::mcp {

namespace json = boost::json;

namespace {

constexpr std::int64_t k_delete_timeout_ms = 1000;

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

bool is_event_stream(const http::Response& r) {
  auto type = r.header("content-type");
  return type && starts_with_ci(*type, "text/event-stream");
}

std::int64_t time_left(util::EpochMs deadline, util::Clock& clock) {
  return std::max<std::int64_t>(1, deadline - clock.now_ms());
}

} // namespace

CallOutcome http_failure(const http::Response& response, util::EpochMs now) {
  CallOutcome out;
  out.status = CallOutcome::Status::failed;
  if (!response.has_status()) {
    out.transport_failure = true;
    out.timed_out = response.timed_out;
    out.reason = response.error;
    return out;
  }
  out.http_status = static_cast<int>(response.status);
  out.reason = "HTTP " + std::to_string(response.status);
  if (auto v = response.header("retry-after")) out.retry_after_ms = http::parse_retry_after(*v, now);
  if (auto v = response.header("www-authenticate")) out.bearer_challenge = starts_with_ci(*v, "bearer");
  return out;
}

std::string resolve_url(const std::string& base, const std::string& reference) {
  if (reference.find("://") != std::string::npos) return reference;
  const std::size_t scheme_end = base.find("://");
  const std::size_t authority_start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  const std::size_t path_start = base.find('/', authority_start);
  const std::string origin = path_start == std::string::npos ? base : base.substr(0, path_start);
  if (!reference.empty() && reference.front() == '/') return origin + reference;
  std::string dir = path_start == std::string::npos ? "/" : base.substr(path_start);
  dir = dir.substr(0, dir.find_first_of("?#"));
  dir = dir.substr(0, dir.rfind('/') + 1);
  return origin + dir + reference;
}

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
    for (const SseEvent& event : sse.feed(chunk)) {
      util::JsonParse parsed = util::parse_json(event.data);
      if (!parsed.value) continue;
      if (is_response_to(*parsed.value, id)) {
        out = outcome_of_response(parsed.value->get_object());
        answered = true;
        return false;
      }
      if (classify(*parsed.value) == MessageKind::server_request) {
        replies.push_back(reply_to_server_request(parsed.value->get_object()));
      }
    }
    return true;
  };
  const http::Response response = m_client.perform(req);
  if (auto sid = response.header("mcp-session-id"); sid && method == "initialize") m_session_id = *sid;
  for (const std::string& reply : replies) {
    http::Request r = post(reply, {}, {}, deadline);
    r.on_body = [](std::string_view, const http::Response&) { return false; };
    m_client.perform(r);
  }
  if (answered) return out;
  const bool success_status = response.status >= 200 && response.status < 300;
  // Out of time before any status, or while a 2xx stream stayed silent: no answer, not an HTTP failure.
  if (response.timed_out && (!response.has_status() || success_status)) return no_answer_in_time(method);
  util::JsonParse parsed = util::parse_json(json_body);
  if (!success_status) {
    // Still an HTTP failure (its status decides), with the JSON-RPC error a 2026-07-28 server explains it with.
    CallOutcome failure = http_failure(response, m_clock.now_ms());
    if (parsed.value && parsed.value->is_object() && parsed.value->get_object().contains("error")) {
      const CallOutcome rpc = outcome_of_response(parsed.value->get_object());
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
  if (parsed.value) {
    // One message, or a batch of them.
    std::vector<const json::value*> messages;
    if (parsed.value->is_array()) {
      for (const auto& m : parsed.value->get_array()) messages.push_back(&m);
    } else {
      messages.push_back(&*parsed.value);
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

LegacySseTransport::LegacySseTransport(const config::HttpServer& server, http::Client& client, util::Clock& clock)
    : m_server(server), m_client(client), m_clock(clock) {}

std::optional<CallOutcome> LegacySseTransport::open(util::EpochMs deadline) {
  http::Request get;
  get.url = m_server.url;
  get.headers = m_server.headers;
  get.headers.emplace_back("Accept", "text/event-stream");
  get.timeout_ms = time_left(deadline, m_clock);
  get.cancel = m_cancel;
  auto stream = m_stream;
  auto parser = std::make_shared<SseParser>();
  get.on_body = [stream, parser](std::string_view chunk, const http::Response& so_far) {
    if (so_far.status_so_far != 200 || !is_event_stream(so_far)) return false;
    std::vector<SseEvent> events = parser->feed(chunk);
    if (!events.empty()) {
      std::lock_guard<std::mutex> lock(stream->mutex);
      for (auto& e : events) stream->events.push_back(std::move(e));
      stream->changed.notify_all();
    }
    return true;
  };
  http::Client& client = m_client;
  m_thread = std::thread([stream, get = std::move(get), &client] {
    http::Response r = client.perform(get);
    std::lock_guard<std::mutex> lock(stream->mutex);
    r.status = r.status ? r.status : r.status_so_far;
    stream->final_response = std::move(r);
    stream->ended = true;
    stream->changed.notify_all();
  });
  for (;;) {
    std::optional<SseEvent> event = next_event(deadline);
    if (!event) break;
    if (event->event == "endpoint") {
      m_endpoint = resolve_url(m_server.url, util::trim(event->data));
      return std::nullopt;
    }
  }
  std::lock_guard<std::mutex> lock(m_stream->mutex);
  if (m_stream->ended) {
    const http::Response& r = m_stream->final_response;
    if (r.has_status() && r.status >= 200 && r.status < 300) {
      CallOutcome out;
      out.status = CallOutcome::Status::failed;
      out.http_status = static_cast<int>(r.status);
      out.reason = "SSE stream ended without an endpoint event";
      return out;
    }
    return http_failure(r, m_clock.now_ms());
  }
  CallOutcome out = no_answer_in_time("the endpoint event");
  out.reason = "no endpoint event on the SSE stream in time";
  return out;
}

std::optional<SseEvent> LegacySseTransport::next_event(util::EpochMs deadline) {
  std::unique_lock<std::mutex> lock(m_stream->mutex);
  for (;;) {
    if (!m_stream->events.empty()) {
      SseEvent e = std::move(m_stream->events.front());
      m_stream->events.pop_front();
      return e;
    }
    if (m_stream->ended) return std::nullopt;
    const std::int64_t left = deadline - m_clock.now_ms();
    if (left <= 0) return std::nullopt;
    m_stream->changed.wait_for(lock, std::chrono::milliseconds(std::min<std::int64_t>(left, 50)));
  }
}

std::optional<CallOutcome> LegacySseTransport::post(const std::string& body, util::EpochMs deadline) {
  http::Request req;
  req.method = "POST";
  req.url = m_endpoint;
  req.headers = m_server.headers;
  req.headers.emplace_back("Content-Type", "application/json");
  req.body = body;
  req.timeout_ms = time_left(deadline, m_clock);
  http::Response r = m_client.perform(req);
  if (r.has_status() && r.status >= 200 && r.status < 300) return std::nullopt;
  return http_failure(r, m_clock.now_ms());
}

CallOutcome LegacySseTransport::call(std::string_view method, const json::object& params, util::EpochMs deadline) {
  const std::int64_t id = m_next_id++;
  if (auto failed = post(request_line(id, method, params), deadline)) return *failed;
  for (;;) {
    std::optional<SseEvent> event = next_event(deadline);
    if (!event) break;
    util::JsonParse parsed = util::parse_json(event->data);
    if (!parsed.value) continue;
    if (is_response_to(*parsed.value, id)) return outcome_of_response(parsed.value->get_object());
    if (classify(*parsed.value) == MessageKind::server_request) {
      post(reply_to_server_request(parsed.value->get_object()), deadline);
    }
  }
  bool ended = false;
  {
    std::lock_guard<std::mutex> lock(m_stream->mutex);
    ended = m_stream->ended;
  }
  if (!ended) return no_answer_in_time(method);
  CallOutcome out;
  out.status = CallOutcome::Status::failed;
  out.transport_failure = true;
  out.reason = "SSE stream closed before the answer to " + std::string(method);
  return out;
}

void LegacySseTransport::notify(std::string_view method, const json::object& params, util::EpochMs deadline) {
  post(notification_line(method, params), deadline);
}

void LegacySseTransport::close() {
  m_cancel->cancel();
  if (m_thread.joinable()) m_thread.join();
}

} // namespace mcphealth::mcp
