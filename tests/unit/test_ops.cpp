#include "fakes.hpp"

#include <mcphealth/ops/explain.hpp>
#include <mcphealth/ops/status.hpp>
#include <mcphealth/ops/watch.hpp>
#include <mcphealth/gate/plan.hpp>
#include <mcphealth/util/fs.hpp>

#include <mcphealth/ops/install.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_ops {
namespace {
config::Settings defaults() { return config::resolve_settings(util::MapEnvironment{{"HOME", "/h"}}, {}); }

/// The environment's settings with no policy file: what build_status reads each row's rules from.
ops::RowSettings& row_defaults() {
  static const config::Settings settings = defaults();
  static const util::MapEnvironment env{{"HOME", "/h"}};
  static ops::RowSettings rows(settings, env);
  return rows;
}
} // namespace

TEST_CASE("status labels servers and derives their times", "[ops]") {
  auto snap = testing::snapshot(R"({"servers":{
    "up":{"status":"healthy","checkedAt":1000,"expiresAt":5000},
    "auth":{"status":"healthy","checkedAt":1000,"expiresAt":5000,"probe":{"kind":"needs-auth"}},
    "hung":{"status":"healthy","checkedAt":1000,"expiresAt":5000,"probe":{"kind":"alive-silent"}},
    "down":{"status":"unhealthy","checkedAt":1000,"nextRetryAt":2500,"failureCount":1},
    "stuck":{"status":"unhealthy","checkedAt":1000,"nextRetryAt":601000,"failureCount":6}}})");
  auto report = ops::build_status(snap, ops::Configured{{{"up", "/c", "", "user", {}}, {"new", "/c", "fp-new", "user", {}},
                                                          {"down", "/c", "", "user", {}}, {"stuck", "/c", "", "user", {}}}},
                                  row_defaults(), 3000);
  REQUIRE(report.rows.size() == 6);
  const auto row = [&](const std::string& name) {
    auto it = std::find_if(report.rows.begin(), report.rows.end(), [&](const ops::StatusRow& r) { return r.name == name; });
    REQUIRE(it != report.rows.end());
    return *it;
  };
  std::vector<std::string> order;
  for (const auto& r : report.rows) order.push_back(r.name);
  CHECK(order == std::vector<std::string>{"auth", "down", "hung", "new", "stuck", "up"}); // stable: by name
  CHECK(state::health_name(row("up").health) == "healthy");
  CHECK(row("up").age_ms == 2000);
  CHECK(row("up").fresh_ms == 2000);
  CHECK(state::health_name(row("auth").health) == "needs-auth");
  // A hung server is up but costs a timeout per cold call: its own state, never "healthy".
  CHECK(row("hung").health == state::Health::alive_silent);
  CHECK_FALSE(row("hung").down());
  CHECK(row("down").retry_in_ms == -500);
  CHECK_FALSE(row("down").pinned_at_cap);
  CHECK(row("stuck").pinned_at_cap);
  CHECK(state::health_name(row("new").health) == "unknown");
  CHECK(row("new").definition == std::optional<std::string>("fp-new"));
  CHECK(row("auth").configured == false);
  CHECK(ops::status_line(report) == "mcp 1✔ 1! 1~ 2✘ down stuck 1?"); // new: no verdict yet
  // An entry no config defines is shown but never counted down.
  auto unconfigured = ops::build_status(snap, ops::Configured{{{"up", "/c", "", "user", {}}}}, row_defaults(), 3000);
  const auto down = std::find_if(unconfigured.rows.begin(), unconfigured.rows.end(), [](const ops::StatusRow& r) { return r.name == "down"; });
  REQUIRE(down != unconfigured.rows.end());
  CHECK(down->unbound());
  CHECK_FALSE(down->down());
}

TEST_CASE("status shows one row per definition, with its scope and project, and none for the mirrors", "[ops]") {
  auto snap = testing::snapshot(R"({"servers":{"dup":{"status":"healthy","definition":"fpB"}},
    "definitions":{
      "fpA":{"status":"healthy","checkedAt":1000,"expiresAt":9000,"toolName":"dup","scope":"project","project":"/a"},
      "fpB":{"status":"unhealthy","checkedAt":1000,"nextRetryAt":9000,"toolName":"dup","scope":"project","project":"/b"}}})");
  auto report = ops::build_status(snap, ops::Configured{{{"dup", "/a/.mcp.json", "fpA", "project", "/a"}}},
                                  row_defaults(), 3000);
  REQUIRE(report.rows.size() == 2);
  CHECK(report.rows[0].project == std::optional<std::string>("/a"));
  CHECK(report.rows[0].configured == true);
  CHECK(report.rows[1].project == std::optional<std::string>("/b"));
  CHECK(report.rows[1].configured == false);
  // Nothing points at fpB: superseded, not down, and no warning for it.
  CHECK(report.rows[1].superseded);
  CHECK_FALSE(report.rows[1].down());
  CHECK(report.warnings.empty());
  // A config that does not parse: what is configured is not known, so nothing is superseded or called gone.
  report = ops::build_status(snap, ops::Configured{{{"dup", "/a/.mcp.json", "fpA", "project", "/a"}},
                                                   {"/h/.claude.json does not parse at line 3, column 1"}},
                             row_defaults(), 3000);
  CHECK_FALSE(report.rows[1].superseded);
  CHECK(report.rows[1].down());
  REQUIRE(report.warnings.size() == 1);
  CHECK(report.warnings[0].find("/h/.claude.json does not parse at line 3, column 1 (until it is fixed") == 0);
}

TEST_CASE("an unwritable state path says why", "[ops]") {
  testing::TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  const auto blocked = ops::check_writable(dir.path() / "file" / "state.json");
  REQUIRE_FALSE(blocked);
  CHECK(blocked.error().message.find("is not a folder") != std::string::npos);
  CHECK(ops::check_writable(dir.path() / "new" / "deeper" / "state.json").ok());
}

TEST_CASE("hook registration needs both events on a matcher that covers MCP tools", "[ops]") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / ".claude");
  util::MapEnvironment env{{"HOME", dir.path().string()}};
  auto write = [&](const std::string& text) { std::ofstream(dir.path() / ".claude" / "settings.json") << text; };
  write(R"({"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"mcphealth hook"}]}],
                     "PostToolUseFailure":[{"matcher":"","hooks":[{"type":"command","command":"/usr/local/bin/mcphealth hook --output json"}]}]}})");
  auto reg = ops::find_hook_registration(env, dir.path() / "proj");
  CHECK(reg.pre_tool_use);
  CHECK(reg.post_tool_use_failure);
  write(R"({"hooks":{"PreToolUse":[{"matcher":"Bash|Read","hooks":[{"type":"command","command":"mcphealth hook"}]}]}})");
  reg = ops::find_hook_registration(env, dir.path() / "proj");
  CHECK_FALSE(reg.pre_tool_use);
  write(R"({"hooks":{"PreToolUse":[{"matcher":"mcp__github__.*","hooks":[{"type":"command","command":"node mcp-health-check.js"}]}]}})");
  reg = ops::find_hook_registration(env, dir.path() / "proj");
  CHECK_FALSE(reg.pre_tool_use);
  CHECK(reg.js_hook.size() == 1);
}

TEST_CASE("the hook snippet registers the three tool events on MCP tools, and session start", "[ops]") {
  auto v = json::parse(ops::hook_snippet("/opt/my tools/mcphealth"));
  CHECK(v.at("hooks").as_object().size() == 4);
  CHECK(v.at("hooks").at("PreToolUse").at(0).at("hooks").at(0).at("command") == "'/opt/my tools/mcphealth' hook --agent claude-code");
  CHECK(v.at("hooks").at("PostToolUseFailure").at(0).at("matcher") == "mcp__.*");
  CHECK_FALSE(v.at("hooks").at("SessionStart").at(0).as_object().contains("matcher"));
}

TEST_CASE("install writes nothing over a settings file another program changed after it was read", "[install]") {
  testing::TempDir dir;
  const std::filesystem::path file = dir.path() / "settings.json";
  std::ofstream(file) << "{\"model\": \"opus\"}\n";
  ops::InstallRequest request;
  request.file = file;
  request.binary = "/usr/bin/mcphealth";
  auto plan = ops::plan_install(request);
  REQUIRE(plan);
  REQUIRE(plan->changed());
  std::ofstream(file) << "{\"model\": \"sonnet\"}\n"; // Claude Code writes meanwhile
  const auto applied = ops::apply_plan(*plan, 1'800'000'000'000);
  REQUIRE_FALSE(applied);
  CHECK(applied.error().is(ops::InstallFailure::changed_meanwhile));
  CHECK(util::read_file(file).value() == "{\"model\": \"sonnet\"}\n");
  // Planned again from what is there now, it goes through and keeps the other writer's value.
  plan = ops::plan_install(request);
  REQUIRE(ops::apply_plan(*plan, 1'800'000'000'000));
  CHECK(util::read_file(file).value().find("\"model\": \"sonnet\"") != std::string::npos);
}


TEST_CASE("the hook, SessionStart, status and watch hold an entry to one set of rules", "[ops][rules]") {
  // A policy that gives `svc` a 10-minute TTL and a 2-hour backoff cap, beside the environment's defaults.
  testing::TempDir dir;
  const util::MapEnvironment env{{"HOME", dir.path().string()}};
  std::filesystem::create_directories(dir.path() / ".config" / "mcphealth");
  std::ofstream(dir.path() / ".config" / "mcphealth" / "policy.json")
      << R"({"servers":{"svc":{"ttlMs":600000,"maxBackoffMs":7200000}}})";
  const config::Settings environment = config::resolve_settings(env, {});
  const config::Policy policy = config::load_policy(environment.policy_path, env, util::disk(), std::nullopt);
  const config::Settings server = config::settings_for(environment, policy, "svc", std::nullopt);
  REQUIRE(server.ttl_ms.value == 600'000);
  const util::EpochMs now = 1'000'000'000;

  struct Case {
    const char* what;
    json::object entry;
  };
  const Case cases[] = {
      {"a policy's TTL: a mark 200 s old that claims 10 minutes",
       {{"status", "healthy"}, {"checkedAt", now - 200'000}, {"expiresAt", now + 400'000}}},
      {"a policy's backoff cap: a retry 90 minutes away",
       {{"status", "unhealthy"}, {"checkedAt", now - 1000}, {"nextRetryAt", now + 5'400'000}, {"failureCount", 3}}},
      {"a Retry-After of 50 minutes, under the environment's cap",
       {{"status", "unhealthy"}, {"checkedAt", now - 1000}, {"nextRetryAt", now + 3'000'000}, {"failureCount", 1},
        {"lastFailureCode", 429}}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const state::ServerEntry e = state::ServerEntry::from_json(c.entry);
    // The hook's rules, as its RuleInputs hands them.
    gate::ResolvedRuleSettings hook_settings(environment, server, gate::Refresh::background);
    const state::Outlook hook = gate::outlook_under(e, now, gate::cache_rules(&e, hook_settings));
    REQUIRE(hook.freshness != state::Freshness::due);
    // status, reading the policy itself.
    const std::string text = json::serialize(json::object{{"servers", json::object{{"svc", c.entry}}}});
    auto snap = testing::snapshot(text.c_str());
    ops::RowSettings rows(environment, env);
    const ops::StatusReport report = ops::build_status(snap, std::nullopt, rows, now);
    REQUIRE(report.rows.size() == 1);
    const ops::StatusRow& row = report.rows.front();
    if (hook.freshness == state::Freshness::fresh) {
      REQUIRE(row.fresh_ms);
      CHECK(*row.fresh_ms == *hook.fresh_until - now);
    } else {
      REQUIRE(row.retry_in_ms);
      CHECK(*row.retry_in_ms == *hook.retry_at - now);
    }
    // SessionStart: nothing to refresh while the hook holds the mark.
    gate::SessionServer session{.name = "svc", .entry = e, .health = state::health_of(e, c.entry)};
    session.rules = gate::cache_rules(&e, hook_settings);
    CHECK(gate::plan_session_start("SessionStart", {session}, now, gate::Voice{}).refresh.empty());
    // watch: not due before the hook would look again (a fresh mark is re-probed just before it expires).
    const util::EpochMs next = ops::next_probe_at(&c.entry, "fp", now, now, hook_settings, ops::Jitter::yes);
    if (hook.freshness == state::Freshness::fresh) {
      CHECK(next > now);
      CHECK(next < *hook.fresh_until);
    } else {
      CHECK(next >= *hook.retry_at);
      CHECK(next < *hook.retry_at + 250);
    }
  }
}

} // namespace test_ops
