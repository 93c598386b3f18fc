#pragma once
// What the two HTTP transports share: turning a failed response into a call outcome, telling an event stream
// from JSON, and the time a request may still take.
#include <mcphealth/http/client.hpp>
#include <mcphealth/mcp/transport.hpp>
#include <mcphealth/util/clock.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace mcphealth::mcp {

/// Turns a failed HTTP response into a call outcome: status, Retry-After, Bearer challenge, what a 401 or 403 says
/// of the credentials, or the transport error. `body` is the response body when the caller collected it itself
/// (a streaming read leaves `response.body` empty).
CallOutcome http_failure(const http::Response& response, util::EpochMs now,
                         std::optional<std::string_view> body = std::nullopt);

/// True when the response's Content-Type is `text/event-stream`.
bool is_event_stream(const http::Response& response);

/// The milliseconds left until `deadline`, at least 1 (a request always gets some time to fail in).
std::int64_t time_left(util::EpochMs deadline, util::Clock& clock);

} // namespace mcphealth::mcp
