#pragma once
// The few JSON-RPC 2.0 messages a health probe exchanges with an MCP server, and how to tell incoming ones apart.
#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace mcphealth::mcp {

/// The newest protocol revision with an `initialize` handshake; what we ask for.
inline constexpr std::string_view k_initialize_version = "2025-11-25";
/// The oldest revision we accept in an `initialize` answer.
inline constexpr std::string_view k_oldest_version = "2024-11-05";
/// The stateless revision, spoken through `server/discover` and `_meta` on every request.
inline constexpr std::string_view k_modern_version = "2026-07-28";
/// The `_meta` key every 2026-07-28 request carries its protocol version under.
inline constexpr std::string_view k_meta_protocol_version = "io.modelcontextprotocol/protocolVersion";
/// 2026-07-28 errors: the HTTP headers that mirror the body do not match it (or are missing), and the version
/// asked for is not one the server implements (`data.supported` lists those it does).
inline constexpr std::int64_t k_header_mismatch = -32020;
inline constexpr std::int64_t k_unsupported_protocol_version = -32022;

/// Which protocol generation to speak: `modern` (2026-07-28), `legacy` (initialize), `auto` (modern first, then
/// legacy on any error or silence), or `legacy_first` (initialize first, then modern when initialize is refused:
/// for a server that answered initialize last time, so a legacy server never meets server/discover).
enum class Protocol { automatic, modern, legacy, legacy_first };

/// Serializes a request as one line (no embedded newlines, as stdio requires).
std::string request_line(std::int64_t id, std::string_view method, const boost::json::object& params);

/// Serializes a notification as one line.
std::string notification_line(std::string_view method, const boost::json::object& params);

/// The params of our `initialize`: the newest initialize-generation version, empty capabilities, our clientInfo.
boost::json::object initialize_params(std::string_view version = k_initialize_version);

/// The params of a modern (2026-07-28) request: only the `_meta` every such request carries.
boost::json::object modern_params();

/// What an incoming message is.
enum class MessageKind { response, server_request, notification, invalid };

/// Classifies a message: a response has `result` or `error`, an `id` and no `method`.
MessageKind classify(const boost::json::value& message);

/// True when `message` is a response to request `id`.
bool is_response_to(const boost::json::value& message, std::int64_t id);

/// Our answer to a request from the server: `{}` for `ping`, a -32601 error for anything else.
std::string reply_to_server_request(const boost::json::object& request);

} // namespace mcphealth::mcp
