#include "fakes.hpp"

#include <mcphealth/ops/watch.hpp>
#include <mcphealth/state/verdicts.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_watch {
namespace {
std::vector<std::string> kinds(const std::vector<ops::WatchEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.server + " " + e.event + " by " + e.by);
  return out;
}
config::Settings defaults() { return config::resolve_settings(util::MapEnvironment{{"HOME", "/h"}}, {}); }
} // namespace

TEST_CASE("transitions: down, still-down, recovered and reset, named by their writer", "[watch]") {
  auto a = testing::snapshot(R"({"servers":{},"definitions":{"f1":{"toolName":"one","status":"healthy","checkedAt":1}}})");
  auto b = testing::snapshot(R"({"servers":{},"definitions":{
    "f1":{"toolName":"one","status":"unhealthy","checkedAt":2,"failureCount":1,"updatedBy":"hook","lastError":"boom"},
    "f2":{"toolName":"two","status":"unhealthy","checkedAt":2,"updatedBy":"watch"}}})");
  CHECK(kinds(ops::transitions(a, b, 10)) == std::vector<std::string>{"one down by hook", "two down by watch"});
  auto c = testing::snapshot(R"({"servers":{},"definitions":{
    "f1":{"toolName":"one","status":"unhealthy","checkedAt":3,"failureCount":2,"updatedBy":"watch"},
    "f2":{"toolName":"two","status":"healthy","checkedAt":3,"restoredBy":"tool-success","updatedBy":"tool-success"}}})");
  CHECK(kinds(ops::transitions(b, c, 10)) == std::vector<std::string>{"one still-down by watch", "two recovered by tool-success"});
  auto d = testing::snapshot(R"({"servers":{},"definitions":{
    "f2":{"toolName":"two","status":"healthy","checkedAt":4,"updatedBy":"refresh"}}})");
  CHECK(kinds(ops::transitions(c, d, 10)) == std::vector<std::string>{"one reset by reset"}); // two: refreshed only
}

TEST_CASE("an entry adopted as a definition's verdict is no transition", "[watch]") {
  auto a = testing::snapshot(R"({"servers":{"svc":{"status":"healthy","checkedAt":1}}})");
  auto b = testing::snapshot(R"({"servers":{"svc":{"status":"healthy","checkedAt":1,"definition":"f"}},
    "definitions":{"f":{"toolName":"svc","status":"healthy","checkedAt":1,"updatedBy":"adopted"}}})");
  CHECK(ops::transitions(a, b, 10).empty());
}

TEST_CASE("the schedule: first probe just after first sight, retries at their time, refresh before expiry", "[watch]") {
  const auto settings = defaults();
  gate::ResolvedRuleSettings s(settings, settings, gate::Refresh::background);
  const util::EpochMs first = ops::next_probe_at(nullptr, "fp", 5000, 1000, s);
  CHECK(first >= 1000);
  CHECK(first < 2000);
  CHECK(ops::next_probe_at(nullptr, "fp", 9000, 1000, s) == first); // anchored, not moving with now
  json::object down{{"status", "unhealthy"}, {"checkedAt", 1000}, {"nextRetryAt", 31'000}};
  const util::EpochMs retry = ops::next_probe_at(&down, "fp", 2000, 0, s);
  CHECK(retry >= 31'000);
  CHECK(retry < 31'250);
  json::object up{{"status", "healthy"}, {"checkedAt", 1000}, {"expiresAt", 121'000}};
  const util::EpochMs refresh = ops::next_probe_at(&up, "fp", 2000, 0, s);
  CHECK(refresh < 121'000 - 12'000 + 1);
  CHECK(refresh > 121'000 - 12'000 - 2'001);
  // One sweep (--once) probes every server, fresh or not; --every brings a healthy one's probe forward.
  CHECK(ops::next_probe_at(&up, "fp", 2000, 0, s, ops::Jitter::no) == 2000);
  CHECK(ops::next_probe_at(&up, "fp", 2000, 0, s, ops::Jitter::yes, 15'000) == 16'000);
  CHECK(ops::next_probe_at(&up, "fp", 20'000, 0, s, ops::Jitter::yes, 15'000) == 20'000);
  CHECK(ops::next_probe_at(&up, "fp", 2000, 0, s, ops::Jitter::yes, 600'000) == refresh);
  CHECK(ops::next_probe_at(&up, "a", 2000, 0, s) != ops::next_probe_at(&up, "b", 2000, 0, s)); // spread apart
  // A breaker whose retry has come waits for its trial call: looked at once a TTL, not at every turn.
  json::object loop{{"status", "unhealthy"}, {"checkedAt", 40'000}, {"nextRetryAt", 31'000}, {"downSince", 1000},
                    {"failedCalls", 3}, {"lastFailedCallAt", 30'000}};
  const util::EpochMs trial = ops::next_probe_at(&loop, "fp", 41'000, 0, s);
  CHECK(trial >= 40'000 + 120'000);
  CHECK(trial < 40'000 + 120'000 + 250);
  loop["failedCalls"] = 1; // not a breaker: its retry is due now
  CHECK(ops::next_probe_at(&loop, "fp", 41'000, 0, s) == 41'000);
}

namespace {
/// Keeps what a watch loop hands its sink.
struct RecordingSink final : ops::WatchSink {
  std::vector<ops::WatchEvent> events;
  std::vector<std::string> warnings;
  int reports = 0;
  void transition(const ops::WatchEvent& e) override { events.push_back(e); }
  void warning(const std::string& text) override { warnings.push_back(text); }
  void status(const ops::StatusReport&) override { ++reports; }
  std::vector<ops::SweepProgress> sweeps;
  void sweeping(const std::optional<ops::SweepProgress>& p) override {
    if (p) sweeps.push_back(*p);
  }
};
} // namespace

TEST_CASE("a watch turn hands each transition to the sink and to --exec through the command runner", "[watch]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  util::MapEnvironment env{{"HOME", dir.path().string()}};
  std::ofstream(dir.path() / ".claude.json") << R"({"mcpServers":{"svc":{"command":"/bin/true"}}})"; // svc is configured
  config::SettingsOverrides flags;
  flags.state_path = dir.path() / "state.json";
  const config::Settings settings = config::resolve_settings(env, flags);
  config::DiscoveryInputs inputs = config::discovery_inputs(env, {}, dir.path().string());
  testing::FakeRunner runner;
  RecordingSink sink;
  ops::WatchPlan plan;
  plan.exec = "notify-send";
  plan.report_status = true;
  ops::WatchLoop loop(settings, inputs, env, clock, runner, plan, sink);
  loop.turn(std::atomic<bool>{false});
  CHECK(sink.events.empty());
  CHECK(sink.reports == 1);
  CHECK_FALSE(loop.something_down());
  state::StateStore store(*flags.state_path, clock);
  REQUIRE(store.update([&](json::object& doc) {
    state::record_unbound(doc, "svc", state::Writer::hook, [&](json::object& e) {
      state::mark_unhealthy(e, {.now = clock.now_ms(),
                                .error = "boom",
                                .code = state::FailureCode::transport(),
                                .backoff_ms = 30'000,
                                .max_backoff_ms = 600'000});
    });
    return true;
  }));
  loop.turn(std::atomic<bool>{false});
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].event == "down");
  CHECK(runner.commands == std::vector<std::string>{"notify-send"});
  CHECK(runner.servers == std::vector<std::string>{"svc"});
  CHECK(runner.inputs.at(0).find("\"event\":\"down\"") != std::string::npos);
  CHECK(loop.something_down());
  runner.result = testing::FakeRunner::failing("no display");
  loop.turn(std::atomic<bool>{false});
  CHECK(runner.commands.size() == 1); // nothing changed: nothing ran
  clock.advance(1000);
  REQUIRE(store.update([&](json::object& doc) {
    state::record_unbound(doc, "svc", state::Writer::tool_success, [&](json::object& e) {
      state::mark_healthy(e,
                          {.now = clock.now_ms(), .ttl_ms = 120'000, .restored_by = state::RestoredBy::tool_success});
    });
    return true;
  }));
  loop.turn(std::atomic<bool>{false});
  REQUIRE(sink.warnings.size() == 1);
  CHECK(sink.warnings[0] == "--exec for svc recovered: exited with 1: no display");
}

} // namespace test_watch
