// The outage table (state/outage.hpp): one row per kind, and what reads it.
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/hook/messages.hpp>
#include <mcphealth/state/outage.hpp>

#include <catch2/catch.hpp>

#include <set>

using namespace mcphealth;
using state::FailureCode;
using state::Outage;

TEST_CASE("every outage kind has exactly one row, and a recorded code finds its kind", "[outage]") {
  std::set<Outage> seen;
  for (const state::OutageRow& row : state::outage_table()) {
    CHECK(seen.insert(row.kind).second);
    CHECK(&state::row_of(row.kind) == &row);
    CHECK_FALSE(row.name.empty());
  }
  CHECK(seen.size() == state::k_outage_kinds);
  CHECK(state::outage_of(FailureCode::http(401)) == Outage::unauthorized);
  CHECK(state::outage_of(FailureCode::http(429)) == Outage::rate_limited);
  CHECK(state::outage_of(FailureCode::http(502)) == Outage::server_error);
  CHECK(state::outage_of(FailureCode::http(418)) == Outage::other_status);
  CHECK(state::outage_of(FailureCode::transport()) == Outage::transport);
  CHECK(state::outage_of(FailureCode::none()) == Outage::none);
}

TEST_CASE("a failure text is classified by the rows' own signs: each sign of each row finds that row", "[outage]") {
  for (const state::OutageRow& row : state::outage_table()) {
    for (std::string_view sign : row.signs) {
      const auto code = hook::classify_failure("MCP error: " + std::string(sign));
      REQUIRE(code);
      CHECK(state::outage_of(*code) == row.kind);
    }
    if (row.status() != 0 && !row.reason_phrase.empty()) {
      const auto code = hook::classify_failure("HTTP " + std::to_string(row.status()) + " from upstream");
      REQUIRE(code);
      CHECK(*code == FailureCode::http(row.status()));
    }
  }
}

TEST_CASE("only a rate limit skips the reconnect, and only 429 and 503 wait for Retry-After", "[outage]") {
  for (const state::OutageRow& row : state::outage_table()) {
    CHECK((row.after_failure == state::AfterFailure::no_reconnect) == (row.kind == Outage::rate_limited));
    CHECK((row.retry == state::RetryTiming::retry_after) == (row.status() == 429 || row.status() == 503));
  }
}

TEST_CASE("the model's sentence and advice come from the row", "[outage]") {
  hook::messages::Down down{"svc", "act", "HTTP 403", FailureCode::http(403)};
  std::string text = hook::messages::blocked_after_probe(down);
  CHECK(text.find(std::string(state::row_of(Outage::forbidden).happened)) != std::string::npos);
  CHECK(text.find("to authenticate") != std::string::npos);
  down.code = FailureCode::http(429);
  text = hook::messages::blocked_after_probe(down);
  CHECK(text.find(std::string(state::row_of(Outage::rate_limited).happened)) != std::string::npos);
  CHECK(text.find("retry after that") != std::string::npos);
}
