#include <mcphealth/mcp/legacy_sse.hpp>

#include <mcphealth/mcp/http_common.hpp>
#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <chrono>

namespace mcphealth::mcp {

namespace json = boost::json;

namespace {
/// More events than this waiting unread is a stream that floods: it is cut off like an oversized one.
constexpr std::size_t k_max_waiting_events = 4096;

CallOutcome cut_off() {
  CallOutcome out;
  out.status = CallOutcome::Status::failed;
  out.protocol_violation = true;
  out.reason = std::string(k_sse_overflow_reason);
  return out;
}
} // namespace

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
    std::lock_guard<std::mutex> lock(stream->mutex);
    for (auto& e : events) stream->events.push_back(std::move(e));
    if (parser->overflowed() || stream->events.size() > k_max_waiting_events) {
      stream->overflowed = true; // the transfer ends here; the caller reads why
      stream->changed.notify_all();
      return false;
    }
    if (!events.empty()) stream->changed.notify_all();
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
      const std::string reference = util::trim(event->data);
      const std::optional<std::string> endpoint = m_client.resolve_reference(m_server.url.for_transport(), reference);
      CallOutcome out;
      out.status = CallOutcome::Status::failed;
      if (!endpoint) {
        out.transport_failure = true;
        out.reason = "the SSE endpoint event names '" + util::redact_url(reference) + "', which is not a URL relative to " +
                     m_server.url.shown();
        return out;
      }
      // The definition's headers (its credentials) go with every POST: only ever to the origin they were set for.
      const std::optional<std::string> origin = http::origin_of(*endpoint);
      if (!origin || origin != http::origin_of(m_server.url.for_transport(), http::Userinfo::ignore)) {
        out.reason = "protocol error: the SSE endpoint event names '" + util::redact_url(reference) +
                     "', not on the origin of " + m_server.url.shown() + "; nothing is sent there";
        return out;
      }
      m_endpoint = *endpoint;
      return std::nullopt;
    }
  }
  std::lock_guard<std::mutex> lock(m_stream->mutex);
  if (m_stream->overflowed) return cut_off();
  if (m_stream->ended) {
    const http::Response& r = m_stream->final_response;
    if (r.succeeded()) {
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
  req.url = util::SecretUrl(m_endpoint);
  req.headers = m_server.headers;
  req.headers.emplace_back("Content-Type", "application/json");
  req.body = body;
  req.timeout_ms = time_left(deadline, m_clock);
  http::Response r = m_client.perform(req);
  if (r.succeeded()) return std::nullopt;
  return http_failure(r, m_clock.now_ms());
}

CallOutcome LegacySseTransport::call(std::string_view method, const json::object& params, util::EpochMs deadline) {
  const std::int64_t id = m_next_id++;
  if (auto failed = post(request_line(id, method, params), deadline)) return *failed;
  for (;;) {
    std::optional<SseEvent> event = next_event(deadline);
    if (!event) break;
    util::JsonParse parsed = util::parse_json(event->data);
    if (!parsed) continue;
    if (is_response_to(*parsed, id)) return outcome_of_response(parsed->get_object());
    if (classify(*parsed) == MessageKind::server_request) {
      post(reply_to_server_request(parsed->get_object()), deadline);
    }
  }
  bool ended = false;
  {
    std::lock_guard<std::mutex> lock(m_stream->mutex);
    if (m_stream->overflowed) return cut_off();
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
