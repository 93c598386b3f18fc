// The gate's step machine (gate/steps.hpp) on facts alone: each event's rules name the next step from what is known,
// and a test plays the executor by hand, filling in what each step would have found. No file, no clock, no process.
#include "fakes.hpp"

#include <mcphealth/gate/steps.hpp>
#include <mcphealth/state/outage.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using namespace mcphealth::gate;
namespace json = boost::json;
using hook::HookOutcome;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_steps {
namespace {

constexpr util::EpochMs k_now = 1'800'000'000'000;
const hook::CallTarget k_call{"svc", "act"};

/// Settings as values, counting what the rules asked for: the hot path must ask for nothing the policy decides.
class Inputs final : public RuleInputs {
public:
  config::Settings env_settings;
  config::Settings server_settings;
  bool project_rules = false;
  Refresh refresh_mode = Refresh::background;
  int server_reads = 0;

  const config::Settings& environment() override { return env_settings; }
  const config::Settings& server() override {
    ++server_reads;
    return server_settings;
  }
  bool policy_has_project_rules() override { return project_rules; }
  Refresh refresh() override { return refresh_mode; }
  const config::Settings& of(const config::Candidate&) override { return server_settings; }
  std::vector<std::string> credentials = {"/h/.claude/.credentials.json"};
  std::vector<std::string> credential_files() override { return credentials; }
};

CallFacts call_facts(const std::string& event) { return {event, k_call, k_now, {"Claude Code", "/mcp", "/mcp"}, true}; }

/// A state whose `servers.svc` entry (no definition) is `entry`, when given.
state::StateSnapshot state_with(std::optional<json::object> entry) {
  state::StateSnapshot snap;
  snap.status = state::LoadStatus::ok;
  snap.doc = json::object{{"version", 1}, {"servers", json::object{}}};
  if (entry) snap.doc["servers"].as_object()["svc"] = *entry;
  return snap;
}

json::object healthy(util::EpochMs at, std::int64_t ttl_ms = 120'000) {
  json::object e;
  state::mark_healthy(e, {.now = at, .ttl_ms = ttl_ms});
  return e;
}

json::object down(util::EpochMs at, state::FailureCode code = state::FailureCode::transport()) {
  json::object e;
  state::mark_unhealthy(e, {.now = at, .error = "connection refused", .code = code, .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000});
  return e;
}

/// A definition of `svc` the folder's rules start: over stdio, or `remote`: over HTTP, an OAuth server's (no
/// Authorization header of its own).
struct Definition {
  config::Candidate c;
  explicit Definition(bool remote = false) {
    c.definition.name = "svc";
    c.tool_server = "svc";
    c.fingerprint = "fp-svc";
    if (remote) {
      config::HttpServer http;
      http.url = util::SecretUrl("http://127.0.0.1:9/mcp");
      http.type = "http";
      c.resolved = config::ResolvedServer{c.definition, http, {}};
      return;
    }
    config::StdioServer stdio;
    stdio.command = "/bin/true";
    stdio.executable = "/bin/true";
    c.resolved = config::ResolvedServer{c.definition, stdio, {}};
  }
  Target target() const { return {k_call, state::Binding{.definition = std::nullopt, .standing = "active", .reason = {}}, &c}; }
};

/// PreToolUse past its first reads: no missed failure, nothing cached, no binding that still holds.
PreFacts nothing_cached_nor_bound() {
  PreFacts f{call_facts("PreToolUse")};
  f.missed = Lookup<hook::MissedFailure>::none();
  f.state = state_with(std::nullopt);
  f.bound = Lookup<state::Binding>::none();
  return f;
}

template <typename T>
bool is(const Step& s) {
  return std::holds_alternative<T>(s.what);
}

bool blocks(const Step& s) { return s.answer() && s.answer()->blocks(); }

probe::ProbeResult probed_down() {
  probe::ProbeResult r;
  r.kind = probe::Kind::exited;
  r.reason = "boom";
  return r;
}

probe::ProbeResult probed_up() {
  probe::ProbeResult r;
  r.ok = true;
  r.kind = probe::Kind::answered;
  return r;
}

} // namespace

TEST_CASE("PreToolUse: a fresh healthy mark bound here is allowed after two reads, and no server setting is read", "[steps]") {
  Inputs in;
  PreFacts f{call_facts("PreToolUse")};
  CHECK(is<step::ReadMissedFailure>(next(f, in)));
  f.missed = Lookup<hook::MissedFailure>::none();
  CHECK(is<step::ReadState>(next(f, in)));
  f.state = state_with(healthy(k_now - 1000));
  CHECK(is<step::ReadBinding>(next(f, in)));
  f.bound = std::optional<state::Binding>(state::Binding{}); // the JS hook's entry, under the server's name
  const Step s = next(f, in);
  REQUIRE(s.answer());
  CHECK_FALSE(s.answer()->blocks());
  CHECK(in.server_reads == 0); // the policy is never read on the hot path
}

TEST_CASE("PreToolUse: a mark in its backoff blocks from the cache, the retry bound read from the server's settings", "[steps]") {
  Inputs in;
  PreFacts f{call_facts("PreToolUse")};
  f.missed = Lookup<hook::MissedFailure>::none();
  f.state = state_with(down(k_now - 1000));
  f.bound = std::optional<state::Binding>(state::Binding{});
  const Step s = next(f, in);
  CHECK(blocks(s));
  CHECK(in.server_reads >= 1);
  CHECK(s.answer()->said.empty()); // the block's line is said when it is settled against fail-open
}

TEST_CASE("PreToolUse: a crash loop's code files are stat'ed first: unchanged it stays blocked, changed it is tried", "[steps]") {
  // Two failed calls in a row of a server whose code is /srv/server.py, the last at k_now - 1000.
  json::object looping;
  for (util::EpochMs at : {k_now - 2000, k_now - 1000}) {
    state::mark_unhealthy(looping, {.now = at, .error = "Connection closed", .code = state::FailureCode::transport(),
                                    .backoff_ms = 30'000, .max_backoff_ms = 600'000,
                                    .failed_calls = at == k_now - 2000 ? 1 : 2, .failed_tool = "act",
                                    .code_files = {"/usr/bin/python3", "/srv/server.py"}});
  }
  REQUIRE(fails_on_calls(state::ServerEntry::from_json(looping)));
  Inputs in;
  PreFacts f{call_facts("PreToolUse")};
  f.missed = Lookup<hook::MissedFailure>::none();
  f.state = state_with(looping);
  f.bound = std::optional<state::Binding>(state::Binding{});
  Step s = next(f, in);
  REQUIRE(is<step::StatWaitedFiles>(s));
  CHECK(std::get<step::StatWaitedFiles>(s.what).files ==
        std::vector<std::string>{"/usr/bin/python3", "/srv/server.py"});
  SECTION("nothing changed since its last failed call: blocked") {
    f.waited_seen = std::optional<state::FilesSeen>(state::FilesSeen{k_now - 60'000, "stamp-now"});
    CHECK(blocks(next(f, in)));
  }
  SECTION("none of them is there: blocked") {
    f.waited_seen = std::optional<state::FilesSeen>(state::FilesSeen{std::nullopt, "stamp-none"});
    CHECK(blocks(next(f, in)));
  }
  SECTION("one changed since: the cache does not block it, and says why") {
    f.waited_seen = std::optional<state::FilesSeen>(state::FilesSeen{k_now - 500, "stamp-now"});
    s = next(f, in);
    CHECK_FALSE(blocks(s)); // the JS hook's entry binds no definition: allowed unbound; a bound one is probed
    REQUIRE_FALSE(s.traced.empty());
    CHECK(s.traced.front().find("a file of its code changed since") != std::string::npos);
  }
  SECTION("a healthy entry, the common hit, stats nothing") {
    f.state = state_with(healthy(k_now - 1000));
    CHECK_FALSE(is<step::StatWaitedFiles>(next(f, in)));
  }
}

TEST_CASE("PreToolUse: nothing cached is probed under the probe lock, the state read again under it, then recorded", "[steps]") {
  Inputs in;
  Definition d;
  PreFacts f = nothing_cached_nor_bound();
  Step s = next(f, in);
  REQUIRE(is<step::FindTarget>(s));
  CHECK(std::get<step::FindTarget>(s.what).bind);
  f.target = d.target();
  s = next(f, in);
  REQUIRE(is<step::LockProbe>(s));
  CHECK(std::get<step::LockProbe>(s.what).key == "fp-svc");
  CHECK(std::get<step::LockProbe>(s.what).wait_ms == config::recovery_budget_ms(5'000, 5'000) + 2000);
  f.lock = LockState::held;
  s = next(f, in);
  REQUIRE(is<step::ReadState>(s));
  CHECK(std::get<step::ReadState>(s.what).under_lock);
  f.reread = true;
  SECTION("another hook's verdict, found under the lock, decides: no probe") {
    f.state = state_with(down(k_now - 10));
    CHECK(blocks(next(f, in)));
  }
  SECTION("still nothing: probe, record, and block on what it found") {
    REQUIRE(is<step::ProbeAndRecover>(next(f, in)));
    f.recovery = recover::Recovery{};
    f.recovery->result = probed_down();
    s = next(f, in);
    REQUIRE(is<step::RecordProbe>(s));
    CHECK(std::get<step::RecordProbe>(s.what).candidate == &d.c);
    f.recorded = std::optional<util::EpochMs>(k_now + 30'000);
    s = next(f, in);
    REQUIRE(blocks(s));
    CHECK(s.answer()->answer.reason.find("30 seconds") != std::string::npos);
  }
}

TEST_CASE("PreToolUse: a recovery due for a server a look found down a moment ago reconnects first", "[steps]") {
  Inputs in;
  in.server_settings.backoff_ms.value = 1'000; // a look every 2 s at most (look_again_after_ms)
  Definition d;
  PreFacts f = nothing_cached_nor_bound();
  f.target = d.target();
  f.lock = LockState::timed_out;
  const auto down_at = [](util::EpochMs at) {
    json::object e;
    state::mark_unhealthy(e, {.now = at,
                              .error = "connection refused",
                              .code = state::FailureCode::transport(),
                              .backoff_ms = 1'000,
                              .max_backoff_ms = 8'000});
    return e;
  };
  SECTION("its backoff is over and a probe saw it down 1 s ago: a probe first would only say so again") {
    f.state = state_with(down_at(k_now - 1'000));
    const Step s = next(f, in);
    REQUIRE(is<step::ProbeAndRecover>(s));
    CHECK(std::get<step::ProbeAndRecover>(s.what).request.known_down);
    CHECK(std::get<step::ProbeAndRecover>(s.what).request.reconnect == recover::Reconnect::when_down);
  }
  SECTION("its last look is older than 75% of a look's period (2 s): probed before any reconnect") {
    f.state = state_with(down_at(k_now - 1'600));
    const Step s = next(f, in);
    REQUIRE(is<step::ProbeAndRecover>(s));
    CHECK_FALSE(std::get<step::ProbeAndRecover>(s.what).request.known_down);
  }
}

TEST_CASE("PreToolUse: when another hook's probe outlasts the wait, this one probes without reading again", "[steps]") {
  Inputs in;
  Definition d;
  PreFacts f = nothing_cached_nor_bound();
  f.target = d.target();
  f.lock = LockState::timed_out;
  CHECK(is<step::ProbeAndRecover>(next(f, in)));
  f.lock = LockState::unusable;
  CHECK(is<step::ProbeAndRecover>(next(f, in)));
}

TEST_CASE("PreToolUse: a server the policy skips is allowed, and one nothing defines is allowed with why", "[steps]") {
  Inputs in;
  Definition d;
  PreFacts f = nothing_cached_nor_bound();
  f.target = Target{k_call, state::Binding{.definition = std::nullopt, .standing = std::string(state::k_standing_undefined), .reason = {}}, nullptr};
  Step s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.answer()->said.front() == "No MCP config found for svc; skipping preflight probe");
  f.target = d.target();
  in.server_settings.probe.value = config::ProbeMode::skip;
  s = next(f, in);
  REQUIRE(s.answer());
  CHECK_FALSE(s.answer()->blocks());
  CHECK(s.traced.back().find("probe skipped by the policy") != std::string::npos);
}

TEST_CASE("PreToolUse: a failed call the agent sent no event for is taken first", "[steps]") {
  Inputs in;
  PreFacts f{call_facts("PreToolUse")};
  f.missed = std::optional<hook::MissedFailure>(hook::MissedFailure{"Connection closed", k_now - 5, 10});
  const Step s = next(f, in);
  REQUIRE(is<step::TakeMissedFailure>(s));
  CHECK(std::get<step::TakeMissedFailure>(s.what).missed.text == "Connection closed");
  f.missed_taken = true;
  CHECK(is<step::ReadState>(next(f, in)));
}

namespace {

/// A failure event's facts, its text read as Claude Code frames a dead stdio server.
FailureFacts failure(const std::string& text = "MCP error -32000: Connection closed") {
  FailureFacts f{call_facts("PostToolUseFailure"), {text, nullptr, k_now - 100}, {}};
  f.reading = hook::read_failure(text, nullptr, agent::default_agent().dialect.failure_wordings());
  return f;
}

/// Plays the failure steps up to the mark, as the executor would, with `marked` as what the write counted.
void up_to_the_mark(FailureFacts& f, Inputs& in, const Definition& d, std::int64_t failed_calls) {
  Step s = next(f, in);
  REQUIRE(is<step::FindTarget>(s));
  CHECK(std::get<step::FindTarget>(s.what).bind); // a failure that names its cause binds the folder
  f.target = d.target();
  f.target_bound = true;
  REQUIRE(is<step::LockProbe>(next(f, in)));
  f.lock = LockState::held;
  REQUIRE(is<step::ReadState>(next(f, in)));
  f.under_lock = state_with(std::nullopt);
  s = next(f, in);
  REQUIRE(is<step::MarkDown>(s));
  CHECK(std::get<step::MarkDown>(s.what).mark.code == *f.reading.code);
  CHECK(std::get<step::MarkDown>(s.what).window_ms == 3'600'000 + 120'000); // a crash loop's cap and a TTL
  f.marked = MarkWritten{true, failed_calls, k_now + 30'000};
}

} // namespace

TEST_CASE("PostToolUseFailure: the client's own framing marks the server down, then the reconnect restores it", "[steps]") {
  Inputs in;
  Definition d;
  FailureFacts f = failure();
  up_to_the_mark(f, in, d, 1);
  Step s = next(f, in);
  REQUIRE(is<step::NoteFailedCall>(s));
  CHECK(s.said == std::vector<std::string>{"svc reported transport; marking server unhealthy and attempting reconnect"});
  f.noted = true;
  s = next(f, in);
  REQUIRE(is<step::Reconnect>(s));
  f.reconnect = recover::ReconnectReport{};
  f.reconnect->attempt = recover::Attempt::ok;
  f.reconnect->reprobe = probed_up();
  s = next(f, in);
  REQUIRE(is<step::RecordProbe>(s));
  CHECK(std::get<step::RecordProbe>(s.what).restored_by == state::RestoredBy::post_failure_reconnect);
  f.restored = true;
  s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.answer()->said == std::vector<std::string>{"svc connection restored"});
  CHECK(s.answer()->answer.additional_context->find("retried") != std::string::npos);
}

TEST_CASE("PostToolUseFailure: the second failed call in a row keeps the mark though the reconnect's probe passes", "[steps]") {
  Inputs in;
  Definition d;
  FailureFacts f = failure();
  up_to_the_mark(f, in, d, 2);
  Step s = next(f, in);
  REQUIRE(is<step::NoteFailedCall>(s));
  REQUIRE(s.said.size() == 2);
  CHECK(s.said[1].find("2 calls in a row failed (the last on act)") != std::string::npos);
  f.noted = true;
  s = next(f, in);
  REQUIRE(is<step::Reconnect>(s));
  // The reconnect runs; no probe follows it: its handshake would pass whatever the command did.
  CHECK_FALSE(std::get<step::Reconnect>(s.what).request.reprobe);
  testing::FakeProber prober;
  testing::FakeRunner runner;
  const util::MapEnvironment env{{"ECC_MCP_RECONNECT_COMMAND", "pm2 restart {server}"}};
  const auto& r = std::get<step::Reconnect>(s.what);
  f.reconnect = recover::reconnect_and_reprobe(r.request, r.code, prober, runner, env);
  CHECK(runner.commands.size() == 1);
  CHECK(prober.calls == 0);
  s = next(f, in); // no RecordProbe: a passing handshake does not clear a crash loop
  REQUIRE(s.answer());
  CHECK(s.answer()->said.front().find("its calls keep failing and its handshake would pass, so it is not probed: "
                                      "still blocked") != std::string::npos);
  CHECK(s.answer()->answer.additional_context->find("fails on calls") != std::string::npos);
}

TEST_CASE("PostToolUseFailure: a kind whose row takes no reconnect says so, and runs none", "[steps]") {
  Inputs in;
  Definition d;
  FailureFacts f = failure("MCP error -32000: Connection closed");
  f.reading.code = state::FailureCode::http(429);
  f.reading.says = hook::FailureReading::Says::status;
  up_to_the_mark(f, in, d, 1);
  f.marked->written = true;
  Step s = next(f, in);
  REQUIRE(is<step::NoteFailedCall>(s));
  CHECK(s.said.front() == "svc reported 429; marking server unhealthy and attempting reconnect"); // the JS hook's
  f.noted = true;
  s = next(f, in);
  REQUIRE(is<step::Reconnect>(s));
  testing::FakeProber prober;
  testing::FakeRunner runner;
  const util::MapEnvironment env{{"ECC_MCP_RECONNECT_COMMAND", "pm2 restart {server}"}};
  const auto& r = std::get<step::Reconnect>(s.what);
  f.reconnect = recover::reconnect_and_reprobe(r.request, r.code, prober, runner, env);
  CHECK(runner.commands.empty());
  s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.answer()->said ==
        std::vector<std::string>{"svc reconnect skipped: the server is rate limiting (429), and a restart would burn "
                                 "the rate limit"});
}

TEST_CASE("PostToolUseFailure: a call that began before the server's mark is that outage, counted once", "[steps]") {
  Inputs in;
  Definition d;
  FailureFacts f = failure();
  f.target = d.target();
  f.target_bound = true;
  f.lock = LockState::held;
  f.under_lock = state_with(down(k_now - 50)); // marked after this call began (k_now - 100)
  Step s = next(f, in);
  REQUIRE(is<step::NoteFailedCall>(s));
  f.noted = true;
  s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.answer()->said.empty()); // nothing marked, no reconnect announced
}

TEST_CASE("PostToolUseFailure: a missed failure whose server was checked since is not counted again", "[steps]") {
  Inputs in;
  FailureFacts f = failure();
  f.failed.missed_ended_at = k_now - 5'000;
  CHECK(is<step::ReadState>(next(f, in)));
  f.state = state_with(healthy(k_now - 1'000));
  CHECK(is<step::ReadBinding>(next(f, in)));
  f.bound = std::optional<state::Binding>(state::Binding{});
  const Step s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.traced.front().find("before its last verdict: counted") != std::string::npos);
}

TEST_CASE("PostToolUseFailure: words that may be the tool's own, about a server that cannot be asked, mark nothing", "[steps]") {
  Inputs in;
  FailureFacts f = failure("the upstream API said: 403 Forbidden"); // not an outage: outage words count (below)
  REQUIRE(f.reading.code); // generic words: a lead
  REQUIRE(is<step::FindTarget>(next(f, in)));
  f.target = Target{k_call, state::Binding{}, nullptr}; // nothing defines it here: it cannot be asked
  f.target_bound = true;
  const Step s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.answer()->said.front().find("may be the tool's own") != std::string::npos);
}

TEST_CASE("PostToolUse: a fresh healthy mark writes nothing, and an unhealthy one is restored and said", "[steps]") {
  Inputs in;
  SuccessFacts f{call_facts("PostToolUse")};
  CHECK(is<step::ReadState>(next(f, in)));
  f.state = state_with(healthy(k_now - 1000));
  CHECK(is<step::ReadBinding>(next(f, in)));
  f.bound = std::optional<state::Binding>(state::Binding{});
  Step s = next(f, in);
  REQUIRE(s.answer());
  CHECK(in.server_reads == 0); // the mark carries its TTL
  f.state = state_with(down(k_now - 1000));
  s = next(f, in);
  REQUIRE(is<step::TakeSuccess>(s));
  f.restored = true;
  s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.answer()->said == std::vector<std::string>{"svc connection restored (a tool call succeeded)"});
}

TEST_CASE("SessionStart: notes the hook, binds the folder, reads the state, and refreshes what was never checked", "[steps]") {
  Inputs in;
  Definition d;
  config::Resolution res;
  res.candidates.push_back(d.c);
  SessionFacts f{call_facts("SessionStart")};
  CHECK(is<step::NoteSeen>(next(f, in)));
  f.seen = true;
  CHECK(is<step::BindFolder>(next(f, in)));
  f.resolution = &res;
  CHECK(is<step::ReadState>(next(f, in)));
  f.state = state_with(std::nullopt);
  const Step s = next(f, in);
  REQUIRE(s.answer());
  CHECK(s.answer()->refresh == std::vector<std::string>{"svc"});
}

// --- A remote server that refused the agent's token: a probe carries no token, so the outage waits for the agent's
// credentials to change (a login or a refresh rewrites them: Claude Code 2.1.197 and 2.1.332, checked).

namespace {

/// A failure of a call to `d`'s server, played up to the point where it holds the lock and read the state (empty).
FailureFacts failure_under_lock(const std::string& text, const Definition& d) {
  FailureFacts f = failure(text);
  f.target = d.target();
  f.target_bound = true;
  f.lock = LockState::held;
  f.under_lock = state_with(std::nullopt);
  return f;
}

probe::ProbeResult asks_for_a_token() {
  probe::ProbeResult r;
  r.ok = true;
  r.kind = probe::Kind::needs_auth;
  r.http_status = 401;
  r.auth_error = "The access token expired";
  return r;
}

/// An entry down since `at` for refusing the agent's token, waiting on its credential file.
json::object refused_token(util::EpochMs at) {
  return testing::failed_call(at, state::code_of(state::Outage::unauthorized), {"/h/.claude/.credentials.json"}, 1'000);
}

} // namespace

TEST_CASE("PostToolUseFailure: a remote server that refused the agent's token records where the agent keeps its tokens",
          "[steps]") {
  Inputs in;
  const Definition d(true);
  FailureFacts f = failure_under_lock("Dynamic Client Registration rejected (HTTP 401): {\"error\":\"invalid_token\","
                                      "\"error_description\":\"The access token expired\"}",
                                      d);
  Step s = next(f, in); // Claude Code 2.1.332's own framing of a 401: proof, with its status; no need to ask
  REQUIRE(is<step::MarkDown>(s));
  const state::UnhealthyMark& mark = std::get<step::MarkDown>(s.what).mark;
  CHECK(state::outage_of(mark.code) == state::Outage::unauthorized);
  CHECK(mark.credential_files == in.credentials);
  SECTION("words that may be a tool's: the server is asked, and refuses requests without a token as it refused the "
          "agent's") {
    FailureFacts g = failure_under_lock(
        "upstream said: 401 {\"error\":\"invalid_token\",\"error_description\":\"The access token expired\"}", d);
    s = next(g, in);
    REQUIRE(is<step::AskServer>(s));
    g.asked = asks_for_a_token();
    s = next(g, in);
    REQUIRE(is<step::MarkDown>(s));
    CHECK(std::get<step::MarkDown>(s.what).mark.credential_files == in.credentials);
  }
  SECTION("nor one whose definition sets its own Authorization header (the agent's OAuth is not used then)") {
    Definition own(true);
    std::get<config::HttpServer>(own.c.resolved->transport).headers = {{"Authorization", "Bearer ${TOKEN}"}};
    FailureFacts g = failure_under_lock("Dynamic Client Registration rejected (HTTP 401): invalid_token", own);
    s = next(g, in);
    REQUIRE(is<step::MarkDown>(s));
    CHECK(std::get<step::MarkDown>(s.what).mark.credential_files.empty());
  }
  SECTION("a stdio server's failure records none") {
    const Definition stdio;
    FailureFacts g = failure_under_lock("MCP error -32000: Connection closed", stdio);
    s = next(g, in);
    REQUIRE(is<step::MarkDown>(s));
    CHECK(std::get<step::MarkDown>(s.what).mark.credential_files.empty());
  }
}

TEST_CASE("PreToolUse: a server that refused the agent's token waits for its credentials, not for a probe", "[steps]") {
  Inputs in;
  in.server_settings.backoff_ms.value = 1'000;
  const Definition d(true);
  PreFacts f{call_facts("PreToolUse")};
  f.missed = Lookup<hook::MissedFailure>::none();
  f.bound = std::optional<state::Binding>(state::Binding{});
  SECTION("in its backoff: the credential file is stat'ed; changed since the refusal, the call tries the new token") {
    f.state = state_with(refused_token(k_now - 500));
    Step s = next(f, in);
    REQUIRE(is<step::StatWaitedFiles>(s));
    CHECK(std::get<step::StatWaitedFiles>(s.what).files == std::vector<std::string>{"/h/.claude/.credentials.json"});
    f.waited_seen = std::optional<state::FilesSeen>(state::FilesSeen{k_now - 100, "stamp-now"}); // `claude mcp login svc` a moment ago
    s = next(f, in);
    REQUIRE(s.answer());
    CHECK_FALSE(s.answer()->blocks());
    REQUIRE_FALSE(s.answer()->said.empty());
    CHECK(s.answer()->said.front() == "svc refused Claude Code's token, and Claude Code's credentials changed since (a "
                                      "login or a token refresh): letting act try the new one");
  }
  SECTION("in its backoff, unchanged: blocked") {
    f.state = state_with(refused_token(k_now - 500));
    REQUIRE(is<step::StatWaitedFiles>(next(f, in)));
    f.waited_seen = std::optional<state::FilesSeen>(state::FilesSeen{k_now - 60'000, "stamp-now"});
    CHECK(blocks(next(f, in)));
  }
  SECTION("its retry due, unchanged: the probe's 'asks for a token' does not clear it") {
    f.state = state_with(refused_token(k_now - 5'000));
    f.bound = Lookup<state::Binding>::none(); // no binding here yet: the configs are read
    REQUIRE(is<step::FindTarget>(next(f, in)));
    f.target = d.target();
    REQUIRE(is<step::StatWaitedFiles>(next(f, in)));
    f.waited_seen = std::optional<state::FilesSeen>(state::FilesSeen{k_now - 60'000, "stamp-now"});
    Step s;
    f.lock = LockState::timed_out;
    REQUIRE(is<step::ProbeAndRecover>(next(f, in)));
    f.recovery = recover::Recovery{};
    f.recovery->result = asks_for_a_token();
    s = next(f, in);
    REQUIRE(is<step::RecordProbe>(s));
    const probe::ProbeResult& held = std::get<step::RecordProbe>(s.what).result;
    CHECK_FALSE(held.ok);
    CHECK(state::outage_of(held.code) == state::Outage::unauthorized);
    CHECK(held.reason.find("the agent's credentials have not changed since") != std::string::npos);
    f.recorded = std::optional<util::EpochMs>(k_now + 2'000);
    CHECK(blocks(next(f, in)));
  }
  SECTION("its retry due, and the agent keeps no such file here (none is there): the probe decides, as before") {
    f.state = state_with(refused_token(k_now - 5'000));
    f.bound = Lookup<state::Binding>::none();
    REQUIRE(is<step::FindTarget>(next(f, in)));
    f.target = d.target();
    REQUIRE(is<step::StatWaitedFiles>(next(f, in)));
    f.waited_seen = std::optional<state::FilesSeen>(state::FilesSeen{std::nullopt, "stamp-none"});
    f.lock = LockState::timed_out;
    REQUIRE(is<step::ProbeAndRecover>(next(f, in)));
    f.recovery = recover::Recovery{};
    f.recovery->result = asks_for_a_token();
    const Step s = next(f, in);
    REQUIRE(is<step::RecordProbe>(s));
    CHECK(std::get<step::RecordProbe>(s.what).result.ok);
  }
}

} // namespace test_steps
