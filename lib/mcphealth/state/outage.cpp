#include <mcphealth/state/outage.hpp>

#include <array>

namespace mcphealth::state {

namespace {

constexpr std::string_view k_unauthorized_signs[] = {
    "unauthorized",          "unauthorised",           "auth failed",          "auth expired", "auth invalid",
    "invalid_token",         "authentication failed",  "authentication expired", "authentication invalid"};
constexpr std::string_view k_forbidden_signs[] = {"forbidden", "insufficient_scope"};
constexpr std::string_view k_rate_limited_signs[] = {"rate limit",  "rate limited",        "ratelimit",
                                                     "ratelimited", "rate limit exceeded", "too many requests"};
constexpr std::string_view k_unavailable_signs[] = {"service unavailable", "overloaded", "overloaded_error",
                                                    "temporarily unavailable"};
constexpr std::string_view k_transport_signs[] = {
    "econnrefused",   "econnreset",         "enotfound",       "eai_again",          "etimedout",
    "ehostunreach",   "enetunreach",        "timed out",       "time out",           "socket hang up",
    "fetch failed",   "connection refused", "connection failed", "connection lost",  "connection reset",
    "connection closed"};

constexpr std::string_view k_server_logs_hint = "the server reports an error: check its logs";

// clang-format off
const std::array<OutageRow, 9> k_rows{{
    {Outage::unauthorized, "unauthorized", 401, "unauthorized", k_unauthorized_signs, true,
     "rejected the call as unauthenticated", Advice::authenticate, {},
     AfterFailure::reconnect, RetryTiming::backoff},
    {Outage::forbidden, "forbidden", 403, "forbidden", k_forbidden_signs, true,
     "rejected the call as unauthenticated", Advice::authenticate, {},
     AfterFailure::reconnect, RetryTiming::backoff},
    // A restart would only burn the rate limit: wait out the server's Retry-After instead.
    {Outage::rate_limited, "rate limited", 429, "too many requests", k_rate_limited_signs, false,
     "is rate limiting its callers", Advice::wait, "rate limited: it is retried after the server's Retry-After",
     AfterFailure::no_reconnect, RetryTiming::retry_after},
    {Outage::unavailable, "unavailable", 503, "service unavailable", k_unavailable_signs, false,
     "is failing on its side", Advice::other_tools, k_server_logs_hint,
     AfterFailure::reconnect, RetryTiming::retry_after},
    {Outage::transport, "transport failure", 0, {}, k_transport_signs, false,
     {}, Advice::other_tools, {},
     AfterFailure::reconnect, RetryTiming::backoff},
    {Outage::not_found, "not found", 404, {}, {}, false,
     {}, Advice::other_tools, "check the URL's path (Streamable HTTP servers usually serve /mcp)",
     AfterFailure::reconnect, RetryTiming::backoff},
    {Outage::server_error, "server error", 0, {}, {}, false,
     "is failing on its side", Advice::other_tools, k_server_logs_hint,
     AfterFailure::reconnect, RetryTiming::backoff},
    {Outage::other_status, "HTTP status", 0, {}, {}, false,
     {}, Advice::other_tools, {},
     AfterFailure::reconnect, RetryTiming::backoff},
    {Outage::none, "no code", 0, {}, {}, false,
     {}, Advice::other_tools, {},
     AfterFailure::reconnect, RetryTiming::backoff},
}};
// clang-format on

} // namespace

std::span<const OutageRow> outage_table() { return k_rows; }

Outage outage_of(const FailureCode& code) {
  switch (code.kind) {
  case FailureCode::Kind::none: return Outage::none;
  case FailureCode::Kind::transport: return Outage::transport;
  case FailureCode::Kind::http_status: break;
  }
  for (const OutageRow& row : k_rows) {
    if (row.status != 0 && row.status == code.status) return row.kind;
  }
  return code.status >= 500 && code.status <= 599 ? Outage::server_error : Outage::other_status;
}

const OutageRow& row_of(Outage kind) {
  for (const OutageRow& row : k_rows) {
    if (row.kind == kind) return row;
  }
  return k_rows.back(); // every kind has a row (tests/unit/test_outage.cpp)
}

} // namespace mcphealth::state
