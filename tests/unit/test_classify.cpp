#include <mcphealth/hook/classify.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using state::FailureCode;

TEST_CASE("failure text is classified by the first matching class", "[classify]") {
  CHECK(hook::classify_failure("HTTP 401") == FailureCode::http(401));
  CHECK(hook::classify_failure("Unauthorised request") == FailureCode::http(401));
  CHECK(hook::classify_failure("authentication   EXPIRED") == FailureCode::http(401));
  CHECK(hook::classify_failure("Forbidden") == FailureCode::http(403));
  CHECK(hook::classify_failure("Permission denied") == FailureCode::http(403));
  CHECK(hook::classify_failure("Rate-limit hit") == FailureCode::http(429));
  CHECK(hook::classify_failure("too many requests") == FailureCode::http(429));
  CHECK(hook::classify_failure("temporarily unavailable") == FailureCode::http(503));
  CHECK(hook::classify_failure("connect ECONNREFUSED 127.0.0.1:80") == FailureCode::transport());
  CHECK(hook::classify_failure("getaddrinfo EAI_AGAIN") == FailureCode::transport());
  CHECK(hook::classify_failure("Connection reset by peer") == FailureCode::transport());
  CHECK(hook::classify_failure("401 and then 503") == FailureCode::http(401));
}

TEST_CASE("numbers and words only match whole", "[classify]") {
  CHECK_FALSE(hook::classify_failure("code 4011"));
  CHECK_FALSE(hook::classify_failure("id 15030"));
  CHECK_FALSE(hook::classify_failure("overloadedness"));
  CHECK_FALSE(hook::classify_failure("a plain validation error"));
}

TEST_CASE("failure text joins the known string fields", "[classify]") {
  auto payload = boost::json::parse(
      R"({"error":"e1","message":"m","tool_output":{"output":"o","stderr":"s"},"tool_input":{"error":"ie"},"x":"no"})");
  CHECK(hook::failure_text(payload.as_object()) == "e1\nm\no\ns\nie");
}
