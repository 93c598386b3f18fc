// The Streamable HTTP transport against a fake HTTP client (the seam of http/client.hpp): what it sends (Accept,
// the session, the protocol version, the DELETE at the end) and what it makes of JSON, SSE, server requests in the
// stream, and HTTP errors. The real transport against real servers is in tests/cli (fixtures, server-everything).
#include "fakes.hpp"

#include <mcphealth/http/client.hpp>
#include <mcphealth/mcp/legacy_sse.hpp>
#include <mcphealth/mcp/streamable_http.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <deque>
#include <mutex>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_http_transport {
namespace {

/// Answers each request with the next scripted response, delivering a body through `on_body` in two chunks (so
/// parsers meet a chunk boundary), and keeps every request. Safe for the legacy transport's stream thread.
class ScriptedClient final : public http::Client {
public:
  struct Scripted {
    long status;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
  };
  std::deque<Scripted> script;
  std::vector<http::Request> requests;

  std::optional<std::string> resolve_reference(const std::string& base, const std::string& reference) override {
    return testing::resolve_with_libcurl(base, reference);
  }
  http::Response perform(const http::Request& request) override {
    http::Response r;
    Scripted s;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      requests.push_back(request);
      if (script.empty()) {
        r.error = "no scripted response";
        return r;
      }
      s = script.front();
      script.pop_front();
    }
    r.status = r.status_so_far = s.status;
    r.headers = s.headers;
    if (!request.on_body) {
      r.body = s.body;
      return r;
    }
    const std::size_t half = s.body.size() / 2;
    if (request.on_body(std::string_view(s.body).substr(0, half), r)) request.on_body(std::string_view(s.body).substr(half), r);
    return r;
  }
  /// The requests so far (a copy: the stream thread may still add one).
  std::vector<http::Request> seen() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return requests;
  }

private:
  std::mutex m_mutex;
};

std::optional<std::string> header_of(const http::Request& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return std::nullopt;
}

const std::vector<std::pair<std::string, std::string>> k_json = {{"content-type", "application/json"}};
const std::vector<std::pair<std::string, std::string>> k_sse = {{"content-type", "text/event-stream"}};

} // namespace

TEST_CASE("Streamable HTTP keeps the session, names the protocol after negotiation, and ends the session", "[http_transport]") {
  testing::FakeClock clock;
  ScriptedClient client;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/mcp"), "http", {{"Authorization", "Bearer t"}}};
  client.script = {
      {200, {{"content-type", "application/json"}, {"mcp-session-id", "abc"}},
       R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}})"},
      {202, {}, ""},
      {200, k_sse, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"a\"}]}}\n\n"},
      {204, {}, ""},
  };
  {
    mcp::StreamableHttpTransport t(server, client, clock);
    const mcp::CallOutcome init = t.call("initialize", {}, clock.now_ms() + 5'000);
    REQUIRE(init.status == mcp::CallOutcome::Status::result);
    CHECK(init.result.at("protocolVersion") == "2025-11-25");
    t.set_protocol_version("2025-11-25");
    t.notify("notifications/initialized", {}, clock.now_ms() + 5'000);
    const mcp::CallOutcome list = t.call("tools/list", {}, clock.now_ms() + 5'000);
    REQUIRE(list.status == mcp::CallOutcome::Status::result);
    CHECK(list.result.at("tools").as_array().size() == 1);
  } // closing ends the session
  REQUIRE(client.requests.size() == 4);
  const http::Request& first = client.requests[0];
  CHECK(first.method == "POST");
  CHECK(header_of(first, "Accept") == std::optional<std::string>("application/json, text/event-stream"));
  CHECK(header_of(first, "Authorization") == std::optional<std::string>("Bearer t"));
  CHECK_FALSE(header_of(first, "Mcp-Session-Id"));
  CHECK_FALSE(header_of(first, "MCP-Protocol-Version"));
  for (std::size_t i = 1; i < 4; ++i) {
    CHECK(header_of(client.requests[i], "Mcp-Session-Id") == std::optional<std::string>("abc"));
    CHECK(header_of(client.requests[i], "MCP-Protocol-Version") == std::optional<std::string>("2025-11-25"));
  }
  CHECK(client.requests[3].method == "DELETE");
}

TEST_CASE("a server request met in the stream is answered after it", "[http_transport]") {
  testing::FakeClock clock;
  ScriptedClient client;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/mcp"), "http", {}};
  client.script = {
      {200, k_sse,
       "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n"
       "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"},
      {202, {}, ""},
  };
  mcp::StreamableHttpTransport t(server, client, clock);
  CHECK(t.call("ping", {}, clock.now_ms() + 5'000).status == mcp::CallOutcome::Status::result);
  REQUIRE(client.requests.size() == 2);
  const auto reply = util::parse_json(client.requests[1].body);
  REQUIRE(reply.ok());
  CHECK(reply->at("id") == "s1");
  CHECK(reply->at("result").as_object().empty());
}

TEST_CASE("an HTTP error is a failure with its status, Retry-After and Bearer challenge", "[http_transport]") {
  testing::FakeClock clock;
  ScriptedClient client;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/mcp"), "http", {}};
  client.script = {{503, {{"retry-after", "7"}}, "busy"},
                   {401, {{"www-authenticate", "Bearer realm=\"x\""}}, ""},
                   {200, k_json, "not json"}};
  mcp::StreamableHttpTransport t(server, client, clock);
  const mcp::CallOutcome busy = t.call("initialize", {}, clock.now_ms() + 5'000);
  CHECK(busy.status == mcp::CallOutcome::Status::failed);
  CHECK(busy.http_status == 503);
  CHECK(busy.retry_after_ms == 7'000);
  CHECK(busy.reason == "HTTP 503");
  const mcp::CallOutcome auth = t.call("initialize", {}, clock.now_ms() + 5'000);
  CHECK(auth.http_status == 401);
  CHECK(auth.bearer_challenge);
  const mcp::CallOutcome garbage = t.call("initialize", {}, clock.now_ms() + 5'000);
  CHECK(garbage.status == mcp::CallOutcome::Status::failed);
  CHECK(garbage.reason == "HTTP 200 without an MCP answer to initialize");
}

TEST_CASE("a request that fails before a status is a transport failure", "[http_transport]") {
  testing::FakeClock clock;
  ScriptedClient client; // nothing scripted: every request fails
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/mcp"), "http", {}};
  mcp::StreamableHttpTransport t(server, client, clock);
  const mcp::CallOutcome out = t.call("initialize", {}, clock.now_ms() + 5'000);
  CHECK(out.status == mcp::CallOutcome::Status::failed);
  CHECK(out.transport_failure);
  CHECK(out.reason == "no scripted response");
}

TEST_CASE("a POST mirrors its method, target name and protocol version in headers, as 2026-07-28 requires", "[http]") {
  using Headers = std::vector<std::pair<std::string, std::string>>;
  const json::object modern = mcp::modern_params();
  CHECK(mcp::mirrored_headers("server/discover", modern, "") ==
        Headers{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "server/discover"}});
  json::object call = modern;
  call["name"] = "search";
  CHECK(mcp::mirrored_headers("tools/call", call, "2026-07-28") ==
        Headers{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "search"}});
  json::object read{{"uri", "file:///a b"}};
  CHECK(mcp::mirrored_headers("resources/read", read, "2025-11-25") ==
        Headers{{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "resources/read"}, {"Mcp-Name", "file:///a b"}});
  // The body's _meta wins over the negotiated version, so the two can never disagree.
  CHECK(mcp::mirrored_headers("tools/list", modern, "2025-11-25").front().second == "2026-07-28");
  CHECK(mcp::mirrored_headers("initialize", mcp::initialize_params(), "") == Headers{{"Mcp-Method", "initialize"}});
  CHECK(mcp::mirrored_headers("", {}, "2025-11-25") == Headers{{"MCP-Protocol-Version", "2025-11-25"}});
}

// The legacy HTTP+SSE transport. The scripted GET stream carries every event at once (the endpoint, then the
// answers), which the transport queues; POSTs are answered 202, as a legacy server does.

TEST_CASE("legacy SSE resolves the endpoint with libcurl, POSTs there, and reads the answer from the stream", "[http_transport]") {
  testing::FakeClock clock;
  ScriptedClient client;
  const config::HttpServer server{util::SecretUrl("https://h.example:8443/a/sse"), "sse", {{"X-Key", "k"}}};
  client.script = {
      {200, k_sse,
       "event: endpoint\ndata: //H.example:8443/messages?session=1\n\n"
       "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv\",\"method\":\"ping\"}\n\n"
       "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\n"},
      {202, {}, ""}, // the request
      {202, {}, ""}, // the reply to the server's ping
  };
  {
    mcp::LegacySseTransport t(server, client, clock);
    REQUIRE_FALSE(t.open(clock.now_ms() + 5000));
    const mcp::CallOutcome out = t.call("tools/list", {}, clock.now_ms() + 5000);
    CHECK(out.status == mcp::CallOutcome::Status::result);
  }
  const std::vector<http::Request> seen = client.seen();
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].method == "GET");
  CHECK(header_of(seen[0], "Accept") == "text/event-stream");
  CHECK(seen[1].method == "POST");
  CHECK(seen[1].url.for_transport() == "https://H.example:8443/messages?session=1"); // a network-path reference keeps the scheme
  CHECK(header_of(seen[1], "X-Key") == "k");
  CHECK(seen[2].body.find("\"id\":\"srv\"") != std::string::npos); // the ping was answered
}

TEST_CASE("legacy SSE says why it could not open: a status, a stream without an endpoint, a bad endpoint", "[http_transport]") {
  testing::FakeClock clock;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/sse"), "sse", {}};
  {
    ScriptedClient client;
    client.script = {{404, k_json, "{}"}};
    mcp::LegacySseTransport t(server, client, clock);
    const std::optional<mcp::CallOutcome> failed = t.open(clock.now_ms() + 1000);
    REQUIRE(failed);
    CHECK(failed->http_status == 404);
  }
  {
    ScriptedClient client;
    client.script = {{200, k_sse, ": only a comment\n\n"}};
    mcp::LegacySseTransport t(server, client, clock);
    const std::optional<mcp::CallOutcome> failed = t.open(clock.now_ms() + 1000);
    REQUIRE(failed);
    CHECK(failed->reason == "SSE stream ended without an endpoint event");
  }
  {
    ScriptedClient client;
    client.script = {{200, k_sse, "event: endpoint\ndata: http://[::1\n\n"}};
    mcp::LegacySseTransport t(server, client, clock);
    const std::optional<mcp::CallOutcome> failed = t.open(clock.now_ms() + 1000);
    REQUIRE(failed);
    CHECK(failed->transport_failure);
    CHECK(failed->reason.find("is not a URL relative to http://127.0.0.1:9/sse") != std::string::npos);
  }
}

TEST_CASE("legacy SSE: a refused POST is an HTTP failure, and a stream that ends first a transport failure", "[http_transport]") {
  testing::FakeClock clock;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/sse"), "sse", {}};
  {
    ScriptedClient client;
    client.script = {{200, k_sse, "event: endpoint\ndata: /m\n\n"}, {503, {{"retry-after", "7"}}, ""}};
    mcp::LegacySseTransport t(server, client, clock);
    REQUIRE_FALSE(t.open(clock.now_ms() + 1000));
    const mcp::CallOutcome out = t.call("initialize", {}, clock.now_ms() + 1000);
    CHECK(out.status == mcp::CallOutcome::Status::failed);
    CHECK(out.http_status == 503);
    CHECK(out.retry_after_ms == 7000);
  }
  {
    ScriptedClient client;
    client.script = {{200, k_sse, "event: endpoint\ndata: /m\n\n"}, {202, {}, ""}};
    mcp::LegacySseTransport t(server, client, clock);
    REQUIRE_FALSE(t.open(clock.now_ms() + 1000));
    const mcp::CallOutcome out = t.call("initialize", {}, clock.now_ms() + 1000);
    CHECK(out.status == mcp::CallOutcome::Status::failed);
    CHECK(out.transport_failure);
    CHECK(out.reason == "SSE stream closed before the answer to initialize");
  }
}

TEST_CASE("a 401 needs auth only with a Bearer challenge, and carries the server's OAuth error description", "[http_transport]") {
  testing::FakeClock clock;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/mcp"), "http", {}};
  ScriptedClient oauth;
  oauth.script = {{401, {{"www-authenticate", "Bearer resource_metadata=\"http://127.0.0.1:9/.well-known/x\""}, {"content-type", "application/json"}},
                   R"({"error":"invalid_token","error_description":"The access token expired"})"}};
  const probe::ProbeResult expired = probe::probe_http(server, 5'000, {}, oauth, clock);
  CHECK(expired.ok);
  CHECK(expired.kind == probe::Kind::needs_auth);
  CHECK(expired.auth_error == std::optional<std::string>("The access token expired"));
  ScriptedClient plain;
  plain.script = {{401, {}, ""}};
  const probe::ProbeResult refused = probe::probe_http(server, 5'000, {}, plain, clock);
  CHECK_FALSE(refused.ok);
  CHECK(refused.code == state::FailureCode::http(401));
  CHECK(refused.reason.find("/mcp cannot authenticate it") != std::string::npos);
}

TEST_CASE("legacy SSE never sends the definition's headers to another origin than the configured URL's", "[http_transport]") {
  testing::FakeClock clock;
  const config::HttpServer server{util::SecretUrl("http://me:pw@127.0.0.1:9/sse"), "sse", {{"Authorization", "Bearer secret"}}};
  for (const char* endpoint : {"http://127.0.0.2:9/steal", "//other.example/x", "http://evil@127.0.0.1:9/x",
                               "https://127.0.0.1:9/x", "http://127.0.0.1:10/x", "ftp://127.0.0.1:9/x"}) {
    INFO(endpoint);
    ScriptedClient client;
    client.script = {{200, k_sse, std::string("event: endpoint\ndata: ") + endpoint + "\n\n"}, {202, {}, ""}};
    {
      mcp::LegacySseTransport t(server, client, clock);
      const std::optional<mcp::CallOutcome> failed = t.open(clock.now_ms() + 1000);
      REQUIRE(failed);
      CHECK(failed->reason.find("not on the origin of") != std::string::npos);
    }
    CHECK(client.seen().size() == 1); // the GET only: no POST anywhere
  }
  // The same origin, spelled differently, is the same origin.
  CHECK(http::origin_of("HTTP://LocalHost/x") == std::optional<std::string>("http://localhost:80"));
  CHECK(http::origin_of("https://[::1]:8443/x") == std::optional<std::string>("https://[::1]:8443"));
  CHECK(http::origin_of("http://u:p@h/x", http::Userinfo::ignore) == std::optional<std::string>("http://h:80"));
  CHECK_FALSE(http::origin_of("http://u:p@h/x"));
}

TEST_CASE("a session id that is not visible ASCII is never sent back", "[http_transport]") {
  testing::FakeClock clock;
  ScriptedClient client;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/mcp"), "http", {}};
  client.script = {
      {200, {{"content-type", "application/json"}, {"mcp-session-id", "abc\r\nX-Injected: yes"}},
       R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}})"},
      {200, k_json, R"({"jsonrpc":"2.0","id":2,"result":{"tools":[]}})"},
  };
  {
    mcp::StreamableHttpTransport t(server, client, clock);
    REQUIRE(t.call("initialize", {}, clock.now_ms() + 5'000).status == mcp::CallOutcome::Status::result);
    REQUIRE(t.call("tools/list", {}, clock.now_ms() + 5'000).status == mcp::CallOutcome::Status::result);
  }
  for (const http::Request& r : client.requests) CHECK_FALSE(header_of(r, "Mcp-Session-Id"));
}

TEST_CASE("a probe meeting any HTTP status follows that status's outage row: its health, its code, and reconnect or not", "[http_transport][outage]") {
  testing::FakeClock clock;
  const config::HttpServer server{util::SecretUrl("http://127.0.0.1:9/mcp"), "http", {}};
  config::ResolvedServer resolved;
  resolved.transport = server;
  for (int status = 400; status <= 599; ++status) {
    INFO("HTTP " << status);
    const state::OutageRow& row = state::row_of_status(status);
    const state::ProbeReads reads = state::probe_reads_status(status);
    for (const bool liveness : {false, true}) {
      INFO((liveness ? "liveness" : "handshake"));
      ScriptedClient client;
      client.script = {{status, {{"retry-after", "7"}}, "no"}};
      probe::ProbeOptions options;
      if (liveness) options.depth = probe::Depth::liveness;
      const probe::ProbeResult r = probe::probe_http(server, 5'000, options, client, clock);
      if (reads == state::ProbeReads::down ||
          (reads == state::ProbeReads::token && !liveness)) { // a 401 with no challenge: nothing to log in with
        CHECK_FALSE(r.ok);
        CHECK(r.code == state::FailureCode::http(status));
        CHECK(r.retry_after_ms.has_value() == (row.retry == state::RetryTiming::retry_after));
      } else {
        CHECK(r.ok);
        CHECK(r.kind == (liveness && row.means_auth() ? probe::Kind::needs_auth : probe::Kind::reachable));
      }
      if (r.ok) continue;
      // Recovery reads the same row: the reconnect runs for a kind that takes one, and never for one that does not.
      testing::FakeProber prober;
      prober.results = {r};
      testing::FakeRunner runner;
      const util::MapEnvironment env{{"ECC_MCP_RECONNECT_COMMAND", "pm2 restart {server}"}};
      recover::RecoveryRequest request;
      request.name = "svc";
      request.server = &resolved;
      request.reconnect_timeout_ms = 1000;
      const recover::Recovery rec = recover::check_and_recover(request, prober, runner, env);
      if (row.after_failure == state::AfterFailure::reconnect) {
        CHECK(runner.commands.size() == 1);
      } else {
        CHECK(runner.commands.empty());
        CHECK(rec.reconnect.attempt == recover::Attempt::not_for_this_kind);
        CHECK(recover::describe(rec.reconnect) == "skipped: " + std::string(row.why_no_reconnect));
      }
    }
  }
}

} // namespace test_http_transport
