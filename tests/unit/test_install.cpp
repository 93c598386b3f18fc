// install's plans and diffs on literal settings files: what a run would write, for each agent, without writing.
#include "fakes.hpp"

#include <mcphealth/ops/install.hpp>
#include <mcphealth/util/diff.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_install {
namespace {

struct Settings {
  testing::TempDir dir;
  std::filesystem::path file = dir.path() / "settings.json";
  explicit Settings(const std::string& text = {}) {
    if (!text.empty()) std::ofstream(file) << text;
  }
  util::Result<ops::InstallPlan> install(const agent::Agent& a = agent::default_agent(), std::vector<std::string> events = {}) {
    ops::InstallRequest r;
    r.agent = &a;
    r.file = file;
    r.binary = "/usr/bin/mcphealth";
    r.events = std::move(events);
    return ops::plan_install(r);
  }
  void write(const std::string& text) { std::ofstream(file, std::ios::trunc) << text; }
};

json::value parsed(const std::string& text) { return json::parse(text); }

} // namespace

TEST_CASE("install adds the four Claude Code events and keeps every other byte", "[install]") {
  Settings s("{\n  \"model\": \"opus\",\n  \"big\": 1e400\n}\n");
  auto plan = s.install();
  REQUIRE(plan);
  CHECK(plan->changed());
  CHECK(plan->after.find("\"big\": 1e400") != std::string::npos); // a number Boost.JSON would rewrite
  const json::value after = parsed(plan->after);
  CHECK(after.at("hooks").as_object().size() == 4);
  CHECK(after.at("hooks").at("PreToolUse").at(0).at("matcher") == "mcp__.*");
  CHECK(after.at("hooks").at("PreToolUse").at(0).at("hooks").at(0).at("command") == "/usr/bin/mcphealth hook --agent claude-code");
  CHECK(plan->notes.size() == 4);
}

TEST_CASE("install again changes nothing, and points an old registration at this binary", "[install]") {
  Settings s;
  auto first = s.install();
  REQUIRE(first);
  s.write(first->after);
  auto again = s.install();
  REQUIRE(again);
  CHECK_FALSE(again->changed());
  CHECK(again->notes.front() == "PreToolUse: already registered");
  std::string old = first->after;
  for (std::size_t at; (at = old.find("/usr/bin/mcphealth")) != std::string::npos;) old.replace(at, 18, "/opt/old/mcphealth");
  s.write(old);
  auto moved = s.install();
  REQUIRE(moved);
  CHECK(moved->notes.front() == "PreToolUse: now runs /usr/bin/mcphealth hook --agent claude-code (was /opt/old/mcphealth hook --agent claude-code)");
}

TEST_CASE("uninstall after install gives back the file's bytes", "[install]") {
  const std::string original = "{\n  \"model\": \"opus\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]}\n}\n";
  Settings s(original);
  auto plan = s.install();
  REQUIRE(plan);
  s.write(plan->after);
  auto undo = ops::plan_uninstall(s.file);
  REQUIRE(undo);
  CHECK(undo->after == original);
}

TEST_CASE("install for Gemini CLI writes its events, its matcher and its entry", "[install]") {
  Settings s("{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}");
  auto plan = s.install(*agent::find_agent("gemini"));
  REQUIRE(plan);
  const json::value after = parsed(plan->after);
  CHECK(after.at("hooks").as_object().size() == 3);
  const json::value& entry = after.at("hooks").at("BeforeTool").at(0).at("hooks").at(0);
  CHECK(entry.at("command") == "/usr/bin/mcphealth hook --agent gemini");
  CHECK(entry.at("name") == "mcphealth");
  CHECK(after.at("hooks").at("AfterTool").at(0).at("matcher") == "mcp_.*");
  CHECK(after.at("security").at("auth").at("selectedType") == "gemini-api-key");
}

TEST_CASE("Gemini CLI's settings keep their comments through install and uninstall and Claude Code's take none", "[install]") {
  const std::string original = "{\n  // my model\n  \"model\": {\"name\": \"gemini-2.5-pro\"}, /* a { brace ] */\n"
                               "  \"ui\": {\"theme\": \"dark\" // why not\n  }\n}\n";
  Settings s(original);
  const agent::Agent& gemini = *agent::find_agent("gemini");
  auto plan = s.install(gemini);
  REQUIRE(plan);
  CHECK(plan->after.find("// my model") != std::string::npos);
  CHECK(plan->after.find("/* a { brace ] */") != std::string::npos);
  CHECK(plan->after.find("// why not") != std::string::npos);
  CHECK(util::parse_json(plan->after, util::JsonComments::allowed)->at("hooks").as_object().size() == 3);
  s.write(plan->after);
  auto undo = ops::plan_uninstall(s.file, gemini);
  REQUIRE(undo);
  CHECK(undo->after == original);
  // Claude Code refuses a comment in its settings: install must not write a file it would not read.
  s.write(original);
  CHECK_FALSE(s.install());
}

TEST_CASE("install refuses an event the agent does not have, and a file that does not parse", "[install]") {
  Settings s;
  auto wrong = s.install(*agent::find_agent("gemini"), {"PreToolUse"});
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message == "PreToolUse is not an event mcphealth registers for Gemini CLI; nothing was changed");
  s.write("{\"hooks\": [1,");
  auto broken = s.install();
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.find("does not parse") != std::string::npos);
}

TEST_CASE("the diff shows only the lines that change, with three lines of context", "[install]") {
  const std::string before = "a\nb\nc\nd\ne\nf\ng\n";
  const std::string after = "a\nb\nc\nd\nE\nf\ng\n";
  CHECK(util::unified_diff(before, after, "x") == "--- x\n+++ x (after)\n@@ -2,6 +2,6 @@\n b\n c\n d\n-e\n+E\n f\n g\n");
  CHECK(util::unified_diff(before, before, "x").empty());
}

TEST_CASE("uninstall after install with a status line gives back the bytes: two members go at once", "[install]") {
  const std::string original = "{\n  \"model\": \"opus\"\n}\n";
  Settings s(original);
  ops::InstallRequest r;
  r.file = s.file;
  r.binary = "/usr/bin/mcphealth";
  r.statusline = true;
  auto plan = ops::plan_install(r);
  REQUIRE(plan);
  s.write(plan->after);
  auto undo = ops::plan_uninstall(s.file);
  REQUIRE(undo);
  // Removing `hooks` and `statusLine`, adjacent and last, once cut the file's closing brace.
  CHECK(undo->after == original);
}

} // namespace test_install
