// Cursor's part of the agent seam, by contract: payloads built from Cursor's hooks documentation (no Cursor runs
// here), literal files.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <memory>

using namespace mcphealth;
namespace json = boost::json;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_cursor {
namespace {

const agent::Agent& cursor() { return *agent::find_agent("cursor"); }

testing::Payloads g_payloads(cursor());

hook::HookCall read(const std::string& text) { return g_payloads.read(text); }

// Built from the documented fields of beforeMCPExecution.
const std::string k_before_by_url =
    R"({"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeMCPExecution",)"
    R"("workspace_roots":["/home/user/src/cproj"],"tool_name":"search","tool_input":{"q":"x"},"url":"http://127.0.0.1:9/mcp"})";
const std::string k_before_by_command =
    R"({"hook_event_name":"beforeMCPExecution","workspace_roots":["/home/user/src/cproj"],"tool_name":"echo",)"
    R"("tool_input":{},"command":"python3 /opt/fixtures/session_server.py stdio"})";

} // namespace

TEST_CASE("cursor: beforeMCPExecution names the server by its URL or its command line", "[agent_cursor]") {
  hook::HookCall call = read(k_before_by_url);
  CHECK(call.event == hook::Event::pre_tool_use);
  REQUIRE(call.target);
  CHECK(call.target->server.empty());
  CHECK(call.endpoint == std::optional<std::string>("http://127.0.0.1:9/mcp"));
  CHECK(call.folder == "/home/user/src/cproj");
  call = read(k_before_by_command);
  CHECK(call.endpoint == std::optional<std::string>("python3 /opt/fixtures/session_server.py stdio"));
  CHECK(read(R"({"hook_event_name":"afterMCPExecution","tool_name":"echo","url":"http://h/mcp"})").event ==
        hook::Event::post_tool_use);
  CHECK(agent::detect_agent(g_payloads.last()) == &cursor());
}

TEST_CASE("cursor: a block is permission deny with the reason for the user and the agent", "[agent_cursor]") {
  hook::HookOutcome block;
  block.decision = hook::HookOutcome::Decision::block;
  block.reason = "svc is down";
  CHECK(cursor().dialect.answer_json(block).out ==
        "{\"permission\":\"deny\",\"user_message\":\"svc is down\",\"agent_message\":\"svc is down\"}\n");
  CHECK(cursor().dialect.answer_json(hook::HookOutcome{}).out.empty());
}

TEST_CASE("cursor: the user's servers are checked and a project's are not", "[agent_cursor]") {
  testing::TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  fs::create_directories(home / ".cursor");
  fs::create_directories(proj / ".cursor");
  std::ofstream(home / ".cursor" / "mcp.json") << R"({"mcpServers":{"web":{"url":"http://127.0.0.1:9/mcp"}}})";
  std::ofstream(proj / ".cursor" / "mcp.json") << R"({"mcpServers":{"repo":{"command":"/bin/true"}}})";
  config::DiscoveryInputs in;
  in.project_dir = proj;
  const config::Resolution res = cursor().catalogue.resolve(in, util::MapEnvironment{{"HOME", home.string()}});
  CHECK(res.winner("web") != nullptr);
  CHECK(res.winner("repo") == nullptr);
  CHECK(res.candidates_for("repo")[0]->standing == config::Standing::not_approved);
}

TEST_CASE("cursor: install writes flat entries and a version, and uninstall gives the bytes back", "[agent_cursor]") {
  testing::TempDir dir;
  const fs::path file = dir.path() / "hooks.json";
  const std::string original = "{\n  \"version\": 1,\n  \"hooks\": {\"stop\": [{\"command\": \"say done\"}]}\n}\n";
  std::ofstream(file) << original;
  ops::InstallRequest r;
  r.agent = &cursor();
  r.file = file;
  r.binary = "/usr/bin/mcphealth";
  auto plan = ops::plan_install(r);
  REQUIRE(plan);
  const json::value after = json::parse(plan->after);
  CHECK(after.at("hooks").at("beforeMCPExecution").at(0).at("command") == "/usr/bin/mcphealth hook --agent cursor");
  CHECK(after.at("hooks").at("stop").at(0).at("command") == "say done");
  std::ofstream(file, std::ios::trunc) << plan->after;
  auto again = ops::plan_install(r);
  REQUIRE(again);
  CHECK_FALSE(again->changed());
  auto undo = ops::plan_uninstall(file, cursor());
  REQUIRE(undo);
  CHECK(json::parse(undo->after) == json::parse(original));
  // A file install made alone keeps nothing of it after uninstall.
  const fs::path fresh = dir.path() / "fresh.json";
  r.file = fresh;
  plan = ops::plan_install(r);
  REQUIRE(plan);
  CHECK(json::parse(plan->after).at("version") == 1);
  std::ofstream(fresh) << plan->after;
  undo = ops::plan_uninstall(fresh, cursor());
  REQUIRE(undo);
  CHECK(json::parse(undo->after).as_object().empty());
}

} // namespace test_agent_cursor
