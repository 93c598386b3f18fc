#include <mcphealth/probe/probe.hpp>

#include <mcphealth/mcp/handshake.hpp>
#include <mcphealth/mcp/legacy_sse.hpp>
#include <mcphealth/mcp/streamable_http.hpp>
#include <mcphealth/state/outage.hpp>

#include <algorithm>

namespace mcphealth::probe {

namespace {

/// The verdict on a status its row reads as down: the status as its code, and the server's Retry-After where the row
/// waits for one.
void down_with_status(int status, std::optional<std::int64_t> retry_after_ms, ProbeResult& r) {
  r.ok = false;
  r.kind = Kind::http_status;
  r.code = state::FailureCode::http(status);
  if (state::row_of_status(status).retry == state::RetryTiming::retry_after) r.retry_after_ms = retry_after_ms;
}

/// The verdict on a server that refuses the credentials its definition sends (`status` 401, or 403 with a Bearer
/// challenge, to a request carrying the configured Authorization header): down, with the reason saying whose
/// credentials, since /mcp cannot replace them.
void refused_configured_credentials(int status, ProbeResult& r) {
  r.ok = false;
  r.kind = Kind::http_status;
  r.code = state::FailureCode::http(status);
  r.reason = "HTTP " + std::to_string(status) +
             ": the server refuses the Authorization header the definition sets (the client does not fall back to "
             "OAuth when it is set)";
}

/// Whether the server's origin serves OAuth metadata (RFC 9728's protected-resource document, or RFC 8414's
/// authorization-server document), by which a client could log in. Asked of the server's own origin only, without
/// the definition's headers.
bool serves_oauth_metadata(const config::HttpServer& server, http::Client& client, util::EpochMs deadline,
                           util::Clock& clock) {
  const std::string url = server.url.for_transport();
  const std::size_t scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  const std::size_t path = url.find_first_of("/?#", scheme + 3);
  std::string origin = url.substr(0, path);
  if (const std::size_t at = origin.rfind('@'); at != std::string::npos && at > scheme) {
    origin = origin.substr(0, scheme + 3) + origin.substr(at + 1); // never the userinfo to the metadata's URL
  }
  for (std::string_view doc : {"/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"}) {
    const std::int64_t left = deadline - clock.now_ms();
    http::Request request;
    request.url = util::SecretUrl(origin + std::string(doc));
    request.timeout_ms = std::max<std::int64_t>(left, 500);
    const http::Response response = client.perform(request);
    if (response.status >= 200 && response.status < 300) return true;
  }
  return false;
}

} // namespace

ProbeResult probe_http_liveness(const config::HttpServer& server, std::int64_t timeout_ms, http::Client& client,
                                util::Clock& clock) {
  ProbeResult r;
  const util::EpochMs started = clock.now_ms();
  http::Request request;
  request.url = server.url;
  request.headers = server.headers;
  request.timeout_ms = timeout_ms;
  request.on_body = [](std::string_view, const http::Response&) { return false; }; // the status is all we need; an SSE stream never ends
  const http::Response response = client.perform(request);
  r.latency_ms = clock.now_ms() - started;
  if (!response.has_status()) {
    r.kind = response.timed_out ? Kind::timeout : Kind::transport;
    r.code = state::FailureCode::transport();
    r.reason = response.error;
    return r;
  }
  const int status = static_cast<int>(response.status);
  r.http_status = status;
  switch (state::probe_reads_status(status)) {
  case state::ProbeReads::up: r.ok = true; r.kind = Kind::reachable; return r;
  case state::ProbeReads::token:
  case state::ProbeReads::token_or_up:
    if (server.sends_authorization()) {
      refused_configured_credentials(status, r);
      return r;
    }
    r.ok = true;
    r.kind = Kind::needs_auth;
    return r;
  case state::ProbeReads::down: break;
  }
  r.reason = "HTTP " + std::to_string(status);
  const std::optional<std::string> retry_after = response.header("retry-after");
  down_with_status(status, retry_after ? http::parse_retry_after(*retry_after, clock.now_ms()) : std::nullopt, r);
  return r;
}

namespace {

/// True when the first POST was refused as a path or method a legacy SSE server does not serve (a refusal a live
/// endpoint gives, or nothing at the path): worth asking the legacy way.
bool refused_post(const std::optional<mcp::CallOutcome>& failure) {
  if (!failure || !failure->http_status) return false;
  const state::Outage kind = state::row_of_status(*failure->http_status).kind;
  return kind == state::Outage::refused_request || kind == state::Outage::not_found;
}

/// No MCP answer: judge by what the first POST got.
void classify_without_answer(const mcp::HandshakeResult& hs, const ProbeOptions& options, std::int64_t timeout_ms,
                             bool sends_authorization, ProbeResult& r) {
  const Depth depth = options.depth;
  const mcp::CallOutcome& failure = hs.first_http_failure ? *hs.first_http_failure : hs.failure;
  if (failure.status == mcp::CallOutcome::Status::rpc_error) {
    r.kind = Kind::protocol_error;
    r.reason = protocol_error_reason(failure);
    return;
  }
  if (failure.protocol_violation) {
    r.kind = Kind::protocol_error;
    r.reason = failure.reason;
    return;
  }
  if (failure.timed_out && failure.connected && depth == Depth::automatic && !options.silence_fails) {
    // The server took the connection and has not answered yet: slow, the rule a stdio server that started and is
    // silent meets (stdio_probe.cpp: alive, silent, let through). A connection that never opens, an explicit
    // handshake, or a wait as long as the client's own start-up timeout (it fails the server too) stay a timeout.
    r.ok = true;
    r.kind = Kind::alive_silent;
    r.code = state::FailureCode::none();
    r.reason = "connected, but no MCP answer within " + std::to_string(timeout_ms) + " ms: slow, not down";
    return;
  }
  if (failure.transport_failure || !failure.http_status) {
    r.kind = failure.timed_out ? Kind::timeout : Kind::transport;
    r.code = state::FailureCode::transport();
    r.reason = failure.timed_out ? "request timed out" : failure.reason;
    return;
  }
  const int status = *failure.http_status;
  r.http_status = status;
  state::ProbeReads reads = state::probe_reads_status(status);
  if (reads == state::ProbeReads::token || (reads == state::ProbeReads::token_or_up && failure.bearer_challenge)) {
    if (sends_authorization) {
      refused_configured_credentials(status, r);
      return;
    }
    if (failure.bearer_challenge) {
      r.ok = true;
      r.kind = Kind::needs_auth;
      if (!failure.auth_error.empty()) r.auth_error = failure.auth_error;
      return;
    }
    // No Bearer challenge: nothing for the client's OAuth to work with (Claude Code reports such a server failed),
    // so /mcp cannot fix it: the definition's own credentials are refused.
    r.kind = Kind::http_status;
    r.code = state::FailureCode::http(status);
    r.reason = "HTTP " + std::to_string(status) +
               " without an OAuth challenge (WWW-Authenticate: Bearer): the server refuses the definition's "
               "credentials, and /mcp cannot authenticate it";
    return;
  }
  if (reads == state::ProbeReads::token_or_up) reads = state::ProbeReads::up; // refused a bare request, no challenge
  r.reason = failure.reason;
  if (reads == state::ProbeReads::up) {
    // The endpoint lives but gave no MCP answer: up when any answer will do, a protocol error when one was asked for.
    if (depth == Depth::automatic) {
      r.ok = true;
      r.kind = Kind::reachable;
      r.reason = failure.error_message.empty() ? std::string() : failure.reason; // what it refused, and why
    } else {
      r.kind = Kind::protocol_error;
    }
    return;
  }
  down_with_status(status, failure.retry_after_ms, r);
}

} // namespace

ProbeResult probe_http(const config::HttpServer& server, std::int64_t timeout_ms, const ProbeOptions& options,
                       http::Client& client, util::Clock& clock) {
  if (options.depth == Depth::liveness) return probe_http_liveness(server, timeout_ms, client, clock);
  ProbeResult r;
  const util::EpochMs started = clock.now_ms();
  const util::EpochMs deadline = started + timeout_ms;
  const auto try_sse = [&] {
    mcp::LegacySseTransport sse(server, client, clock);
    if (sse.open(deadline)) return false;
    mcp::HandshakeResult legacy = mcp::handshake(sse, mcp::Protocol::legacy, deadline, clock);
    r.latency_ms = clock.now_ms() - started;
    if (!legacy.answered) return false;
    take_answer(legacy, std::string(k_via_sse), r);
    if (options.tool_check != nullptr) {
      take_tool_check(mcp::call_tool(sse, legacy, options.tool_check->name, options.tool_check->arguments,
                                     clock.now_ms() + timeout_ms), r);
    }
    return true;
  };
  // A server that answered over legacy SSE last time is asked that way first; the usual order follows if not.
  const bool sse_first = options.protocol == mcp::Protocol::automatic && options.learned.http == LearnedMethod::Http::sse;
  if (sse_first && try_sse()) return r;
  mcp::HandshakeResult hs;
  {
    mcp::StreamableHttpTransport streamable(server, client, clock);
    hs = mcp::handshake(streamable, first_protocol(options), deadline, clock);
    r.latency_ms = clock.now_ms() - started;
    if (hs.answered && options.tool_check != nullptr) {
      take_tool_check(mcp::call_tool(streamable, hs, options.tool_check->name, options.tool_check->arguments,
                                     clock.now_ms() + timeout_ms), r);
    }
  }
  if (hs.answered) {
    take_answer(hs, std::string(k_via_streamable_http), r); // the tool check's outcome stays
    return r;
  }
  if (!sse_first && refused_post(hs.first_http_failure) && clock.now_ms() < deadline && try_sse()) return r;
  r.latency_ms = clock.now_ms() - started;
  classify_without_answer(hs, options, timeout_ms, server.sends_authorization(), r);
  const mcp::CallOutcome& failure = hs.first_http_failure ? *hs.first_http_failure : hs.failure;
  if (r.kind == Kind::needs_auth && !failure.names_oauth_metadata &&
      !serves_oauth_metadata(server, client, deadline, clock)) {
    // A challenge with nowhere to log in: the client fails to connect (Claude Code 2.1.197 and 2.1.332 both), and
    // /mcp cannot help. Down, and the fix is the definition's own credentials.
    r.ok = false;
    r.kind = Kind::http_status;
    r.code = state::FailureCode::http(*r.http_status);
    r.reason = "HTTP " + std::to_string(*r.http_status) +
               " with a Bearer challenge but no OAuth metadata to log in with (no resource_metadata, and no "
               "/.well-known/oauth-protected-resource or oauth-authorization-server): the client cannot connect; "
               "set headers.Authorization in the definition";
  }
  return r;
}

} // namespace mcphealth::probe
