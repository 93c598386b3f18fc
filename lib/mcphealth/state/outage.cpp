#include <mcphealth/state/outage.hpp>

#include <algorithm>
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

constexpr int k_401[] = {401};
constexpr int k_403[] = {403};
constexpr int k_429[] = {429};
constexpr int k_503[] = {503};
constexpr int k_404[] = {404};
constexpr int k_refusals[] = {400, 405, 406};

// clang-format off
constexpr std::array<OutageRow, k_outage_kinds> k_rows{{
    {Outage::unauthorized, "unauthorized", k_401, "unauthorized", k_unauthorized_signs, ProbeReads::token,
     "rejected the call as unauthenticated", Advice::authenticate, {},
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::forbidden, "forbidden", k_403, "forbidden", k_forbidden_signs, ProbeReads::token_or_up,
     "rejected the call as unauthenticated", Advice::authenticate, {},
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::rate_limited, "rate limited", k_429, "too many requests", k_rate_limited_signs, ProbeReads::down,
     "is rate limiting its callers", Advice::wait, "rate limited: it is retried after the server's Retry-After",
     AfterFailure::no_reconnect, "the server is rate limiting (429), and a restart would burn the rate limit",
     RetryTiming::retry_after},
    {Outage::unavailable, "unavailable", k_503, "service unavailable", k_unavailable_signs, ProbeReads::down,
     "is failing on its side", Advice::other_tools, k_server_logs_hint,
     AfterFailure::reconnect, {}, RetryTiming::retry_after},
    {Outage::transport, "transport failure", {}, {}, k_transport_signs, ProbeReads::down,
     {}, Advice::other_tools, {},
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::timed_out, "timed out", {}, {}, {}, ProbeReads::down,
     "answers slower than the client waits for a call", Advice::other_tools,
     "the client gave up waiting for a call: the server is slow or stuck; if it is only slow, raise the "
     "client's tool timeout (Claude Code: MCP_TOOL_TIMEOUT)",
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::not_found, "not found", k_404, {}, {}, ProbeReads::down,
     {}, Advice::other_tools, "check the URL's path (Streamable HTTP servers usually serve /mcp)",
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::refused_request, "request refused", k_refusals, {}, {}, ProbeReads::up,
     {}, Advice::other_tools, {},
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::server_error, "server error", {}, {}, {}, ProbeReads::down,
     "is failing on its side", Advice::other_tools, k_server_logs_hint,
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::other_status, "HTTP status", {}, {}, {}, ProbeReads::down,
     {}, Advice::other_tools, {},
     AfterFailure::reconnect, {}, RetryTiming::backoff},
    {Outage::none, "no code", {}, {}, {}, ProbeReads::down,
     {}, Advice::other_tools, {},
     AfterFailure::reconnect, {}, RetryTiming::backoff},
}};
// clang-format on

/// Each kind's row sits at its own index: a kind left without a row (the array's default-built tail) or rows out of
/// the enum's order fail the build here.
constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < k_rows.size(); ++i) {
    const OutageRow& row = k_rows[i];
    if (static_cast<std::size_t>(row.kind) != i || row.name.empty()) return false;
    // A kind that skips the reconnect says why; one that does not, says nothing.
    if ((row.after_failure == AfterFailure::no_reconnect) == row.why_no_reconnect.empty()) return false;
  }
  return true;
}
static_assert(rows_in_enum_order(), "state/outage.cpp: one row per Outage kind, in the enum's order");

} // namespace

std::span<const OutageRow> outage_table() { return k_rows; }

Outage outage_of(const FailureCode& code) {
  switch (code.kind) {
  case FailureCode::Kind::none: return Outage::none;
  case FailureCode::Kind::transport: return Outage::transport;
  case FailureCode::Kind::timeout: return Outage::timed_out;
  case FailureCode::Kind::http_status: break;
  }
  for (const OutageRow& row : k_rows) {
    if (std::find(row.statuses.begin(), row.statuses.end(), code.status) != row.statuses.end()) return row.kind;
  }
  return code.status >= 500 && code.status <= 599 ? Outage::server_error : Outage::other_status;
}

const OutageRow& row_of(Outage kind) { return k_rows[static_cast<std::size_t>(kind)]; }

FailureCode code_of(Outage kind) {
  if (kind == Outage::transport) return FailureCode::transport();
  if (kind == Outage::timed_out) return FailureCode::timeout();
  const int status = row_of(kind).status();
  return status != 0 ? FailureCode::http(status) : FailureCode::none();
}

ProbeReads probe_reads_status(int status) {
  if (status >= 200 && status < 400) return ProbeReads::up; // an answer, or a redirect to one
  return row_of_status(status).probe_reads;
}

bool refuses_the_agents_token(const FailureCode& code) { return outage_of(code) == Outage::unauthorized; }

bool waits_for_credentials(const ServerEntry& e) {
  return e.unhealthy() && !e.credential_files.empty() && refuses_the_agents_token(e.last_failure_code);
}

bool credentials_changed(const ServerEntry& e, const std::optional<FilesSeen>& seen) {
  return seen && waits_for_credentials(e) && files_changed(e, *seen);
}

} // namespace mcphealth::state
