#pragma once
// MCP over Streamable HTTP: a POST per message, answered with JSON or an SSE stream scoped to it, with the headers
// that mirror the body (2026-07-28) and, for older revisions, a session id.
#include <mcphealth/config/server.hpp>
#include <mcphealth/http/client.hpp>
#include <mcphealth/mcp/transport.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcphealth::mcp {

/// The headers a Streamable HTTP POST of request or notification `method` with `params` mirrors from its body, as
/// 2026-07-28 requires: `Mcp-Method` always; `Mcp-Name` for `tools/call`, `prompts/get` (the name) and
/// `resources/read` (the uri); `MCP-Protocol-Version` from the body's `_meta`, else `negotiated` (when not empty).
std::vector<std::pair<std::string, std::string>> mirrored_headers(std::string_view method, const boost::json::object& params,
                                                                  const std::string& negotiated);

/// One Streamable HTTP connection: each request its own POST; the session (if the server gives one) is ended with
/// DELETE at close.
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

} // namespace mcphealth::mcp
