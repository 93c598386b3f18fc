#include "fakes.hpp"

#include <mcphealth/ops/reset.hpp>
#include <mcphealth/state/verdicts.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_reset {
namespace {
state::StateStore seeded(const testing::TempDir& dir, testing::FakeClock& clock) {
  state::StateStore store(dir.path() / "state.json", clock);
  const util::EpochMs now = clock.now_ms();
  const auto seeded_ok = store.update([now](json::object& doc) {
    state::entry_of(doc, "a") = json::object{{"status", "unhealthy"}};
    state::entry_of(doc, "b") = json::object{{"status", "healthy"}};
    state::record_verdict(doc, {"fpA", "a", "a", "user", std::nullopt, std::nullopt}, now, state::Writer::probe,
                          [now](json::object& e) { e["status"] = "unhealthy"; e["checkedAt"] = now; });
    return true;
  });
  REQUIRE(seeded_ok.ok());
  REQUIRE(store.bind("/p", {.stamp = "s", .names = {{"a", {std::string("fpA"), "active", {}}}, {"b", {std::string("fpB"), "active", {}}}}},
                     now));
  return store;
}
bool none(const std::string&, const json::object&) { return false; }
} // namespace

TEST_CASE("reset removes named entries with their verdicts and bindings", "[reset]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  auto store = seeded(dir, clock);
  auto r = ops::remove_entries(store, {"a"}, none, ops::DryRun::no);
  CHECK(r.removed == std::vector<std::string>{"a"});
  REQUIRE(r.update.ok());
  CHECK(r.update->written);
  auto snap = store.read();
  CHECK_FALSE(snap.server("a"));
  CHECK(snap.server("b"));
  CHECK(state::verdicts(snap.doc).empty());
  const auto bound = store.bindings("/p");
  REQUIRE(bound);
  CHECK_FALSE(bound->find("a"));
  CHECK(bound->find("b"));
}

TEST_CASE("reset picks by predicate when no names are given, and a dry run writes nothing", "[reset]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  auto store = seeded(dir, clock);
  auto unhealthy = [](const std::string&, const json::object& e) { return e.at("status") == "unhealthy"; };
  auto dry = ops::remove_entries(store, {}, unhealthy, ops::DryRun::yes);
  CHECK(dry.removed == std::vector<std::string>{"a"});
  CHECK(store.read().server("a"));
  auto nothing = ops::remove_entries(store, {}, none, ops::DryRun::no);
  CHECK(nothing.removed.empty());
  REQUIRE(nothing.update.ok());
  CHECK_FALSE(nothing.update->written);
}

} // namespace test_reset
