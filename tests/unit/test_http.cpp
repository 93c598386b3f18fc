#include <mcphealth/http/client.hpp>
#include <mcphealth/state/entry.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;

TEST_CASE("Retry-After reads delay seconds and HTTP dates", "[http]") {
  CHECK(http::parse_retry_after("120", 0) == 120'000);
  CHECK(http::parse_retry_after(" 5 ", 0) == 5'000);
  // 1994-11-06T08:49:37Z is 784111777 s after the epoch.
  CHECK(http::parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784'111'777'000 - 10'000) == 10'000);
  CHECK(http::parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784'111'777'000 + 10'000) == 0);
  CHECK_FALSE(http::parse_retry_after("soon", 0));
  CHECK_FALSE(http::parse_retry_after("-3", 0));
  CHECK_FALSE(http::parse_retry_after("", 0));
}

TEST_CASE("a Retry-After past what 64 bits hold saturates, never wraps into the past", "[http]") {
  const std::int64_t century = 100LL * 365 * 24 * 3600 * 1000;
  CHECK(http::parse_retry_after("9223372036854775807", 0) == century);
  CHECK(http::parse_retry_after("99999999999999999999999", 0) == century);
  CHECK(http::parse_retry_after("3600", 0) == 3'600'000);
}

TEST_CASE("a retry time past any backoff is honoured only until the bound after the check", "[http]") {
  state::ServerEntry e;
  e.checked_at = 1000;
  e.next_retry_at = 9'999'999'999'999;
  CHECK(state::honoured_retry_at(e, 2000, 3'600'000) == 3'601'000);
  e.next_retry_at = 5000;
  CHECK(state::honoured_retry_at(e, 2000, 3'600'000) == 5000);
  e.checked_at = 50'000'000; // in the future: counted from now
  e.next_retry_at = 9'999'999'999'999;
  CHECK(state::honoured_retry_at(e, 2000, 3'600'000) == 3'602'000);
}

TEST_CASE("loopback addresses are always exempt from proxies", "[http]") {
  CHECK(http::no_proxy_list(std::nullopt) == "localhost,127.0.0.0/8,::1");
  CHECK(http::no_proxy_list(std::string("corp.example")) == "corp.example,localhost,127.0.0.0/8,::1");
  CHECK(http::no_proxy_list(std::string("*")) == "*");
}

TEST_CASE("headers are found by their lower-case name", "[http]") {
  http::Response r;
  r.headers = {{"retry-after", "3"}, {"content-type", "a"}};
  CHECK(r.header("retry-after") == std::optional<std::string>("3"));
  CHECK_FALSE(r.header("x"));
}

TEST_CASE("endpoint URIs resolve against the SSE URL as RFC 3986 says, with libcurl's URL parser", "[http]") {
  const auto loaded = http::curl_client();
  REQUIRE(loaded.ok());
  http::Client* curl = *loaded;
  CHECK(curl->resolve_reference("http://h:1/sse", "/messages?s=1") == "http://h:1/messages?s=1");
  CHECK(curl->resolve_reference("http://h:1/a/sse?x=1", "messages") == "http://h:1/a/messages");
  CHECK(curl->resolve_reference("http://h:1/sse", "http://other/m") == "http://other/m");
  // A network-path reference keeps the scheme and replaces the host (the hand-written resolver made it a path).
  CHECK(curl->resolve_reference("https://h:1/sse", "//cdn.example/x") == "https://cdn.example/x");
  CHECK(curl->resolve_reference("http://h:1/a/b/sse", "../m?q=1") == "http://h:1/a/m?q=1");
  CHECK(curl->resolve_reference("not a url", "/m") == std::nullopt);
}
