// The gate's rules (gate/plan.hpp), fed with values: no file, no clock, no process.
#include "fakes.hpp"

#include <mcphealth/gate/plan.hpp>

#include <catch2/catch.hpp>

#include <cerrno>

using namespace mcphealth;
using gate::Plan;
using hook::HookOutcome;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_plan {
namespace {

constexpr util::EpochMs k_now = 1'800'000'000'000;
const hook::CallTarget k_call{"svc", "act"};

state::ServerEntry healthy_at(util::EpochMs when, std::int64_t ttl_ms) {
  json::object e;
  state::mark_healthy(e, {.now = when, .ttl_ms = ttl_ms});
  return state::ServerEntry::from_json(e);
}

state::ServerEntry down_at(util::EpochMs when, const std::string& error = "connection refused") {
  json::object e;
  state::mark_unhealthy(e, {.now = when,
                            .error = error,
                            .code = state::FailureCode::transport(),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000});
  return state::ServerEntry::from_json(e);
}

gate::CacheDecision decided(const state::ServerEntry& entry, gate::CacheVerdict verdict, util::EpochMs now = k_now) {
  gate::CacheDecision d;
  d.verdict = verdict;
  d.entry = entry;
  d.outlook = state::outlook_of(entry, now, 3'600'000, 0);
  return d;
}

} // namespace

TEST_CASE("a successful call extends a healthy mark only past half its TTL, and clears an unhealthy one", "[plan]") {
  const std::int64_t ttl = 120'000;
  const state::ServerEntry fresh = healthy_at(k_now, ttl);
  CHECK(gate::after_success(fresh, k_now, ttl) == gate::AfterSuccess::nothing);
  CHECK(gate::after_success(fresh, k_now + ttl / 2 - 1, ttl) == gate::AfterSuccess::nothing);
  CHECK(gate::after_success(fresh, k_now + ttl / 2 + 1, ttl) == gate::AfterSuccess::extend);
  // Extended once: the mark written at that moment is fresh again, so the next success writes nothing.
  const state::ServerEntry extended = healthy_at(k_now + ttl / 2 + 1, ttl);
  CHECK(gate::after_success(extended, k_now + ttl / 2 + 2, ttl) == gate::AfterSuccess::nothing);
  CHECK(gate::after_success(down_at(k_now), k_now + 1, ttl) == gate::AfterSuccess::restore);
  CHECK(gate::after_success(state::ServerEntry{}, k_now, ttl) ==
        gate::AfterSuccess::nothing); // a status that says nothing
}

TEST_CASE("a block is settled against fail-open: it says its line, or gives way and says that instead", "[plan]") {
  const Plan blocked = gate::block("PreToolUse", {"svc is marked unhealthy until T", "skipping act"}, "for the model");
  REQUIRE(blocked.blocks());
  const Plan kept = gate::settle(blocked, gate::FailOpen::no);
  CHECK(kept.blocks());
  CHECK(kept.answer.reason == std::string(hook::messages::k_block_lead) + "for the model");
  REQUIRE(kept.said.size() == 1);
  CHECK(kept.said[0] == "svc is marked unhealthy until T; skipping act");
  // Under fail-open the JS hook says its block line as it is (people grep for "skipping"): so does mcphealth, and
  // says after it that the call is allowed.
  const Plan given_way = gate::settle(blocked, gate::FailOpen::yes);
  CHECK_FALSE(given_way.blocks());
  CHECK(given_way.answer.reason.empty());
  CHECK(given_way.said == std::vector<std::string>{"svc is marked unhealthy until T; skipping act",
                                                   "fail-open mode is enabled: the call is allowed"});
  const Plan sentence = gate::settle(
      gate::block("PreToolUse", {"svc is unavailable (x)", "Blocking act.", gate::BlockLine::Join::sentence}, "m"),
      gate::FailOpen::yes);
  CHECK(sentence.said[0] == "svc is unavailable (x). Blocking act.");
  // A line the JS hook words its own way under fail-open (a cut payload) is said its way, alone.
  const Plan cut = gate::settle(gate::block("PreToolUse", {"input cut", "blocking act", gate::BlockLine::Join::clause, "",
                                                           "allowing act because fail-open mode is enabled"},
                                            "m"),
                                gate::FailOpen::yes);
  CHECK(cut.said == std::vector<std::string>{"input cut; allowing act because fail-open mode is enabled"});
  // An allow is settled as it is, whatever the mode.
  CHECK(gate::settle(gate::allow("PreToolUse"), gate::FailOpen::no).said.empty());
}

TEST_CASE("the cache answers: a fresh mark allows, a mark in backoff blocks, a stale one allows and refreshes",
          "[plan]") {
  const gate::Voice voice;
  const auto fresh = gate::answer_from_cache(
      "PreToolUse", k_call, decided(healthy_at(k_now, 120'000), gate::CacheVerdict::allow), k_now, voice);
  REQUIRE(fresh);
  CHECK_FALSE(fresh->blocks());
  CHECK(fresh->refresh.empty());
  CHECK(fresh->said.empty());

  const auto down = gate::answer_from_cache(
      "PreToolUse", k_call, decided(down_at(k_now), gate::CacheVerdict::block_down), k_now + 1000, voice);
  REQUIRE(down);
  CHECK(down->blocks());
  REQUIRE(down->block_line);
  CHECK(down->block_line->found.find("svc is marked unhealthy until") == 0);
  CHECK(down->answer.reason.find("connection refused") != std::string::npos);

  // A server name with characters tool names do not hold is refreshed by its tool name.
  const auto stale = gate::answer_from_cache("PreToolUse", {"my.svc", "act"},
                                             decided(healthy_at(k_now, 120'000), gate::CacheVerdict::allow_and_refresh),
                                             k_now + 130'000, voice);
  REQUIRE(stale);
  CHECK_FALSE(stale->blocks());
  CHECK(stale->refresh == std::vector<std::string>{"my_svc"});

  CHECK_FALSE(gate::answer_from_cache("PreToolUse", k_call, decided({}, gate::CacheVerdict::probe), k_now, voice));
  CHECK_FALSE(gate::answer_from_cache("PreToolUse", k_call, decided({}, gate::CacheVerdict::no_entry), k_now, voice));
}

TEST_CASE("a retry further out than any backoff is said before the block it caps", "[plan]") {
  gate::CacheDecision d = decided(down_at(k_now), gate::CacheVerdict::block_down);
  d.entry.next_retry_at = k_now + 100 * 3'600'000LL;
  d.retry_capped = true;
  const auto plan = gate::answer_from_cache("PreToolUse", k_call, d, k_now, gate::Voice{});
  REQUIRE(plan);
  const Plan settled = gate::settle(*plan, gate::FailOpen::no);
  REQUIRE(settled.said.size() == 2);
  CHECK(settled.said[0].find("is further out than any backoff writes") != std::string::npos);
  CHECK(settled.said[1].find("svc is marked unhealthy until") == 0);
}

TEST_CASE("after a probe: an answer allows, a failure blocks with the retry, a local fault is no verdict", "[plan]") {
  gate::ProbeFinding f{.call = k_call};
  f.result = testing::FakeProber::healthy();
  Plan up = gate::answer_after_probe("PreToolUse", f, k_now, gate::Voice{});
  CHECK_FALSE(up.blocks());
  CHECK(up.said.empty());
  f.was_unhealthy = true;
  up = gate::answer_after_probe("PreToolUse", f, k_now, gate::Voice{});
  CHECK(up.said == std::vector<std::string>{"svc connection restored"});

  f.result = testing::FakeProber::down("connection refused", state::FailureCode::transport());
  f.retry_at = k_now + 30'000;
  const Plan down = gate::answer_after_probe("PreToolUse", f, k_now, gate::Voice{});
  CHECK(down.blocks());
  CHECK(down.block_line->found == "svc is unavailable (connection refused)");
  CHECK(down.answer.reason.find("30 seconds") != std::string::npos);

  f.result = probe::local_fault("spawn", EMFILE);
  const Plan local = gate::answer_after_probe("PreToolUse", f, k_now, gate::Voice{});
  CHECK_FALSE(local.blocks());
  REQUIRE(local.said.size() == 1);
  CHECK(local.said[0].find("could not be probed") != std::string::npos);
}

TEST_CASE("a payload cut before its tool name blocks PreToolUse, and a cut failure records nothing and says so",
          "[plan]") {
  const Plan unnamed = gate::answer_incomplete("PreToolUse", hook::Event::pre_tool_use, std::nullopt, false, 1024);
  CHECK(unnamed.blocks());
  CHECK(unnamed.block_line->found == "Hook input exceeded 1024 bytes before its tool name");
  CHECK_FALSE(gate::answer_incomplete("PreToolUse", hook::Event::pre_tool_use, std::nullopt, true, 1024).blocks());
  CHECK(gate::answer_incomplete("PreToolUse", hook::Event::pre_tool_use, k_call, false, 1024).blocks());
  const Plan failure =
      gate::answer_incomplete("PostToolUseFailure", hook::Event::post_tool_use_failure, k_call, false, 1024);
  CHECK_FALSE(failure.blocks());
  CHECK(failure.said.size() == 1);
}

TEST_CASE(
    "a probe after a failed call: a refusal marks the server, an answer clears it, no probe leaves the text to decide",
    "[plan]") {
  hook::FailureReading reading;
  reading.says = hook::FailureReading::Says::http_unknown;
  state::UnhealthyMark mark{.now = k_now, .error = "fetch failed"};
  probe::ProbeResult refused = testing::FakeProber::healthy();
  refused.http_status = 503;
  CHECK(gate::read_asked(reading, "fetch failed", refused, mark) == gate::Asked::down);
  CHECK(mark.code == state::FailureCode::http(503));
  CHECK(mark.error == "HTTP 503");

  state::UnhealthyMark untouched{.now = k_now, .error = "fetch failed"};
  CHECK(gate::read_asked(reading, "fetch failed", testing::FakeProber::healthy(), untouched) == gate::Asked::up);
  CHECK(untouched.error == "fetch failed");
  CHECK(gate::read_asked(reading, "fetch failed", probe::local_fault("spawn", EMFILE), untouched) ==
        gate::Asked::unknown);

  CHECK(gate::ask_after_failure(reading, true, false));
  CHECK_FALSE(gate::ask_after_failure(reading, false, false)); // a local server without a sign: nothing to confirm
  CHECK_FALSE(gate::ask_after_failure(reading, true, true));   // the policy says not to probe it
  reading.says = hook::FailureReading::Says::status;
  reading.code = state::FailureCode::http(503);
  CHECK(gate::ask_after_failure(reading, true, false));  // a generic sign: it may be the tool's own words
  CHECK(gate::ask_after_failure(reading, false, false)); // for a local server too
  CHECK_FALSE(gate::is_proof(reading));
  reading.wording = "Dynamic Client Registration rejected (HTTP 401)*";
  CHECK(gate::is_proof(reading));
  CHECK_FALSE(gate::ask_after_failure(reading, true, false)); // the client's own framing gave the status
  CHECK_FALSE(gate::ask_after_failure(reading, false, false));
  // The client gave up waiting for the call: a slow server answers a probe, which says nothing of the call.
  reading.says = hook::FailureReading::Says::timeout;
  reading.code = state::FailureCode::timeout();
  reading.wording = "MCP server \"*\" tool \"*\" timed out after *";
  CHECK_FALSE(gate::ask_after_failure(reading, true, false));
  CHECK_FALSE(gate::ask_after_failure(reading, false, false));
}

TEST_CASE("SessionStart refreshes what is missing or stale and names what is down, skipped servers left alone",
          "[plan]") {
  const std::int64_t ttl = 120'000;
  gate::CacheRules rules;
  rules.retry_bound_ms = 3'600'000;
  rules.ttl_bound_ms = ttl;
  std::vector<gate::SessionServer> servers;
  servers.push_back({.name = "never"});
  servers.push_back({.name = "skipped", .skipped = true});
  servers.push_back(
      {.name = "fresh", .entry = healthy_at(k_now, ttl), .health = state::Health::healthy, .rules = rules});
  servers.push_back(
      {.name = "stale", .entry = healthy_at(k_now - 2 * ttl, ttl), .health = state::Health::healthy, .rules = rules});
  servers.push_back({.name = "down", .entry = down_at(k_now), .health = state::Health::unhealthy, .rules = rules});
  servers.push_back(
      {.name = "due", .entry = down_at(k_now - 60'000), .health = state::Health::unhealthy, .rules = rules});
  const Plan plan = gate::plan_session_start("SessionStart", servers, k_now, gate::Voice{});
  CHECK(plan.refresh == std::vector<std::string>{"never", "stale", "due"});
  REQUIRE(plan.answer.additional_context);
  const std::string& told = *plan.answer.additional_context;
  CHECK(told.find("down") != std::string::npos);
  CHECK(told.find("due") != std::string::npos);
  CHECK(told.find("fresh") == std::string::npos);
  CHECK(told.find("skipped") == std::string::npos);
  CHECK_FALSE(gate::plan_session_start("SessionStart", {servers[2]}, k_now, gate::Voice{})
                  .answer.additional_context);
}

TEST_CASE("a name nothing starts here is allowed and said: undefined, or defined but not started", "[plan]") {
  const Plan undefined =
      gate::allow_unbound("PreToolUse", "svc", {std::nullopt, "none", "/p/.mcp.json could not be read (x)"});
  CHECK_FALSE(undefined.blocks());
  REQUIRE(undefined.said.size() == 2);
  CHECK(undefined.said[0] == "No MCP config found for svc; skipping preflight probe");
  CHECK(undefined.said[1].find("/p/.mcp.json could not be read") != std::string::npos);
  const Plan pending = gate::allow_unbound("PreToolUse", "svc", {std::nullopt, "not-approved", "pending approval"});
  CHECK(pending.said == std::vector<std::string>{"svc is not checked: pending approval; skipping preflight probe"});
}

TEST_CASE("after a failure the model hears what was recorded: restored, marked down for a time, or nothing", "[plan]") {
  hook::messages::Down down{"svc", "act", "Connection closed", state::FailureCode::transport()};
  down.blocked_for_ms = 30'000;
  const auto told = [&](gate::FailureRecord r) {
    return *gate::answer_after_failure("PostToolUseFailure", down, r).answer.additional_context;
  };
  CHECK(told(gate::FailureRecord::restored).find("answers again") != std::string::npos);
  CHECK(told(gate::FailureRecord::marked).find("30 seconds") != std::string::npos);
  CHECK(told(gate::FailureRecord::not_recorded).find("Give it a few minutes") != std::string::npos);
  CHECK(told(gate::FailureRecord::not_recorded).find("30 seconds") == std::string::npos);
}

TEST_CASE("a block's stderr line names who falls back: Claude for Claude Code, as the JS hook wrote, else the agent", "[plan]") {
  gate::ProbeFinding f{k_call};
  f.result.kind = probe::Kind::exited;
  f.result.reason = "boom";
  for (const auto& [voice, who] : {std::pair{gate::Voice{}, std::string("Claude")},
                                   std::pair{gate::Voice{"Gemini CLI", "run /mcp auth", "/mcp auth", "Gemini CLI"},
                                             std::string("Gemini CLI")}}) {
    const Plan plan = gate::settle(gate::answer_after_probe("PreToolUse", f, k_now, voice), gate::FailOpen::no);
    REQUIRE(plan.said.size() == 1);
    CHECK(plan.said.front() == "svc is unavailable (boom). Blocking act so " + who + " can fall back to non-MCP tools.");
  }
}

} // namespace test_plan
