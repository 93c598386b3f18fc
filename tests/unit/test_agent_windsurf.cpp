// Windsurf's part of the agent seam, by contract: payloads built from Windsurf's hooks documentation (no Windsurf
// runs here), literal files.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_windsurf {
namespace {

const agent::Agent& windsurf() { return *agent::find_agent("windsurf"); }

// Built from the documented fields of pre_mcp_tool_use.
const std::string k_pre = R"({"agent_action_name":"pre_mcp_tool_use","trajectory_id":"t1","execution_id":"e1",)"
                          R"("timestamp":"2026-12-01T10:00:00Z","tool_info":{"mcp_server_name":"svc","mcp_tool_name":"echo",)"
                          R"("mcp_tool_arguments":{"text":"hi"}}})";

} // namespace

TEST_CASE("windsurf: pre_mcp_tool_use names the server in tool_info", "[agent_windsurf]") {
  hook::HookInput in;
  in.raw = k_pre;
  hook::parse_payload(in);
  const hook::HookCall call = windsurf().dialect.read(in, std::nullopt, util::MapEnvironment{});
  CHECK(call.event == hook::Event::pre_tool_use);
  REQUIRE(call.target);
  CHECK(call.target->server == "svc");
  CHECK(call.target->tool == "echo");
  REQUIRE(call.tool_input);
  CHECK(agent::detect_agent(in) == &windsurf());
}

TEST_CASE("windsurf: a block is exit 2 with the reason on stderr", "[agent_windsurf]") {
  hook::HookOutcome block;
  block.decision = hook::HookOutcome::Decision::block;
  block.reason = "svc is down";
  const agent::Answer a = windsurf().dialect.answer_json(block);
  CHECK(a.exit_code == 2);
  CHECK(a.err == "svc is down");
  CHECK(a.out.empty());
  CHECK(windsurf().dialect.answer_json(hook::HookOutcome{}).exit_code == 0);
}

TEST_CASE("windsurf: servers from mcp_config.json with serverUrl for a remote one", "[agent_windsurf]") {
  testing::TempDir dir;
  const fs::path home = dir.path() / "home";
  fs::create_directories(home / ".codeium" / "windsurf");
  std::ofstream(home / ".codeium" / "windsurf" / "mcp_config.json")
      << R"({"mcpServers":{"web":{"serverUrl":"http://127.0.0.1:9/mcp"},"off":{"command":"/bin/true","disabled":true}}})";
  config::DiscoveryInputs in;
  in.project_dir = dir.path();
  const config::Resolution res = windsurf().catalogue.resolve(in, util::MapEnvironment{{"HOME", home.string()}});
  REQUIRE(res.winner("web"));
  CHECK(std::get<config::HttpServer>(res.winner("web")->resolved->transport).url.for_transport() == "http://127.0.0.1:9/mcp");
  CHECK(res.candidates_for("off")[0]->standing == config::Standing::disabled);
}

} // namespace test_agent_windsurf
