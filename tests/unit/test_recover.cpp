// The one recovery policy on fakes: probe, reconnect when down (never after a 429), re-probe.
#include "fakes.hpp"

#include <mcphealth/recover/recover.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using testing::FakeProber;
using testing::FakeRunner;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_recover {
namespace {

struct Case {
  FakeProber prober;
  FakeRunner runner;
  util::MapEnvironment env{{"ECC_MCP_RECONNECT_COMMAND", "pm2 restart {server}"}};
  config::ResolvedServer server;
  recover::RecoveryRequest request() {
    recover::RecoveryRequest r;
    r.name = "svc";
    r.server = &server;
    r.reconnect_timeout_ms = 1000;
    return r;
  }
};

} // namespace

TEST_CASE("a healthy server is probed once and nothing runs", "[recover]") {
  Case c;
  c.prober.results = {FakeProber::healthy()};
  const recover::Recovery r = recover::check_and_recover(c.request(), c.prober, c.runner, c.env);
  CHECK(r.result.ok);
  CHECK(c.prober.calls == 1);
  CHECK(c.runner.commands.empty());
  CHECK(r.reconnect.attempt == recover::Attempt::none);
}

TEST_CASE("a server found down gets the reconnect command and a re-probe that can restore it", "[recover]") {
  Case c;
  c.prober.results = {FakeProber::down("boom"), FakeProber::healthy()};
  const recover::Recovery r = recover::check_and_recover(c.request(), c.prober, c.runner, c.env);
  CHECK(r.result.ok);
  CHECK(r.restored_by == state::RestoredBy::reconnect_command);
  CHECK(c.runner.commands.size() == 1);
  CHECK(c.runner.servers == std::vector<std::string>{"svc"});
  CHECK(c.prober.calls == 2);
}

TEST_CASE("after a 429 no reconnect runs", "[recover]") {
  Case c;
  c.prober.results = {FakeProber::down("slow down", state::FailureCode::http(429))};
  const recover::Recovery r = recover::check_and_recover(c.request(), c.prober, c.runner, c.env);
  CHECK_FALSE(r.result.ok);
  CHECK(r.reconnect.attempt == recover::Attempt::not_for_this_kind);
  CHECK(c.runner.commands.empty());
}

TEST_CASE("a failed reconnect keeps the server down and says why", "[recover]") {
  Case c;
  c.prober.results = {FakeProber::down("boom")};
  c.runner.result = FakeRunner::failing("pm2: no such process");
  const recover::Recovery r = recover::check_and_recover(c.request(), c.prober, c.runner, c.env);
  CHECK_FALSE(r.result.ok);
  CHECK(r.reconnect.attempt == recover::Attempt::failed);
  CHECK(recover::describe(r.reconnect).find("pm2: no such process") != std::string::npos);
  CHECK(c.prober.calls == 1);
}

TEST_CASE("without a command nothing runs, and the policy's command wins over the environment's", "[recover]") {
  Case c;
  c.env = util::MapEnvironment{};
  c.prober.results = {FakeProber::down("boom")};
  CHECK(recover::check_and_recover(c.request(), c.prober, c.runner, c.env).reconnect.attempt == recover::Attempt::no_command);
  config::Settings s = config::resolve_settings(util::MapEnvironment{{"HOME", "/h"}}, {});
  const util::MapEnvironment env{{"ECC_MCP_RECONNECT_COMMAND", "from-env"}};
  CHECK(recover::reconnect_command_for(s, "svc", env)->command == "from-env");
  s.reconnect.value = config::ReconnectSpec{{}, "from-policy"};
  CHECK(recover::reconnect_command_for(s, "svc", env)->command == "from-policy");
}

TEST_CASE("a server known down gets the reconnect first and one probe after it", "[recover]") {
  Case c;
  recover::RecoveryRequest r = c.request();
  r.known_down = true;
  SECTION("the reconnect brings it back: one probe, where probing first cost two") {
    c.prober.results = {FakeProber::healthy()};
    const recover::Recovery out = recover::check_and_recover(r, c.prober, c.runner, c.env);
    CHECK(out.result.ok);
    CHECK(out.restored_by == state::RestoredBy::reconnect_command);
    CHECK(c.runner.commands.size() == 1);
    CHECK(c.prober.calls == 1);
  }
  SECTION("still down after it: one probe, its reason said as the re-probe's") {
    c.prober.results = {FakeProber::down("boom")};
    const recover::Recovery out = recover::check_and_recover(r, c.prober, c.runner, c.env);
    CHECK_FALSE(out.result.ok);
    CHECK(out.result.reason == "reconnect reprobe failed: boom");
    CHECK(c.prober.calls == 1);
  }
  SECTION("no reconnect runs (none configured, or it fails): the probe alone") {
    c.prober.results = {FakeProber::healthy()};
    c.runner.result = FakeRunner::failing("pm2: no such process");
    const recover::Recovery out = recover::check_and_recover(r, c.prober, c.runner, c.env);
    CHECK(out.result.ok);
    CHECK(out.reconnect.attempt == recover::Attempt::failed);
    CHECK_FALSE(out.restored_by);
    CHECK(c.prober.calls == 1);
  }
  SECTION("after a 429 still no reconnect") {
    r.previous_code = state::FailureCode::http(429);
    c.prober.results = {FakeProber::down("slow down", state::FailureCode::http(429))};
    const recover::Recovery out = recover::check_and_recover(r, c.prober, c.runner, c.env);
    CHECK(out.reconnect.attempt == recover::Attempt::not_for_this_kind);
    CHECK(c.runner.commands.empty());
    CHECK(c.prober.calls == 1);
  }
}

TEST_CASE("a reconnect asked for no re-probe runs the command and probes nothing", "[recover]") {
  Case c;
  recover::RecoveryRequest r = c.request();
  r.reprobe = false;
  const recover::ReconnectReport out =
      recover::reconnect_and_reprobe(r, state::FailureCode::transport(), c.prober, c.runner, c.env);
  CHECK(out.attempt == recover::Attempt::ok);
  CHECK_FALSE(out.reprobe);
  CHECK(c.runner.commands.size() == 1);
  CHECK(c.prober.calls == 0);
}

} // namespace test_recover
