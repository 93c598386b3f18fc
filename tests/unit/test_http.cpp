#include <mcphealth/http/client.hpp>

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
