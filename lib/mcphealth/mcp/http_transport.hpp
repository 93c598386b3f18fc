#pragma once
// MCP over HTTP: Streamable HTTP (a POST per message, answered with JSON or an SSE stream, with a session id), and
// the legacy HTTP+SSE transport of 2024-11-05 (a GET stream that names the POST endpoint and carries the answers).
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

/// Streamable HTTP.
/// The headers a Streamable HTTP POST of request or notification `method` with `params` mirrors from its body, as
/// 2026-07-28 requires: `Mcp-Method` always; `Mcp-Name` for `tools/call`, `prompts/get` (the name) and
/// `resources/read` (the uri); `MCP-Protocol-Version` from the body's `_meta`, else `negotiated` (when not empty).
std::vector<std::pair<std::string, std::string>> mirrored_headers(std::string_view method, const boost::json::object& params,
                                                                  const std::string& negotiated);

class StreamableHttpTransport final : public Transport {
public:
  StreamableHttpTransport(const config::HttpServer& server, http::Client& client, util::Clock& clock)
      : m_server(server), m_client(client), m_clock(clock) {}
  ~StreamableHttpTransport() override { close(); }

  CallOutcome call(std::string_view method, const boost::json::object& params, util::EpochMs deadline) override;
  void notify(std::string_view method, const boost::json::object& params, util::EpochMs deadline) override;
  void set_protocol_version(const std::string& version) override { m_protocol_version = version; }
  void close() override;

private:
  /// A POST of `body`; `method` and `params` (of a request or notification; empty for a reply) give the headers
  /// that mirror the body: `Mcp-Method`, `Mcp-Name`, and `MCP-Protocol-Version` equal to the body's `_meta`.
  http::Request post(const std::string& body, std::string_view method, const boost::json::object& params,
                     util::EpochMs deadline) const;

  const config::HttpServer& m_server;
  http::Client& m_client;
  util::Clock& m_clock;
  std::int64_t m_next_id = 1;
  std::optional<std::string> m_session_id;
  std::string m_protocol_version;
  bool m_closed = false;
};

/// Legacy HTTP+SSE.
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

/// Resolves `reference` (absolute, absolute-path or relative) against `base`, as a browser would.
std::string resolve_url(const std::string& base, const std::string& reference);

/// Turns a failed HTTP response into a call outcome: status, Retry-After, Bearer challenge, or the transport error.
CallOutcome http_failure(const http::Response& response, util::EpochMs now);

} // namespace mcphealth::mcp
