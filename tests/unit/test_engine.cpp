#include "fakes.hpp"

#include <mcphealth/gate/decide.hpp>
#include <mcphealth/gate/engine.hpp>
#include <mcphealth/hook/messages.hpp>
#include <mcphealth/state/store.hpp>

#include <catch2/catch.hpp>

#include <algorithm>

using namespace mcphealth;
using testing::FakeClock;
using testing::FakeProber;
using testing::FakeRunner;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_engine {
namespace {

/// A hook with every seam faked, on a state and files in memory: the executor's steps with no file and no process.
struct Harness {
  FakeClock clock;
  util::MapEnvironment env{{"HOME", "/mem/home"}};
  FakeProber prober;
  FakeRunner runner;
  testing::MemoryStore store;
  testing::MemoryDisk disk;
  std::vector<std::string> lines;
  /// The servers each background refresh was asked for.
  std::vector<std::vector<std::string>> refreshes;
  /// The background looks at down servers a blocked call asked for.
  std::vector<std::vector<std::string>> looks;
  /// The folder the calls are made in, and its config file.
  const std::filesystem::path folder = "/mem/project";
  const std::filesystem::path config = folder / "mcp.json";

  Harness() {
    disk.write(config, R"({"mcpServers":{"svc":{"command":"/bin/true"}}})");
    prober.results.push_back(FakeProber::healthy());
  }

  hook::HookOutcome run(const std::string& event, const std::string& server = "svc", json::object extra = {}) {
    gate::HookRequest req;
    req.input.payload = std::move(extra);
    req.input.payload["hook_event_name"] = event;
    req.input.payload["tool_name"] = "mcp__" + server + "__act";
    req.input.payload["cwd"] = folder.string();
    if (explicit_config) req.overrides.config_paths = {config};
    gate::HookDeps deps{clock, env, prober, runner, [this](std::string_view l) { lines.emplace_back(l); }, {},
                        [this](const std::string&, const std::vector<std::string>& s, gate::Refreshing why) {
                          (why == gate::Refreshing::stale ? refreshes : looks).push_back(s);
                        },
                        trace};
    deps.files = files ? files : &disk;
    deps.store = &store;
    return gate::run_hook_engine(req, deps);
  }

  /// The `-v` trace of the next runs; a test uses it to act at a known step of the decision.
  std::function<void(std::string_view)> trace;
  /// What reads the files in the next runs (nothing: `disk`); a test records through it what a decision looked at.
  util::FileReader* files = nullptr;
  /// Whether the config file is given (`--config`), or searched for as Claude Code does.
  bool explicit_config = true;

  state::ServerEntry entry(const std::string& name = "svc") const {
    const json::object* e = store.server(name);
    return e ? state::ServerEntry::from_json(*e) : state::ServerEntry{};
  }
  bool entry_exists(const std::string& name = "svc") const { return store.server(name) != nullptr; }
  /// Whether the runs so far wrote nothing: no verdict, no binding.
  bool wrote_nothing() const { return store.updates == 0 && store.binds == 0; }
  bool logged(const std::string& text) const {
    for (const auto& l : lines) {
      if (l.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

} // namespace

TEST_CASE("a fresh healthy entry allows without probing: an expired one probes again (inline)", "[engine]") {
  Harness h;
  h.env.set("MCPHEALTH_REFRESH", "inline");
  CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
  CHECK(h.prober.calls == 1);
  h.clock.advance(119'000);
  h.run("PreToolUse");
  CHECK(h.prober.calls == 1);
  CHECK(h.lines.empty());
  h.clock.advance(2'000);
  h.run("PreToolUse");
  CHECK(h.prober.calls == 2);
}

TEST_CASE("a failed probe blocks, then the backoff gates without probing", "[engine]") {
  Harness h;
  h.prober.results = {FakeProber::down("boom")};
  auto out = h.run("PreToolUse");
  CHECK(out.decision == hook::HookOutcome::Decision::block);
  // The JS hook's line on stderr; the designed text for the model.
  CHECK(h.logged("svc is unavailable (boom). Blocking act so Claude can fall back to non-MCP tools."));
  CHECK(out.reason ==
        std::string(hook::messages::k_block_lead) +
            hook::messages::blocked_after_probe({"svc", "act", "boom", state::FailureCode::transport(), 30'000}));
  CHECK(h.entry().next_retry_at == h.clock.now_ms() + 30'000);
  h.clock.advance(29'000);
  auto gated = h.run("PreToolUse");
  CHECK(gated.decision == hook::HookOutcome::Decision::block);
  CHECK(h.logged("svc is marked unhealthy until"));
  CHECK(gated.reason == std::string(hook::messages::k_block_lead) +
                            hook::messages::blocked_from_cache(
                                {"svc", "act", "boom", state::FailureCode::transport(), 1'000, 29'000, 1}));
  CHECK(h.prober.calls == 1);
  h.clock.advance(2'000);
  h.run("PreToolUse");
  CHECK(h.prober.calls == 2);
  CHECK(h.entry().failure_count == 2);
  CHECK(*h.entry().next_retry_at - *h.entry().checked_at == 60'000);
}

TEST_CASE("a call blocked long after the last look asks for a look again, which no reconnect follows", "[engine]") {
  Harness h;
  h.env.set("ECC_MCP_RECONNECT_COMMAND", "pm2 restart {server}");
  h.prober.results = {FakeProber::down("boom")};
  h.run("PreToolUse"); // down: a 30 s backoff (and its reconnect, which fails to help)
  const std::size_t restarts = h.runner.commands.size();
  h.clock.advance(5'000);
  CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::block);
  CHECK(h.looks.empty()); // looked at 5 s ago: within the base backoff's 10 s bound
  h.clock.advance(6'000);
  CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::block);
  CHECK(h.looks == std::vector<std::vector<std::string>>{{"svc"}}); // in the background, for the next call
  SECTION("refreshes inline: the call waits for the look, and is allowed when the server is back") {
    h.env.set("MCPHEALTH_REFRESH", "inline");
    h.prober.results = {FakeProber::healthy()};
    CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
    CHECK(h.logged("svc connection restored"));
    CHECK(h.runner.commands.size() == restarts); // a look runs no reconnect: the backoff paces restarts
  }
  SECTION("a look that finds it still down keeps its backoff") {
    h.env.set("MCPHEALTH_REFRESH", "inline");
    const util::EpochMs retry = *h.entry().next_retry_at;
    CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::block);
    CHECK(*h.entry().next_retry_at == retry);
    CHECK(h.entry().failure_count == 1);
    CHECK(h.runner.commands.size() == restarts);
  }
}

TEST_CASE("a crash loop and a rate limit are not looked at before their backoff ends", "[engine]") {
  Harness h;
  h.env.set("MCPHEALTH_REFRESH", "inline");
  h.prober.results = {FakeProber::down("slow down", state::FailureCode::http(429))};
  h.run("PreToolUse");
  h.clock.advance(20'000);
  const int probes = h.prober.calls;
  CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::block); // a look would spend the rate limit
  CHECK(h.prober.calls == probes);
  json::object e;
  state::mark_unhealthy(e, {.now = h.clock.now_ms(), .error = "Connection closed", .code = state::FailureCode::transport(),
                            .backoff_ms = 30'000, .max_backoff_ms = 600'000, .failed_calls = 2, .failed_tool = "act"});
  const state::ServerEntry loop = state::ServerEntry::from_json(e);
  CHECK(gate::fails_on_calls(loop));
  CHECK_FALSE(gate::worth_a_look(loop)); // its handshake passes: a look would clear a mark its calls earned
}

TEST_CASE("a server found down is reconnected, and a good re-probe restores it", "[engine]") {
  Harness h;
  h.env.set("ECC_MCP_RECONNECT_COMMAND", "pm2 restart {server}");
  h.prober.results = {FakeProber::down("boom"), FakeProber::healthy()};
  auto out = h.run("PreToolUse");
  CHECK(out.decision == hook::HookOutcome::Decision::allow);
  // The name reaches the command only through MCPHEALTH_SERVER, never in its text.
  CHECK(h.runner.commands == std::vector<std::string>{"pm2 restart \"${MCPHEALTH_SERVER}\""});
  CHECK(h.runner.servers == std::vector<std::string>{"svc"});
  CHECK(h.entry().restored_by == state::RestoredBy::reconnect_command);
  CHECK(h.logged("svc connection restored after reconnect"));
}

TEST_CASE("a probe failure with a code reconnects at once, but never after a 429", "[engine]") {
  Harness h;
  h.env.set("ECC_MCP_RECONNECT_COMMAND", "restart");
  h.runner.result = FakeRunner::failing("nope");
  h.prober.results = {FakeProber::down("HTTP 503", state::FailureCode::http(503))};
  auto out = h.run("PreToolUse");
  CHECK(h.runner.commands.size() == 1);
  CHECK(h.logged("Reconnect attempt: nope."));
  CHECK(out.reason.find("Restarting it (its reconnect command) did not help.") != std::string::npos);
  h.clock.advance(31'000);
  h.prober.results = {FakeProber::down("HTTP 429", state::FailureCode::http(429))};
  h.run("PreToolUse");
  CHECK(h.runner.commands.size() == 1);
}

TEST_CASE("fail-open logs the block but allows", "[engine]") {
  Harness h;
  h.env.set("ECC_MCP_HEALTH_FAIL_OPEN", "TRUE");
  h.prober.results = {FakeProber::down("boom")};
  auto out = h.run("PreToolUse");
  CHECK(out.decision == hook::HookOutcome::Decision::allow);
  CHECK(h.logged("svc is unavailable (boom)"));
}

TEST_CASE("the client's own framing of a failure marks the server down and tells the model until when", "[engine]") {
  Harness h;
  auto out = h.run("PostToolUseFailure", "svc", {{"error", "MCP error -32000: Connection closed"}});
  CHECK(out.decision == hook::HookOutcome::Decision::allow);
  CHECK(h.prober.calls == 0); // the client's framing is proof: nothing to ask
  CHECK(h.entry().unhealthy());
  CHECK(h.entry().last_failure_code == state::FailureCode::transport());
  REQUIRE(out.additional_context);
  CHECK(*out.additional_context == hook::messages::failed_and_marked_down({"svc", "", "MCP error -32000: Connection closed",
                                                                           state::FailureCode::transport(), 30'000}));
  CHECK(h.logged("svc reported transport; marking server unhealthy and attempting reconnect")); // the JS hook's lines
  CHECK(h.logged("svc reconnect skipped: no reconnect command configured"));
}

TEST_CASE("a tool's own words of an outage do not mark a server that answers when asked: one is noted", "[engine]") {
  for (const std::string text : {"503 Service Unavailable", "upstream said: Connection closed", "socket hang up",
                                 "fetching the issue: ECONNREFUSED 10.0.0.1:443"}) {
    INFO(text);
    Harness h;
    auto out = h.run("PostToolUseFailure", "svc", {{"error", text}});
    CHECK(out.decision == hook::HookOutcome::Decision::allow);
    CHECK(h.prober.calls == 1);
    CHECK_FALSE(h.entry().unhealthy());
    CHECK(h.entry().failed_calls == 1);
    CHECK(h.entry().upstream);
    CHECK_FALSE(out.additional_context);
    CHECK(h.logged("one failure proves nothing; a second in a row blocks it"));
  }
}

TEST_CASE("the second upstream error in a row blocks the server as an upstream outage, in fixed words", "[engine]") {
  Harness h;
  h.run("PostToolUseFailure", "svc", {{"error", "upstream API: 503 Service Unavailable (see https://status.example)"}});
  REQUIRE_FALSE(h.entry().unhealthy());
  auto out = h.run("PostToolUseFailure", "svc", {{"error", "upstream API: 503 Service Unavailable (see https://status.example)"}});
  CHECK(h.entry().unhealthy());
  CHECK(h.entry().upstream);
  CHECK(h.entry().failed_calls == 2);
  CHECK(h.entry().last_error == "its last 2 calls failed with an upstream error (HTTP 503)");
  CHECK(h.entry().last_failure_code == state::FailureCode::http(503));
  REQUIRE(out.additional_context);
  CHECK(out.additional_context->find("status.example") == std::string::npos); // never the tool's own text
  CHECK(out.additional_context->find("what it depends on fails") != std::string::npos);
  CHECK(h.logged("svc reconnect skipped: it answers, and what it depends on fails"));
  // Blocked now; a success ends the row.
  auto pre = h.run("PreToolUse", "svc");
  CHECK(pre.decision == hook::HookOutcome::Decision::block);
  CHECK(pre.reason.find("what it depends on fails") != std::string::npos);
}

TEST_CASE("a success between two upstream errors ends the row: nothing is blocked", "[engine]") {
  Harness h;
  h.run("PostToolUseFailure", "svc", {{"error", "503 Service Unavailable"}});
  h.run("PostToolUse", "svc");
  h.run("PostToolUseFailure", "svc", {{"error", "503 Service Unavailable"}});
  CHECK_FALSE(h.entry().unhealthy());
  CHECK(h.entry().failed_calls == 1);
}

TEST_CASE("a 429 whose text gives a retry time is held to it, never past the look cap", "[engine]") {
  for (const auto& [text, wait] : std::vector<std::pair<std::string, std::int64_t>>{
           {"429 Too Many Requests, retry after 45 seconds", 45'000},
           {"429 Too Many Requests; Retry-After: 86400", 600'000}}) {
    INFO(text);
    Harness h;
    h.run("PostToolUseFailure", "svc", {{"error", text}});
    h.run("PostToolUseFailure", "svc", {{"error", text}});
    REQUIRE(h.entry().unhealthy());
    CHECK(*h.entry().next_retry_at - *h.entry().checked_at == wait);
  }
}

TEST_CASE("a tool's words of an outage are confirmed by a probe, and the probe's reason is what is kept", "[engine]") {
  Harness h;
  h.prober.results = {FakeProber::down("process exited before handshake (exit 1)")};
  auto out = h.run("PostToolUseFailure", "svc", {{"error", "503 Service Unavailable: ghp_0123456789abcdefABCDEF"}});
  CHECK(h.prober.calls == 1);
  CHECK(h.entry().unhealthy());
  CHECK(h.entry().last_error == "process exited before handshake (exit 1)");
  REQUIRE(out.additional_context);
  CHECK(out.additional_context->find("503 Service Unavailable") == std::string::npos);
}

TEST_CASE("a tool's words of an outage mark nothing when the server cannot be asked: one is noted", "[engine]") {
  Harness h;
  h.prober.results = {probe::local_fault("spawn", EMFILE)};
  auto out = h.run("PostToolUseFailure", "svc", {{"error", "ECONNREFUSED"}});
  CHECK_FALSE(h.entry().unhealthy());
  CHECK(h.logged("svc failed with an upstream error (transport) in its tool's own words, and answered a probe right after"));
}

TEST_CASE("a tool's words that are no outage (401) mark nothing when the server cannot be asked", "[engine]") {
  Harness h;
  h.prober.results = {probe::local_fault("spawn", EMFILE)};
  auto out = h.run("PostToolUseFailure", "svc", {{"error", "the API said 401 Unauthorized"}});
  CHECK_FALSE(h.entry_exists());
  CHECK(h.logged("svc failed with words that may be the tool's own (401), and the server could not be asked ("));
}

TEST_CASE("a successful call restores an unhealthy server", "[engine]") {
  Harness h;
  h.run("PostToolUseFailure", "svc", {{"error", "MCP error -32000: Connection closed"}});
  REQUIRE(h.entry().unhealthy());
  h.run("PostToolUse");
  CHECK(h.entry().healthy());
  CHECK(h.entry().restored_by == state::RestoredBy::tool_success);
}

/// The one folder's bindings, as the runs left them.
json::object bound_folder(const Harness& h) {
  REQUIRE(h.store.folders.size() == 1);
  return h.store.folders.begin()->second;
}
json::object bound_names(const Harness& h) { return bound_folder(h).at("names").as_object(); }

TEST_CASE("a name without definition is allowed, not probed, and bound as such for the folder", "[engine]") {
  Harness h;
  h.run("PreToolUse", "ghost");
  CHECK(h.logged("No MCP config found for ghost; skipping preflight probe"));
  CHECK(bound_names(h).at("ghost").at("standing") == "none");
  CHECK(bound_names(h).at("svc").as_object().contains("definition"));
  CHECK(h.prober.calls == 0);
}

TEST_CASE("a changed config file undoes the folder's bindings", "[engine]") {
  Harness h;
  h.run("PreToolUse", "ghost");
  CHECK(h.prober.calls == 0);
  // Same size, later mtime would do; a new definition makes the change visible in the result too.
  h.disk.write(h.config, R"({"mcpServers":{"svc":{"command":"/bin/true"},"ghost":{"command":"/bin/true"}}})");
  h.run("PreToolUse", "ghost");
  CHECK(h.prober.calls == 1);
  CHECK(bound_names(h).at("ghost").as_object().contains("definition"));
}

TEST_CASE("a cache hit needs no config file: a bound name is decided from the state file alone", "[engine]") {
  Harness h;
  h.run("PreToolUse");
  CHECK(h.prober.calls == 1);
  const auto stamp = [&] {
    return std::string(bound_folder(h).at("stamp").as_string());
  };
  const auto before = stamp();
  h.run("PreToolUse");
  CHECK(h.prober.calls == 1);
  CHECK(stamp() == before);
}

TEST_CASE("an unset variable is probed as Claude Code starts it: a failure is misconfigured and a success healthy", "[engine]") {
  const auto uses_unset_key = [](Harness& harness) {
    harness.disk.write(harness.config, R"({"mcpServers":{"svc":{"command":"/bin/true","args":["${NO_SUCH_KEY}"]}}})");
  };
  Harness h;
  uses_unset_key(h);
  h.prober.results.clear();
  h.prober.results.push_back(FakeProber::down("Error: invalid API key"));
  auto out = h.run("PreToolUse");
  CHECK(h.prober.calls == 1);
  CHECK(out.decision == hook::HookOutcome::Decision::block);
  CHECK(h.logged("misconfigured: ${NO_SUCH_KEY} is not set (Error: invalid API key)"));
  CHECK(out.reason ==
        std::string(hook::messages::k_block_lead) + hook::messages::blocked_misconfigured("svc", "act", "NO_SUCH_KEY"));
  CHECK(h.entry().unhealthy());
  CHECK(h.runner.commands.empty()); // a restart would not set the variable

  Harness fine;
  uses_unset_key(fine);
  CHECK(fine.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
  CHECK(fine.entry().healthy());
}

TEST_CASE("other events and non-MCP tools pass silently", "[engine]") {
  Harness h;
  CHECK(h.run("Notification").decision == hook::HookOutcome::Decision::allow);
  CHECK(h.lines.empty());
  CHECK(h.wrote_nothing());
}

TEST_CASE("a mark expired by less than one TTL is allowed at once and refreshed in the background", "[engine]") {
  Harness h;
  h.run("PreToolUse");
  REQUIRE(h.prober.calls == 1);
  h.clock.advance(120'000 + 60'000); // expired one minute ago, TTL two minutes
  CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
  CHECK(h.prober.calls == 1);
  CHECK(h.refreshes == std::vector<std::vector<std::string>>{{"svc"}});
}

TEST_CASE("a mark expired by more than one TTL, or MCPHEALTH_REFRESH=inline, waits for the probe", "[engine]") {
  Harness h;
  h.run("PreToolUse");
  h.clock.advance(120'000 + 121'000);
  h.run("PreToolUse");
  CHECK(h.prober.calls == 2);
  CHECK(h.refreshes.empty());
  h.env.set("MCPHEALTH_REFRESH", "inline");
  h.clock.advance(120'000 + 1'000);
  h.run("PreToolUse");
  CHECK(h.prober.calls == 3);
  CHECK(h.refreshes.empty());
}

TEST_CASE("a hook that read the state before another's probe finished does not probe again", "[engine]") {
  // Hook B reads the state file (nothing cached), then hook A probes, records and releases the probe lock before B
  // asks for it: B takes the lock at once, without waiting, and must still see A's verdict rather than probe again.
  Harness h;
  h.prober.results = {FakeProber::down("boom")};
  bool other_ran = false;
  h.trace = [&](std::string_view step) {
    if (other_ran || step.find("reading the configs") == std::string_view::npos) return;
    other_ran = true; // hook A's own steps pass through here and do nothing
    CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::block); // hook A, start to end
  };
  const auto out = h.run("PreToolUse"); // hook B
  REQUIRE(other_ran);
  CHECK(out.decision == hook::HookOutcome::Decision::block);
  CHECK(h.prober.calls == 1);
  CHECK(h.entry().failure_count == 1);
}

TEST_CASE("session start refreshes what is missing or stale and names what is down", "[engine]") {
  Harness h;
  h.disk.write(
      h.config,
      R"({"mcpServers":{"svc":{"command":"/bin/true"},"bad":{"command":"/bin/false"},"new":{"command":"/bin/true"}}})");
  h.prober.results = {FakeProber::down("boom")};
  h.run("PreToolUse", "bad");
  h.prober.results = {FakeProber::healthy()};
  h.run("PreToolUse", "svc");
  h.clock.advance(10'000); // bad is in its 30 s backoff, svc fresh, new never checked
  auto out = h.run("SessionStart", "none");
  REQUIRE(h.refreshes.size() == 1);
  CHECK(h.refreshes[0] == std::vector<std::string>{"new"});
  REQUIRE(out.additional_context);
  hook::messages::Client claude_code;
  claude_code.down_at_start = hook::messages::Client::AtStart::drops_for_the_session;
  CHECK(*out.additional_context ==
        hook::messages::session_start({{"bad", hook::messages::SessionNote::Kind::down, "boom", 20'000}}, claude_code));
  CHECK(out.decision == hook::HookOutcome::Decision::allow);
}

namespace {
/// A harness whose `svc` is a remote (Streamable HTTP) definition, with nothing queued for the prober yet.
void make_remote(Harness& h) {
  h.disk.write(h.config, R"({"mcpServers":{"svc":{"type":"http","url":"http://127.0.0.1:9/mcp"}}})");
  h.prober.results.clear();
}
json::object failure(const std::string& error) { return json::object{{"error", error}}; }
probe::ProbeResult refused_with(int status, std::optional<std::int64_t> retry_after = std::nullopt) {
  probe::ProbeResult r;
  r.kind = probe::Kind::http_status;
  r.http_status = status;
  r.reason = "HTTP " + std::to_string(status);
  if (status == 429 || status == 503) r.code = state::FailureCode::http(status);
  r.retry_after_ms = retry_after;
  return r;
}
} // namespace

TEST_CASE("Claude Code's statusless HTTP failure is probed, and the server's own status and Retry-After are marked", "[engine]") {
  Harness h;
  make_remote(h);
  h.prober.results.push_back(refused_with(429, 45'000));
  h.run("PostToolUseFailure", "svc", failure("Streamable HTTP error: Error POSTing to endpoint: {\"error\":\"slow down\"}"));
  CHECK(h.prober.calls == 1);
  const state::ServerEntry e = h.entry();
  CHECK(e.unhealthy());
  CHECK(e.last_failure_code == state::FailureCode::http(429));
  CHECK(*e.next_retry_at - *e.checked_at == 45'000);
}

TEST_CASE("a 403 the probe meets after a statusless failure is the refusal the client met", "[engine]") {
  Harness h;
  make_remote(h);
  probe::ProbeResult reachable;
  reachable.ok = true;
  reachable.kind = probe::Kind::reachable;
  reachable.http_status = 403;
  h.prober.results.push_back(reachable);
  h.run("PostToolUseFailure", "svc", failure("Streamable HTTP error: Error POSTing to endpoint:"));
  CHECK(h.entry().last_failure_code == state::FailureCode::http(403));
}

TEST_CASE("a remote server that answers the probe after a failed call is not marked", "[engine]") {
  Harness h;
  make_remote(h);
  h.prober.results.push_back(FakeProber::healthy());
  h.run("PostToolUseFailure", "svc", failure("Streamable HTTP error: Error POSTing to endpoint:"));
  CHECK(h.prober.calls == 1);
  CHECK_FALSE(h.entry().unhealthy());
  CHECK(h.logged("answered a probe right after"));
}

TEST_CASE("an expired OAuth token: the probe's 401 carries the text the client showed, so the server needs auth", "[engine]") {
  Harness h;
  make_remote(h);
  probe::ProbeResult auth;
  auth.ok = true;
  auth.kind = probe::Kind::needs_auth;
  auth.http_status = 401;
  auth.auth_error = "The access token expired";
  h.prober.results.push_back(auth);
  const hook::HookOutcome out = h.run("PostToolUseFailure", "svc", failure("The access token expired"));
  CHECK(h.entry().last_failure_code == state::FailureCode::http(401));
  REQUIRE(out.additional_context);
  CHECK(out.additional_context->find("/mcp") != std::string::npos);
  // Any other tool error of an OAuth server: the probe's 401 only says the probe had no token.
  Harness other;
  make_remote(other);
  other.prober.results.push_back(auth);
  other.run("PostToolUseFailure", "svc", failure("no such issue: #4711"));
  CHECK_FALSE(other.entry().unhealthy());
}

TEST_CASE("a stdio server's tool error without a sign of trouble is neither probed nor marked", "[engine]") {
  Harness h;
  h.prober.results.clear();
  h.run("PostToolUseFailure", "svc", failure("MCP error -32603: fixture backend exploded"));
  CHECK(h.prober.calls == 0);
  CHECK(h.wrote_nothing());
}

TEST_CASE("failures of calls that began before the mark are its outage: counted once", "[engine]") {
  Harness h;
  json::object p = failure("MCP error -32000: Connection closed");
  p["duration_ms"] = 3000;
  h.run("PostToolUseFailure", "svc", p);
  h.clock.advance(50);
  h.run("PostToolUseFailure", "svc", p);
  CHECK(h.entry().failure_count == 1);
  h.clock.advance(31'000);
  p["duration_ms"] = 10;
  h.run("PostToolUseFailure", "svc", p);
  CHECK(h.entry().failure_count == 2);
}

TEST_CASE("a cache hit reads no config file: it only stats the files its folder was bound from", "[engine]") {
  for (const bool given : {true, false}) {
    Harness h;
    h.explicit_config = given;
    // Searched for: the folder's .mcp.json (approved in the user's settings), and a policy file the slow path reads.
    h.disk.write(h.folder / ".mcp.json", R"({"mcpServers":{"svc":{"command":"/bin/true"}}})");
    h.disk.write("/mem/home/.claude/settings.json", R"({"enableAllProjectMcpServers":true})");
    h.disk.write("/mem/policy.json", R"({"servers":{"svc":{"ttlMs":60000}}})");
    h.env.set("MCPHEALTH_POLICY", "/mem/policy.json");
    util::RecordingReader slow(h.disk);
    h.files = &slow;
    REQUIRE(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
    REQUIRE(h.prober.calls == 1);
    CHECK_FALSE(slow.reads().empty());
    util::RecordingReader hit(h.disk);
    h.files = &hit;
    CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
    CHECK(h.prober.calls == 1);
    CHECK(hit.reads().empty());
    // What it stats is what the resolution looked at, misses included: nothing more.
    std::vector<std::filesystem::path> resolved = slow.paths();
    resolved.erase(std::remove(resolved.begin(), resolved.end(), "/mem/policy.json"), resolved.end());
    CHECK(hit.paths() == resolved);
  }
}

TEST_CASE("a cache hit reads no config file and writes nothing, and a miss probes, binds and records", "[engine]") {
  Harness h;
  REQUIRE(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
  CHECK(h.prober.calls == 1);
  REQUIRE(h.entry_exists());
  CHECK(h.entry().healthy());
  CHECK(h.store.binds == 1); // the folder's bindings
  CHECK(h.store.updates >= 1); // the verdict
  CHECK_FALSE(h.disk.read_paths.empty());

  const int updates = h.store.updates;
  h.disk.read_paths.clear();
  h.clock.advance(1000);
  CHECK(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
  CHECK(h.prober.calls == 1);
  CHECK(h.store.updates == updates);
  CHECK(h.disk.read_paths.empty());
  CHECK(h.lines.empty());
}

TEST_CASE("a healthy mark past half its TTL is extended once by a successful call", "[engine]") {
  Harness h;
  REQUIRE(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
  const util::EpochMs first_expiry = *h.entry().expires_at;
  const int updates = h.store.updates;

  h.clock.advance(config::k_default_ttl_ms / 2 - 1000); // not yet half-way: nothing written
  h.run("PostToolUse");
  CHECK(h.store.updates == updates);
  CHECK(*h.entry().expires_at == first_expiry);

  h.clock.advance(2000); // past half its TTL: extended from now
  h.run("PostToolUse");
  CHECK(h.store.updates == updates + 1);
  CHECK(*h.entry().expires_at == h.clock.now_ms() + config::k_default_ttl_ms);

  h.clock.advance(1000); // extended once: the next success writes nothing
  h.run("PostToolUse");
  CHECK(h.store.updates == updates + 1);
}

TEST_CASE("a failure mark that cannot be written tells the model nothing will block the next call", "[engine]") {
  Harness h;
  REQUIRE(h.run("PreToolUse").decision == hook::HookOutcome::Decision::allow);
  h.store.failing = state::UpdateError{state::UpdateFailure::lock_timeout, "state lock held"};
  h.prober.results = {FakeProber::down("connection refused")}; // the reconnect's re-probe finds it still down
  const hook::HookOutcome out = h.run("PostToolUseFailure", "svc", {{"error", "MCP error -32000: Connection closed"}});
  CHECK(out.decision == hook::HookOutcome::Decision::allow);
  REQUIRE(out.additional_context);
  CHECK(out.additional_context->find("Give it a few minutes") != std::string::npos);
  CHECK(h.entry().healthy()); // nothing was recorded
  CHECK(std::any_of(h.lines.begin(), h.lines.end(), [](const std::string& l) { return l == "state lock held"; }));
}

} // namespace test_engine
