#include "fakes.hpp"

#include <mcphealth/ops/explain.hpp>
#include <mcphealth/ops/status.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
namespace json = boost::json;

namespace {
state::StateSnapshot snapshot(const char* raw) {
  state::StateSnapshot s;
  s.status = state::LoadStatus::ok;
  s.doc = json::parse(raw).as_object();
  return s;
}
config::Settings defaults() { return config::resolve_settings(util::MapEnvironment{{"HOME", "/h"}}, {}); }
} // namespace

TEST_CASE("status labels servers and derives their times", "[ops]") {
  auto snap = snapshot(R"({"servers":{
    "up":{"status":"healthy","checkedAt":1000,"expiresAt":5000},
    "auth":{"status":"healthy","checkedAt":1000,"expiresAt":5000,"probe":{"kind":"needs-auth"}},
    "down":{"status":"unhealthy","checkedAt":1000,"nextRetryAt":2500,"failureCount":1},
    "stuck":{"status":"unhealthy","checkedAt":1000,"nextRetryAt":601000,"failureCount":6}}})");
  auto report = ops::build_status(snap, std::vector<ops::ConfiguredServer>{{"up", "/c"}, {"new", "/c"}}, defaults(), 3000);
  REQUIRE(report.rows.size() == 5);
  CHECK(report.rows[0].label == "healthy");
  CHECK(report.rows[0].age_ms == 2000);
  CHECK(report.rows[0].fresh_ms == 2000);
  CHECK(report.rows[1].label == "needs-auth");
  CHECK(report.rows[2].retry_in_ms == -500);
  CHECK_FALSE(report.rows[2].pinned_at_cap);
  CHECK(report.rows[3].pinned_at_cap);
  CHECK(report.rows[4].name == "new");
  CHECK(report.rows[4].label == "unknown");
  CHECK(report.rows[1].configured == false);
  CHECK(ops::status_line(report) == "mcp 1✔ 1! 2✘ down stuck");
}

TEST_CASE("an unwritable state path says why", "[ops]") {
  testing::TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  CHECK(ops::unwritable_reason(dir.path() / "file" / "state.json").find("is not a folder") != std::string::npos);
  CHECK(ops::unwritable_reason(dir.path() / "new" / "deeper" / "state.json").empty());
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

TEST_CASE("the hook snippet registers all three events", "[ops]") {
  auto v = json::parse(ops::hook_snippet());
  CHECK(v.at("hooks").as_object().size() == 3);
  CHECK(v.at("hooks").at("PostToolUseFailure").at(0).at("matcher") == "mcp__.*");
}
