#pragma once
// The probe's conversation: `server/discover` (2026-07-28) and/or `initialize` + `notifications/initialized`, then
// the first page of `tools/list`. Every attempt shares one deadline.
#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/mcp/transport.hpp>
#include <mcphealth/util/clock.hpp>

#include <optional>
#include <string>

namespace mcphealth::mcp {

/// What the handshake learned.
struct HandshakeResult {
  /// True when the server answered MCP (discover or initialize succeeded).
  bool answered = false;
  std::string protocol_version;
  std::optional<std::string> server_name;
  std::optional<std::string> server_version;
  std::optional<std::int64_t> tool_count;
  /// When not answered: the outcome that ended the attempt (the last one tried).
  CallOutcome failure;
  /// The first HTTP-level failure seen (e.g. the initialize POST's status), for status classes under `auto`.
  std::optional<CallOutcome> first_http_failure;
};

/// Runs the handshake over `transport` until `deadline`. Under `automatic`, `server/discover` gets a third of the
/// time left, so a legacy server that ignores it still leaves time for `initialize`; under `legacy_first`,
/// `initialize` goes first and `server/discover` follows only when it is refused.
HandshakeResult handshake(Transport& transport, Protocol protocol, util::EpochMs deadline, util::Clock& clock);

/// Calls tool `name` with `arguments` over a `transport` whose handshake `hs` answered (a declared check,
/// config::CheckSpec::Kind::tool), until `deadline`.
CallOutcome call_tool(Transport& transport, const HandshakeResult& hs, std::string_view name,
                      const boost::json::object& arguments, util::EpochMs deadline);

} // namespace mcphealth::mcp
