#pragma once
// MCP over the legacy HTTP+SSE transport of 2024-11-05: a GET stream that names the POST endpoint and carries the
// answers.
#include <mcphealth/config/server.hpp>
#include <mcphealth/http/client.hpp>
#include <mcphealth/mcp/sse.hpp>
#include <mcphealth/mcp/transport.hpp>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace mcphealth::mcp {

/// One legacy HTTP+SSE connection: the GET stream runs on its own thread and queues events; requests are POSTed
/// to the endpoint it names (resolved by the HTTP client's URL parser) and answered on the stream.
class LegacySseTransport final : public Transport {
public:
  LegacySseTransport(const config::HttpServer& server, http::Client& client, util::Clock& clock);
  ~LegacySseTransport() override { close(); }

  /// Opens the event stream and waits for its `endpoint` event; on failure returns why (status, error).
  std::optional<CallOutcome> open(util::EpochMs deadline);
  CallOutcome call(std::string_view method, const boost::json::object& params, util::EpochMs deadline) override;
  void notify(std::string_view method, const boost::json::object& params, util::EpochMs deadline) override;
  void close() override;

private:
  /// What the stream thread shares with the caller.
  struct Stream {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<SseEvent> events;
    bool ended = false;
    /// Cut off: a line or an event over the parser's limit, or more events waiting than are ever read.
    bool overflowed = false;
    http::Response final_response;
  };
  /// POSTs `body` to the endpoint; returns a failure, or nothing when accepted.
  std::optional<CallOutcome> post(const std::string& body, util::EpochMs deadline);
  /// Waits for the next event until `deadline`; nothing when the stream ended or time ran out.
  std::optional<SseEvent> next_event(util::EpochMs deadline);

  const config::HttpServer& m_server;
  http::Client& m_client;
  util::Clock& m_clock;
  std::shared_ptr<Stream> m_stream = std::make_shared<Stream>();
  std::shared_ptr<http::Cancel> m_cancel = std::make_shared<http::Cancel>();
  std::thread m_thread;
  std::string m_endpoint;
  std::int64_t m_next_id = 1;
};

} // namespace mcphealth::mcp
