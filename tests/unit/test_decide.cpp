// The cache decision alone: entries built with the state's own marks, a clock reading, and the rules as values.
#include "fakes.hpp"

#include <mcphealth/gate/decide.hpp>
#include <mcphealth/gate/plan.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/outage.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using gate::CacheVerdict;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_decide {
namespace {

constexpr util::EpochMs k_t0 = 1'800'000'000'000;

json::object healthy_at(util::EpochMs when, std::int64_t ttl_ms) {
  json::object e;
  state::mark_healthy(e, {.now = when, .ttl_ms = ttl_ms});
  return e;
}

json::object down_at(util::EpochMs when, const std::string& error, std::optional<state::ProbeDetails> probe = std::nullopt) {
  json::object e;
  state::mark_unhealthy(e, {.now = when,
                            .error = error,
                            .code = state::FailureCode::transport(),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000,
                            .probe = std::move(probe)});
  return e;
}

gate::CacheRules rules(std::int64_t retry_bound = 3'600'000, gate::Refresh refresh = gate::Refresh::background) {
  gate::CacheRules r;
  r.retry_bound_ms = retry_bound;
  r.default_ttl_ms = 120'000;
  r.refresh = refresh;
  return r;
}

} // namespace

TEST_CASE("nothing cached decides nothing", "[decide]") {
  CHECK(gate::decide_from_cache(nullptr, k_t0, rules()).verdict == CacheVerdict::no_entry);
}

TEST_CASE("a fresh healthy mark allows", "[decide]") {
  const json::object e = healthy_at(k_t0, 120'000);
  CHECK(gate::decide_from_cache(&e, k_t0 + 119'000, rules(0)).verdict == CacheVerdict::allow);
}

TEST_CASE("an unhealthy mark blocks until its retry and then asks for a probe", "[decide]") {
  const json::object e = down_at(k_t0, "connect ECONNREFUSED");
  const gate::CacheDecision d = gate::decide_from_cache(&e, k_t0 + 29'000, rules());
  CHECK(d.verdict == CacheVerdict::block_down);
  CHECK(d.outlook.retry_at == std::optional<util::EpochMs>(k_t0 + 30'000));
  CHECK_FALSE(d.retry_capped);
  CHECK(gate::decide_from_cache(&e, k_t0 + 30'000, rules()).verdict == CacheVerdict::probe);
}

TEST_CASE("a server that cannot start is blocked as misconfigured with the variable it lacks", "[decide]") {
  state::ProbeDetails probe;
  probe.kind = "misconfigured";
  const json::object e = down_at(k_t0, "misconfigured: ${API_KEY} is not set", probe);
  const gate::CacheDecision d = gate::decide_from_cache(&e, k_t0 + 1'000, rules());
  CHECK(d.verdict == CacheVerdict::block_misconfigured);
  CHECK(d.missing_variable == "API_KEY");
}

TEST_CASE("a nextRetryAt further out than the bound is honoured only until the bound", "[decide]") {
  json::object e = down_at(k_t0, "boom");
  e["nextRetryAt"] = k_t0 + 10 * 3'600'000;
  const gate::CacheDecision d = gate::decide_from_cache(&e, k_t0 + 1'000, rules(3'600'000));
  CHECK(d.verdict == CacheVerdict::block_down);
  CHECK(d.retry_capped);
  CHECK(d.outlook.retry_at == std::optional<util::EpochMs>(k_t0 + 3'600'000));
}

TEST_CASE("a mark expired by less than its TTL is refreshed in the background unless refresh is inline", "[decide]") {
  const json::object e = healthy_at(k_t0, 120'000);
  CHECK(gate::decide_from_cache(&e, k_t0 + 130'000, rules(0)).verdict == CacheVerdict::allow_and_refresh);
  CHECK(gate::decide_from_cache(&e, k_t0 + 130'000, rules(0, gate::Refresh::inline_probe)).verdict == CacheVerdict::probe);
  CHECK(gate::decide_from_cache(&e, k_t0 + 250'000, rules(0)).verdict == CacheVerdict::probe);
}

TEST_CASE("a look at a called server in its backoff is due a little before its period, for calls that come as often", "[decide]") {
  const json::object e = down_at(k_t0, "connect ECONNREFUSED"); // backoff 30 s
  const state::ServerEntry entry = state::ServerEntry::from_json(e);
  constexpr std::int64_t look_ms = 2'000;
  CHECK_FALSE(gate::look_due(entry, k_t0 + 1'000, look_ms)); // one call a second: the next call looks
  CHECK(gate::look_due(entry, k_t0 + 1'980, look_ms));       // a call 20 ms early still looks
  CHECK(gate::look_due(entry, k_t0 + 1'500, look_ms));
  CHECK_FALSE(gate::look_due(entry, k_t0 + 1'499, look_ms));
  CHECK_FALSE(gate::look_due(entry, k_t0 + 29'000, 0)); // no looks asked for
  CHECK_FALSE(gate::look_due(entry, k_t0 + 30'000, look_ms)); // its retry: a probe, not a look
  auto r = rules();
  r.look_again_ms = look_ms;
  CHECK(gate::decide_from_cache(&e, k_t0 + 1'980, r).look_again);
}

TEST_CASE("looks are paid for in CPU: a dear start spaces them to 2% of a core, a cheap one keeps the base spacing", "[decide]") {
  // Unknown (an HTTP server, the portable build): the base backoff's spacing, within 2 to 10 s.
  CHECK(gate::look_spacing_ms(30'000, std::nullopt) == 10'000);
  CHECK(gate::look_spacing_ms(1'000, std::nullopt) == 2'000);
  // Never closer than the base spacing; under the defaults (10 s) a start up to 150 ms changes nothing.
  CHECK(gate::look_spacing_ms(30'000, 40) == 10'000);
  CHECK(gate::look_spacing_ms(30'000, 150) == 10'000);
  CHECK(gate::look_spacing_ms(30'000, 160) > 10'000);
  CHECK(gate::look_spacing_ms(1'000, 10) == 2'000);
  // A start that spends 0.5 s of CPU: looks 25 s apart at the closest (due at 75% of a 33.3-s period) keep it at
  // 2% of one core.
  CHECK(gate::look_spacing_ms(30'000, 500) == 33'333);
  CHECK(gate::look_spacing_ms(1'000, 500) * gate::k_look_due_percent / 100 == 24'999);
  // Read from the entry's last probe, through the rules every reader composes.
  json::object e = down_at(k_t0, "exit 1");
  e["probe"] = json::object{{"kind", "exited"}, {"latencyMs", 600}, {"cpuMs", 500}};
  const state::ServerEntry entry = state::ServerEntry::from_json(e);
  CHECK(entry.look_cpu_ms == std::optional<std::int64_t>(500));
  const config::Settings s;
  gate::ResolvedRuleSettings in(s, s, gate::Refresh::background);
  CHECK(gate::cache_rules(&entry, in).look_again_ms == 33'333);
  CHECK_FALSE(gate::look_due(entry, k_t0 + 10'000, 33'333)); // at the base spacing it would have looked
  CHECK_FALSE(gate::look_due(entry, k_t0 + 24'000, 33'333));
  CHECK(gate::look_due(entry, k_t0 + 25'000, 33'333));
}

namespace {
/// What a stat saw of files whose newest changed at `at` (the stamp matters only to an entry that recorded one).
state::FilesSeen seen_at(util::EpochMs at) { return {at, "stamp-now"}; }
} // namespace

TEST_CASE("a crash loop in its backoff is probed when a file of its code changed after its last check", "[decide]") {
  json::object e;
  for (std::int64_t n : {1, 2}) {
    state::mark_unhealthy(e, {.now = k_t0 + n, .error = "Connection closed", .code = state::FailureCode::transport(),
                              .backoff_ms = 30'000, .max_backoff_ms = 600'000, .failed_calls = n, .failed_tool = "act",
                              .code_files = {"/srv/server.py"}});
  }
  const state::ServerEntry loop = state::ServerEntry::from_json(e);
  CHECK(loop.code_files == std::vector<std::string>{"/srv/server.py"});
  CHECK_FALSE(gate::worth_a_look(loop)); // a look sees only its handshake
  CHECK(gate::code_changed(loop, k_t0 + 10'000, seen_at(k_t0 + 5'000)));
  CHECK_FALSE(gate::code_changed(loop, k_t0 + 10'000, seen_at(k_t0)));          // before its last check
  CHECK_FALSE(gate::code_changed(loop, k_t0 + 10'000, std::nullopt));  // not there, or not looked at
  CHECK_FALSE(gate::code_changed(loop, k_t0 + 120'000, seen_at(k_t0 + 5'000))); // its retry: probed anyway
  auto r = rules();
  r.waited_seen = seen_at(k_t0 + 5'000);
  const gate::CacheDecision d = gate::decide_from_cache(&e, k_t0 + 10'000, r);
  CHECK(d.verdict == CacheVerdict::probe);
  CHECK(d.code_changed);
  // One failed call is no crash loop: an ordinary outage waits for its retry, its looks, or a probe.
  json::object once;
  state::mark_unhealthy(once, {.now = k_t0, .error = "Connection closed", .code = state::FailureCode::transport(),
                               .backoff_ms = 30'000, .max_backoff_ms = 600'000, .failed_calls = 1,
                               .failed_tool = "act", .code_files = {"/srv/server.py"}});
  CHECK_FALSE(gate::code_changed(state::ServerEntry::from_json(once), k_t0 + 10'000, seen_at(k_t0 + 5'000)));
  // A call that succeeds forgets them.
  state::clear_failed_calls(e);
  CHECK(state::ServerEntry::from_json(e).code_files.empty());
}

TEST_CASE("a server that refused the agent's token is let through once the agent's credentials changed", "[decide]") {
  json::object e = testing::failed_call(k_t0, state::FailureCode::http(401), {"/h/.claude/.credentials.json"});
  const state::ServerEntry refused = state::ServerEntry::from_json(e);
  CHECK(refused.credential_files == std::vector<std::string>{"/h/.claude/.credentials.json"});
  CHECK(state::waits_for_credentials(refused));
  CHECK_FALSE(gate::worth_a_look(refused)); // a look carries no token either: the stat of the file is the look
  CHECK(state::credentials_changed(refused, seen_at(k_t0 + 5'000))); // a login since
  CHECK_FALSE(state::credentials_changed(refused, seen_at(k_t0)));   // not since its last check
  CHECK_FALSE(state::credentials_changed(refused, std::nullopt));
  auto r = rules();
  r.waited_seen = seen_at(k_t0 + 5'000);
  for (util::EpochMs at : {k_t0 + 10'000, k_t0 + 60'000}) { // in its backoff, or its retry due: either way
    const gate::CacheDecision d = gate::decide_from_cache(&e, at, r);
    CHECK(d.verdict == CacheVerdict::allow);
    CHECK(d.credentials_changed);
  }
  r.waited_seen = seen_at(k_t0 - 5'000);
  CHECK(gate::decide_from_cache(&e, k_t0 + 10'000, r).verdict == CacheVerdict::block_down);
  // Another kind of outage waits on no credentials, though files were recorded.
  const json::object down = testing::failed_call(k_t0, state::FailureCode::http(503), {"/h/.claude/.credentials.json"});
  CHECK_FALSE(state::waits_for_credentials(state::ServerEntry::from_json(down)));
  // Nor a 403 (whether a new login changes what a server allows was not seen in a real agent).
  CHECK_FALSE(state::waits_for_credentials(state::ServerEntry::from_json(
      testing::failed_call(k_t0, state::FailureCode::http(403), {"/h/.claude/.credentials.json"}))));
  // A call that succeeds forgets them.
  state::clear_failed_calls(e);
  CHECK(state::ServerEntry::from_json(e).credential_files.empty());
}

TEST_CASE("a mark from a clock far ahead decides nothing", "[decide]") {
  const json::object e = healthy_at(k_t0 + 3'600'000, 120'000);
  CHECK(gate::decide_from_cache(&e, k_t0, rules(0)).verdict == CacheVerdict::probe);
}

TEST_CASE("failed calls count in a row across recoveries, and two prove a crash loop", "[decide]") {
  constexpr std::int64_t window = 400'000; // a backoff cap and a TTL
  state::ServerEntry e;
  CHECK(gate::failed_calls_now(e, k_t0, window) == 1); // the first
  e.failed_calls = 1;
  e.last_failed_call_at = k_t0;
  e.status = "healthy"; // the reconnect's probe passed: the count stays
  CHECK(gate::failed_calls_now(e, k_t0 + 30'000, window) == 2);
  CHECK(gate::crash_loop(2));
  CHECK_FALSE(gate::crash_loop(1));
  e.failed_calls = 5;
  CHECK(gate::failed_calls_now(e, k_t0 + window, window) == 6);
  CHECK(gate::failed_calls_now(e, k_t0 + window + 1, window) == 1); // long after: a new row
  e.last_failed_call_at.reset(); // a count with no time (a hand edit) starts over
  CHECK(gate::failed_calls_now(e, k_t0, window) == 1);
}

TEST_CASE("a failure mark keeps the row of failed calls and backs off by it and a healthy mark keeps it too", "[decide]") {
  json::object entry;
  state::mark_healthy(entry, {.now = k_t0, .ttl_ms = 120'000});
  state::UnhealthyMark mark{.now = k_t0 + 1000, .error = "Connection closed", .code = state::FailureCode::transport(),
                            .backoff_ms = 5000, .max_backoff_ms = 300'000, .failed_calls = 3, .failed_tool = "query"};
  state::mark_unhealthy(entry, mark);
  state::ServerEntry e = state::ServerEntry::from_json(entry);
  CHECK(e.failed_calls == 3);
  CHECK(e.last_failed_tool == "query");
  CHECK(e.failure_count == 2); // one fewer than the calls: 10 s, not the first failure's 5 s
  CHECK(*e.next_retry_at - *e.checked_at == 10'000);
  CHECK(e.down_since == k_t0 + 1000);
  state::mark_healthy(entry, {.now = k_t0 + 20'000, .ttl_ms = 120'000});
  e = state::ServerEntry::from_json(entry);
  CHECK(e.failed_calls == 3); // a passing handshake is not a call that succeeded
  CHECK(gate::after_success(e, k_t0 + 21'000, 120'000) == gate::AfterSuccess::forget_failed_calls);
  state::clear_failed_calls(entry);
  CHECK(state::ServerEntry::from_json(entry).failed_calls == 0);
}

TEST_CASE("a change of the waited files is a change of their stamp, never a date against the clock", "[decide]") {
  json::object e = testing::failed_call(k_t0, state::FailureCode::http(401), {"/h/.claude/.credentials.json"});
  e["filesStamp"] = "at-the-refusal";
  const state::ServerEntry refused = state::ServerEntry::from_json(e);
  // Dated a day ahead, unchanged since the refusal: no login happened.
  CHECK_FALSE(state::credentials_changed(refused, state::FilesSeen{k_t0 + 86'400'000, "at-the-refusal"}));
  // Rewritten (another size, inode or time), whatever its date says: a login.
  CHECK(state::credentials_changed(refused, state::FilesSeen{k_t0 - 86'400'000, "after-a-login"}));
  // An entry from before stamps were kept: held to its check time, as before.
  e.erase("filesStamp");
  CHECK(state::credentials_changed(state::ServerEntry::from_json(e), state::FilesSeen{k_t0 + 5'000, "x"}));
  CHECK_FALSE(state::credentials_changed(state::ServerEntry::from_json(e), state::FilesSeen{k_t0 - 5'000, "x"}));
}

} // namespace test_decide
