#include <mcphealth/agent/agent.hpp>
#include <mcphealth/hook/classify.hpp>

#include <catch2/catch.hpp>

#include <optional>

using namespace mcphealth;
using state::FailureCode;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_classify {
namespace {
/// Claude Code's wordings, which these cases are about.
std::span<const hook::ClientWording> claude() { return agent::default_agent().dialect.failure_wordings(); }

struct Case {
  const char* text;
  std::optional<FailureCode> code;
};
} // namespace

// Real failure texts as MCP clients and servers produce them (TypeScript and Python SDKs, Node's net errors, HTTP
// libraries, Claude Code's own wording), and texts that merely contain a status-like number.
TEST_CASE("only text that reports an HTTP status or a transport failure is classified", "[classify]") {
  const Case cases[] = {
      {"Streamable HTTP error: Error POSTing to endpoint (HTTP 401): {\"error\":\"invalid_token\"}", FailureCode::http(401)},
      {"SSE error: Non-200 status code (401)", FailureCode::http(401)},
      {"Error: 401 Unauthorized", FailureCode::http(401)},
      {"401 Unauthorized", FailureCode::http(401)},
      {"Unauthorized: token expired", FailureCode::http(401)},
      {"Authentication failed for user octocat", FailureCode::http(401)},
      {"authentication   EXPIRED", FailureCode::http(401)},
      {"HTTP/1.1 403 Forbidden", FailureCode::http(403)},
      {"Error POSTing to endpoint (HTTP 403): insufficient_scope", FailureCode::http(403)},
      {"Request failed with status code 403", FailureCode::http(403)},
      {"Error: 429 Too Many Requests", FailureCode::http(429)},
      {"HTTP 429", FailureCode::http(429)},
      {"statusCode: 429", FailureCode::http(429)},
      {"rate limit exceeded, retry after 30s", FailureCode::http(429)},
      {"Rate-limit hit", FailureCode::http(429)},
      {"Request failed with status code 503", FailureCode::http(503)},
      {"503 Service Unavailable", FailureCode::http(503)},
      {"upstream returned status 503", FailureCode::http(503)},
      {"{\"status\":503,\"message\":\"down for maintenance\"}", FailureCode::http(503)},
      {"code: 503", FailureCode::http(503)},
      {"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", FailureCode::http(503)},
      {"The server is temporarily unavailable", FailureCode::http(503)},
      {"MCP error -32000: Connection closed", FailureCode::transport()},
      {"MCP error -32001: Request timed out", FailureCode::transport()},
      {"connect ECONNREFUSED 127.0.0.1:3001", FailureCode::transport()},
      {"getaddrinfo ENOTFOUND mcp.example.com", FailureCode::transport()},
      {"getaddrinfo EAI_AGAIN api.github.com", FailureCode::transport()},
      {"TypeError: fetch failed", FailureCode::transport()},
      {"read ECONNRESET", FailureCode::transport()},
      {"connect ETIMEDOUT 10.0.0.1:443", FailureCode::transport()},
      {"socket hang up", FailureCode::transport()},
      {"Connection reset by peer", FailureCode::transport()},
      {"SSE stream disconnected: connect ECONNREFUSED ::1:8080", FailureCode::transport()},
      // A status-like number that reports no status.
      {"ENOENT: no such file or directory, open '/tmp/report-503.txt'", std::nullopt},
      {"SyntaxError: Unexpected token at line 503", std::nullopt},
      {"expected 401 items, got 400", std::nullopt},
      {"retry window must be < 429 seconds", std::nullopt},
      {"EACCES: permission denied, open '/etc/shadow'", std::nullopt},
      {"Invalid params: limit must be at most 503", std::nullopt},
      {"issue #429 not found", std::nullopt},
      {"MCP error -32602: Invalid arguments for tool search", std::nullopt},
      {"Error: file report_401.csv is empty", std::nullopt},
      {"processed 503 records before the validation error", std::nullopt},
      {"401 and then 503", std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(hook::classify_failure(c.text) == c.code);
  }
}

TEST_CASE("the first matching class wins", "[classify]") {
  CHECK(hook::classify_failure("HTTP 401, then HTTP 503") == FailureCode::http(401));
  CHECK(hook::classify_failure("Service Unavailable: connect ECONNREFUSED") == FailureCode::http(503));
}

TEST_CASE("numbers and words only match whole", "[classify]") {
  CHECK_FALSE(hook::classify_failure("code 4011"));
  CHECK_FALSE(hook::classify_failure("id 15030"));
  CHECK_FALSE(hook::classify_failure("overloadedness"));
  CHECK_FALSE(hook::classify_failure("a plain validation error"));
}

TEST_CASE("failure text joins the client's own string fields and never the model's arguments", "[classify]") {
  auto payload = boost::json::parse(
      R"({"error":"e1","message":"m","tool_output":{"output":"o","stderr":"s"},"tool_input":{"error":"HTTP 503"},"x":"no"})");
  CHECK(hook::failure_text(payload.as_object()) == "e1\nm\no\ns");
}

TEST_CASE("Claude Code's own failure texts are read by the wording table", "[classify]") {
  using Says = hook::FailureReading::Says;
  const std::pair<const char*, Says> cases[] = {
      {"MCP server \"svc\" is not connected", Says::transport},
      {"MCP error -32000: Connection closed", Says::transport},
      {"Unable to connect. Is the computer able to access the url?", Says::transport},
      {"Streamable HTTP error: Error POSTing to endpoint:", Says::http_unknown},
      {"Streamable HTTP error: Error POSTing to endpoint: Service temporarily down for maintenance", Says::http_unknown},
      {"Streamable HTTP error: Error POSTing to endpoint: {\"error\": \"upstream unavailable\"}", Says::http_unknown},
      {"HTTP 401: Invalid OAuth error response: SyntaxError: JSON Parse error: Unexpected EOF. Raw body:", Says::status},
      {"The access token expired", Says::nothing},
      {"MCP error -32603: fixture backend exploded", Says::nothing},
      {"MCP server \"svc\" tool \"echo\" timed out after 1s", Says::timeout},
  };
  for (const auto& [text, says] : cases) {
    INFO(text);
    const hook::FailureReading r = hook::read_failure(text, nullptr, claude());
    CHECK(r.says == says);
  }
  CHECK(hook::read_failure("HTTP 401: Invalid OAuth error response", nullptr, claude()).code == FailureCode::http(401));
  // The client gave up waiting: its own kind, not a lost connection (tests/cli/test_real_claude.sh, 2.1.197 and
  // 2.1.332). The same words from a tool are only a generic sign, asked of the server.
  CHECK(hook::read_failure("MCP server \"svc\" tool \"echo\" timed out after 60s", nullptr, claude()).code ==
        FailureCode::timeout());
  CHECK(hook::read_failure("upstream: request timed out", nullptr, claude()).wording.empty());
  // Every row of every agent's table is found by its own text, under that agent.
  for (const agent::Agent* a : agent::agents()) {
    for (const hook::ClientWording& w : a->dialect.failure_wordings()) {
      INFO(a->id << ": " << w.text);
      CHECK(hook::read_failure(w.text, nullptr, a->dialect.failure_wordings()).wording == w.text);
    }
  }
  // Another agent's wording is only a generic sign, if any: Copilot CLI's says "closed", nothing more.
  CHECK(hook::read_failure("MCP transport closed before the tool responded", nullptr, claude()).wording.empty());
}

TEST_CASE("a sign about a host the call's input named is the input's fault", "[classify]") {
  const auto input = boost::json::parse(R"({"request":{"urls":["https://user:pw@Docs.Example-Site.com:8443/p?q=1"]}})").as_object();
  auto r = hook::read_failure("getaddrinfo ENOTFOUND docs.example-site.com", &input, claude());
  CHECK(r.says == hook::FailureReading::Says::nothing);
  CHECK(r.input_named == std::optional<std::string>("docs.example-site.com"));
  r = hook::read_failure("fetch https://docs.example-site.com/p failed: 503 Service Unavailable", &input, claude());
  CHECK(r.input_named);
  // Another host, or the client's own wording, is about the server.
  CHECK(hook::read_failure("getaddrinfo ENOTFOUND api.internal", &input, claude()).says == hook::FailureReading::Says::transport);
  const auto bare = boost::json::parse(R"({"host":"example.invalid"})").as_object();
  CHECK(hook::read_failure("connect ECONNREFUSED example.invalid:443", &bare, claude()).input_named);
  CHECK(hook::read_failure("MCP server \"svc\" is not connected", &bare, claude()).says == hook::FailureReading::Says::transport);
}

} // namespace test_classify
