#include "fakes.hpp"

#include <mcphealth/ops/doctor.hpp>
#include <mcphealth/ops/report.hpp>
#include <mcphealth/state/history.hpp>
#include <mcphealth/state/store.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <ctime>

#include <fstream>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_history {
namespace {
json::object doc_with(std::initializer_list<std::pair<const char*, const char*>> statuses) {
  json::object servers;
  for (const auto& [name, status] : statuses) servers[name] = json::object{{"status", status}, {"updatedBy", "probe"}};
  return {{"servers", std::move(servers)}};
}
} // namespace

TEST_CASE("transitions name a server that went down, came back, or was forgotten while down", "[history]") {
  const json::object before = doc_with({{"a", "healthy"}, {"b", "unhealthy"}, {"c", "unhealthy"}, {"d", "healthy"}});
  json::object after = doc_with({{"a", "unhealthy"}, {"b", "healthy"}, {"d", "healthy"}, {"e", "healthy"}});
  after["servers"].as_object()["a"].as_object()["lastError"] = "connect ECONNREFUSED";
  const auto t = state::transitions(before, after, 42);
  REQUIRE(t.size() == 3);
  CHECK(t[0].server == "a");
  CHECK(t[0].kind == state::HistoryKind::down);
  CHECK(t[0].text == "connect ECONNREFUSED");
  CHECK(t[0].by == "probe");
  CHECK(t[1].server == "b");
  CHECK(t[1].kind == state::HistoryKind::up);
  CHECK(t[2].server == "c");
  CHECK(t[2].kind == state::HistoryKind::forgotten);
  // Healthy from nothing (e) and healthy again (d) are no transitions.
}

TEST_CASE("transitions follow each definition's verdict, not the mirror two servers of one name share", "[history]") {
  const auto verdict = [](const char* status, const char* project) {
    return json::object{{"status", status}, {"updatedBy", "hook"}, {"toolName", "db"}, {"scope", "project"},
                        {"project", project}};
  };
  // proj-b's db is down; proj-a's comes up, and the mirror `servers.db` follows the last write: proj-a's.
  const json::object before{{"servers", {{"db", {{"status", "unhealthy"}, {"definition", "fpB"}}}}},
                            {"definitions", {{"fpB", verdict("unhealthy", "/w/proj-b")}}}};
  const json::object after{
      {"servers", {{"db", {{"status", "healthy"}, {"definition", "fpA"}}}}},
      {"definitions", {{"fpB", verdict("unhealthy", "/w/proj-b")}, {"fpA", verdict("healthy", "/w/proj-a")}}}};
  CHECK(state::transitions(before, after, 5).empty()); // proj-b's db did not come back; proj-a's never went down
  json::object worse = after;
  worse["definitions"].as_object()["fpA"] = verdict("unhealthy", "/w/proj-a");
  const auto t = state::transitions(after, worse, 6);
  REQUIRE(t.size() == 1);
  CHECK(t[0].kind == state::HistoryKind::down);
  CHECK(t[0].server == "db");
  CHECK(t[0].definition == "fpA");
  CHECK(t[0].project == "/w/proj-a");
  CHECK(t[0].scope == "project");
  // A mirror without a definition (the JS hook's write) is a transition of its own.
  json::object js = worse;
  js["servers"].as_object()["notes"] = json::object{{"status", "unhealthy"}};
  const auto u = state::transitions(worse, js, 7);
  REQUIRE(u.size() == 1);
  CHECK(u[0].server == "notes");
  CHECK_FALSE(u[0].definition);
  // A verdict removed while down was forgotten (reset).
  json::object reset = js;
  reset["definitions"].as_object().erase("fpB");
  const auto v = state::transitions(js, reset, 8);
  REQUIRE(v.size() == 1);
  CHECK(v[0].kind == state::HistoryKind::forgotten);
  CHECK(v[0].definition == "fpB");
  // A line keeps its definition through the file.
  CHECK(state::HistoryEvent::from_json(t[0].to_json())->project == "/w/proj-a");
}

TEST_CASE("report tells two servers of one name apart and keeps a line without a definition with the only one",
          "[report]") {
  using K = state::HistoryKind;
  const std::optional<std::string> a = "fpA", b = "fpB";
  state::History h;
  h.events = {
      {.at = 10, .kind = K::down, .server = "db", .definition = b, .scope = "project", .project = "/w/proj-b"},
      {.at = 11, .kind = K::blocked, .server = "db", .definition = b, .project = "/w/proj-b"},
      {.at = 20, .kind = K::down, .server = "db", .definition = a, .scope = "project", .project = "/w/proj-a"},
      {.at = 30, .kind = K::up, .server = "db", .definition = a, .scope = "project", .project = "/w/proj-a"},
      // Written before definitions were kept: with notes' one definition.
      {.at = 40, .kind = K::down, .server = "notes"},
      {.at = 50, .kind = K::up, .server = "notes", .definition = "fpN", .scope = "user"},
  };
  const ops::Report r = ops::build_report(h, 0, 100);
  REQUIRE(r.servers.size() == 3);
  CHECK(r.still_down == 1);
  const auto& proj_a = r.servers[0].definition == a ? r.servers[0] : r.servers[1];
  const auto& proj_b = r.servers[0].definition == b ? r.servers[0] : r.servers[1];
  CHECK(proj_a.name == "db (proj-a)");
  CHECK_FALSE(proj_a.still_down());
  CHECK(proj_b.name == "db (proj-b)");
  CHECK(proj_b.still_down());
  CHECK(proj_b.blocked == 1);
  CHECK(r.servers[2].name == "notes");
  REQUIRE(r.servers[2].outages.size() == 1);
  CHECK(r.servers[2].outages[0].down_at == 40);
  CHECK(r.servers[2].outages[0].up_at == 50);
  // Two of one folder's name, of two scopes, say their scope too.
  state::History same;
  same.events = {{.at = 1, .kind = K::down, .server = "db", .definition = a, .scope = "local", .project = "/p"},
                 {.at = 1, .kind = K::down, .server = "db", .definition = b, .scope = "project", .project = "/p"}};
  const ops::Report both = ops::build_report(same, 0, 100);
  REQUIRE(both.servers.size() == 2);
  CHECK(both.servers[0].name == "db (p, local)");
  CHECK(both.servers[1].name == "db (p, project)");
}

TEST_CASE("the store's writer records its transitions, and nothing when it writes none", "[history]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  state::StateStore store(dir.path() / "state.json", clock);
  REQUIRE(store.update([](json::object& doc) {
    state::entry_of(doc, "a") = json::object{{"status", "healthy"}};
    return true;
  }).ok());
  CHECK(state::read_history(store.path()).events.empty());
  REQUIRE(store.update([](json::object& doc) {
    state::entry_of(doc, "a") = json::object{{"status", "unhealthy"}, {"lastError", "gone"}};
    return true;
  }).ok());
  const state::History h = state::read_history(store.path());
  REQUIRE(h.events.size() == 1);
  CHECK(h.events[0].kind == state::HistoryKind::down);
  CHECK(h.events[0].at == clock.now_ms());
}

TEST_CASE("the history rotates once past its size, and both files are read in order", "[history]") {
  testing::TempDir dir;
  const auto state = dir.path() / "state.json";
  const std::string big(state::k_history_text_bytes, 'x');
  std::int64_t at = 1;
  while (!std::filesystem::exists(state::rotated_history_path(state))) {
    REQUIRE_FALSE(state::append_history(state, {{.at = at++, .kind = state::HistoryKind::blocked, .server = "s", .text = big}}));
  }
  CHECK(std::filesystem::file_size(state::history_path(state)) < 2 * state::k_history_text_bytes);
  const state::History h = state::read_history(state);
  CHECK(h.events.size() == static_cast<std::size_t>(at - 1));
  CHECK(h.events.front().at == 1);
  CHECK(h.events.back().at == at - 1);
  CHECK(state::read_history(state, at - 1).events.size() == 1);
}

TEST_CASE("a report pairs each outage's down and up, and counts its blocked calls", "[report]") {
  using K = state::HistoryKind;
  state::History h;
  h.events = {
      {.at = 5, .kind = K::blocked, .server = "early", .by = "codex", .text = "told before"},
      {.at = 10, .kind = K::down, .server = "s", .by = "hook", .text = "exit 1", .code = "transport"},
      {.at = 11, .kind = K::blocked, .server = "s", .by = "claude-code", .text = "first"},
      {.at = 12, .kind = K::blocked, .server = "s", .by = "gemini", .text = "second"},
      {.at = 13, .kind = K::down, .server = "s", .by = "probe"}, // the same outage, probed again
      {.at = 20, .kind = K::up, .server = "s", .by = "probe"},
      {.at = 30, .kind = K::down, .server = "s", .by = "watch"},
  };
  const ops::Report r = ops::build_report(h, 0, 100);
  REQUIRE(r.servers.size() == 2);
  const ops::ServerReport& early = r.servers[0];
  CHECK(early.server == "early");
  REQUIRE(early.outages.size() == 1);
  CHECK_FALSE(early.outages[0].down_at);
  CHECK(early.outages[0].blocked == 1);
  const ops::ServerReport& s = r.servers[1];
  REQUIRE(s.outages.size() == 2);
  CHECK(s.blocked == 2);
  CHECK(*s.outages[0].down_at == 10);
  CHECK(*s.outages[0].up_at == 20);
  CHECK(*s.outages[0].length_ms(100) == 10);
  CHECK(s.outages[0].told == "second");
  CHECK(s.outages[0].agents == std::vector<std::string>{"claude-code", "gemini"});
  CHECK(s.outages[0].down_by == "hook");
  CHECK_FALSE(s.outages[1].up_at);
  CHECK(*s.outages[1].length_ms(100) == 70);
  CHECK(ops::build_report(h, 0, 100, {"early"}).servers.size() == 1);
}

TEST_CASE("report since takes a length back from now or a UTC time", "[report]") {
  const util::EpochMs now = 10 * 86'400'000LL;
  CHECK(*ops::parse_since("12h", now) == now - 12 * 3'600'000LL);
  CHECK(*ops::parse_since("1h30m", now) == now - 90 * 60'000LL);
  CHECK(*ops::parse_since("2d", now) == now - 2 * 86'400'000LL);
  CHECK(*ops::parse_since("1970-01-02T00:00:00Z", now) == 86'400'000LL);
  CHECK_FALSE(ops::parse_since("", now));
  CHECK_FALSE(ops::parse_since("12", now));
  CHECK_FALSE(ops::parse_since("h", now));
  CHECK_FALSE(ops::parse_since("yesterday", now));
  CHECK_FALSE(ops::parse_since("99999999999d", now));
}

/// Sets the process's time zone for one test, and puts the old one back.
class ZoneForTest {
public:
  explicit ZoneForTest(const char* zone) {
    if (const char* was = std::getenv("TZ")) m_was = was;
    ::setenv("TZ", zone, 1);
    ::tzset();
  }
  ~ZoneForTest() {
    if (m_was) ::setenv("TZ", m_was->c_str(), 1);
    else ::unsetenv("TZ");
    ::tzset();
  }

private:
  std::optional<std::string> m_was;
};

TEST_CASE("report since takes a local clock time, its last occurrence, and refuses one a DST change skips or repeats",
          "[report]") {
  {
    ZoneForTest utc("UTC0");
    const util::EpochMs now = 1'796'680'800'000; // 2026-12-07T22:00:00Z
    CHECK(*ops::parse_since("21:30", now) == now - 30 * 60'000LL);
    CHECK(*ops::parse_since("22:00", now) == now);
    CHECK(*ops::parse_since("22:00:01", now) == now - 86'400'000LL + 1000); // yesterday's
    CHECK_FALSE(ops::parse_since("24:00", now));
    CHECK_FALSE(ops::parse_since("9:00", now));
  }
  {
    // New York: UTC-5 in winter, UTC-4 in summer; 2026-03-08 02:00 jumps to 03:00, 2026-11-01 02:00 falls to 01:00.
    ZoneForTest new_york("EST5EDT,M3.2.0,M11.1.0");
    const util::EpochMs winter = 1'796'680'800'000; // 2026-12-07 17:00 local
    CHECK(*ops::parse_since("16:00", winter) == winter - 3'600'000LL);
    const util::EpochMs spring = 1'773'000'000'000; // 2026-03-08T20:00:00Z, 16:00 local (EDT)
    const auto skipped = ops::parse_since("02:30", spring);
    REQUIRE_FALSE(skipped);
    CHECK(skipped.error().message.find("does not happen that day") != std::string::npos);
    CHECK(*ops::parse_since("03:30", spring) == 1'772'955'000'000); // 07:30Z
    const util::EpochMs autumn = 1'793'563'200'000; // 2026-11-01T20:00:00Z, 15:00 local (EST)
    const auto twice = ops::parse_since("01:30", autumn);
    REQUIRE_FALSE(twice);
    CHECK(twice.error().message.find("happens twice that day") != std::string::npos);
  }
}

TEST_CASE("doctor reads an agent's version and holds it against the versions tested", "[doctor]") {
  CHECK(util::version_in("2.1.197 (Claude Code)") == "2.1.197");
  CHECK(util::version_in("WARNING: x\ncodex-cli 0.171.0") == "0.171.0");
  CHECK(util::version_in("GitHub Copilot CLI 1.0.102.\nRun 'copilot update'") == "1.0.102");
  CHECK_FALSE(util::version_in("v2 of 3"));
  CHECK(util::compare_versions("2.1.197", "2.1.332") < 0);
  CHECK(util::compare_versions("2.1.1000", "2.1.332") > 0);
  CHECK(util::compare_versions("0.61.0", "0.61.0") == 0);

  testing::TempDir dir;
  const auto bin = dir.path() / "bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin / "claude") << "#!/bin/sh\n";
  std::filesystem::permissions(bin / "claude", std::filesystem::perms::owner_all);
  util::MapEnvironment env{{"HOME", dir.path().string()}, {"PATH", bin.string()}};
  config::Settings settings;
  settings.state_path.value = dir.path() / "state.json";
  testing::FakeClock clock;
  testing::FakeRunner runner;
  const agent::Agent& claude = agent::default_agent();
  auto version_check = [&](std::string said) {
    runner.result = testing::FakeRunner::ok();
    runner.result.out = std::move(said);
    config::DiscoveryInputs base;
    base.project_dir = dir.path();
    base.home = dir.path();
    const ops::Checkup c = ops::run_checkup({.env = env, .settings = settings, .base = base, .only = {&claude},
                                             .runner = runner, .clock = clock});
    REQUIRE(c.agents.size() == 1);
    return c.agents[0].checks.at(0);
  };
  const ops::Check in_range = version_check("2.1.250 (Claude Code)\n");
  CHECK(in_range.verdict == ops::Check::Verdict::ok);
  CHECK(in_range.found == "2.1.250 (tested: 2.1.197 to 2.1.332)");
  CHECK(runner.commands.back() == "claude|--version");
  const ops::Check newer = version_check("2.2.0 (Claude Code)\n");
  CHECK(newer.verdict == ops::Check::Verdict::note);
  CHECK(newer.found == "2.2.0, newer than any tested (2.1.197 to 2.1.332)");
  CHECK(version_check("2.0.9 (Claude Code)").found == "2.0.9, older than any tested (2.1.197 to 2.1.332)");
  CHECK(version_check("no idea").verdict == ops::Check::Verdict::note);
}

TEST_CASE("a report names a server flapping when it went down again within a TTL of coming back, twice in a row", "[report]") {
  using K = state::HistoryKind;
  state::History h;
  h.events = {
      {.at = 1'000, .kind = K::down, .server = "s"},   {.at = 2'000, .kind = K::up, .server = "s"},
      {.at = 3'000, .kind = K::down, .server = "s"},   {.at = 4'000, .kind = K::up, .server = "s"},
      {.at = 5'000, .kind = K::down, .server = "s"},   {.at = 6'000, .kind = K::up, .server = "s"},
      {.at = 100'000, .kind = K::down, .server = "s"}, // long after: a new run
      {.at = 1'000, .kind = K::down, .server = "calm"}, {.at = 2'000, .kind = K::up, .server = "calm"},
      {.at = 90'000, .kind = K::down, .server = "calm"},
  };
  const ops::Report r = ops::build_report(h, 0, 200'000, {}, 10'000);
  REQUIRE(r.servers.size() == 2);
  const auto& calm = r.servers[0].server == "calm" ? r.servers[0] : r.servers[1];
  const auto& s = r.servers[0].server == "s" ? r.servers[0] : r.servers[1];
  CHECK(s.flaps == 2);
  CHECK(calm.flaps == 0);
  CHECK(ops::report_json(r).at("servers").as_array()[0].as_object().contains("flapping"));
  CHECK(ops::build_report(h, 0, 200'000).servers[0].flaps == 0); // no window: nothing flaps
}

TEST_CASE("the last Agent SDK script a hook ran under is kept through other sessions' runs", "[history]") {
  boost::json::object doc;
  state::note_hook_seen(doc, {.agent = "claude-code", .at = 1000, .event = "PreToolUse", .path = "/bin", .sdk_version = "0.3.336"});
  state::note_hook_seen(doc, {.agent = "claude-code", .at = 2000, .event = "SessionStart", .path = "/usr/bin"});
  const std::vector<state::HookSeen> seen = state::hooks_seen(doc);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].at == 2000);
  CHECK(seen[0].event == "SessionStart");
  CHECK(seen[0].sdk_version == "0.3.336");
  CHECK(seen[0].sdk_at == 1000);
  // A newer script's SDK replaces it.
  state::note_hook_seen(doc, {.agent = "claude-code", .at = 3000, .event = "PreToolUse", .path = "", .sdk_version = "0.3.400"});
  CHECK(state::hooks_seen(doc)[0].sdk_version == "0.3.400");
  CHECK(state::hooks_seen(doc)[0].sdk_at == 3000);
}

} // namespace test_history
