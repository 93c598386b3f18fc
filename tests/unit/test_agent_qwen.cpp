// Qwen Code's part of the agent seam: its real payloads (captured from 0.24.4) and settings files, no process.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace fs = std::filesystem;

namespace {

const agent::Agent& qwen() { return *agent::find_agent("qwen"); }

// As Qwen Code 0.24.4 sent them (../shared/agents/captured/qwen-*.json), the error cut to its first sentence.
const std::string k_pre =
    R"({"session_id":"c4919088","transcript_path":"/home/user/.qwen/projects/-home-user-proj/chats/c4919088.jsonl",)"
    R"("cwd":"/home/user/proj","hook_event_name":"PreToolUse","timestamp":"2026-12-03T07:20:57.650Z",)"
    R"("permission_mode":"yolo","prompt_id":"c4919088########0","tool_name":"mcp__svc__echo",)"
    R"("tool_input":{"text":"one"},"tool_use_id":"toolu_1796282457649_wfkuil3oj","tool_call_id":"call_fake0001"})";
const std::string k_died =
    R"({"session_id":"8bb34c7c","cwd":"/home/user/proj","hook_event_name":"PostToolUseFailure",)"
    R"("tool_name":"mcp__svc__echo","tool_input":{"text":"one"},"error":"MCP tool execution may have completed )"
    R"(before the connection failed. Automatic replay was skipped because the call could not be verified as safe )"
    R"(to replay.","is_interrupt":false,"duration_ms":246})";

} // namespace

TEST_CASE("qwen: a PreToolUse in Claude Code's shape names the server from the tool name", "[agent_qwen]") {
  testing::Payloads payloads(qwen());
  const hook::HookCall call = payloads.read(k_pre);
  CHECK(call.event == hook::Event::pre_tool_use);
  REQUIRE(call.target);
  CHECK(call.target->server == "svc");
  CHECK(call.target->tool == "echo");
  CHECK(call.folder == "/home/user/proj");
  // Claude Code's shape, no field of its own: its registration names it (`--agent qwen`), never a guess.
  CHECK(agent::detect_agent(payloads.last()) == nullptr);
}

TEST_CASE("qwen: a server that died during the call is a transport failure, in Qwen Code's own words",
          "[agent_qwen]") {
  testing::Payloads payloads(qwen());
  const hook::HookCall call = payloads.read(k_died);
  CHECK(call.event == hook::Event::post_tool_use_failure);
  const hook::FailureReading reading = hook::read_failure(call.failure_text, call.tool_input, qwen().dialect.failure_wordings());
  CHECK(reading.says == hook::FailureReading::Says::transport);
  CHECK(reading.wording.find("connection failed") != std::string_view::npos);
}

TEST_CASE("qwen: a project's servers start only from a session's hook, and win over the user's", "[agent_qwen]") {
  testing::MemoryDisk disk;
  disk.files["/home/u/.qwen/settings.json"] = R"({"mcpServers":{"svc":{"command":"/bin/user"},"mine":{"command":"/bin/true"}}})";
  disk.files["/p/.qwen/settings.json"] = R"({"mcpServers":{"svc":{"command":"/bin/project","trust":true}}})";
  const util::MapEnvironment env{{"HOME", "/home/u"}};
  config::DiscoveryInputs in = config::discovery_inputs(env, {}, "/p");
  in.reader = &disk;
  // probe, status: nothing says Qwen Code runs here, so the repository's command is not started.
  config::Resolution res = qwen().catalogue.resolve(in, env);
  REQUIRE(res.winner("svc"));
  CHECK(res.winner("svc")->definition.source == fs::path("/home/u/.qwen/settings.json"));
  // A tool call's hook: Qwen Code runs here now, and starts the project's svc.
  qwen().catalogue.read_start(in, env);
  res = qwen().catalogue.resolve(in, env);
  REQUIRE(res.winner("svc"));
  CHECK(res.winner("svc")->definition.source == fs::path("/p/.qwen/settings.json"));
  CHECK(res.winner("mine"));
}

TEST_CASE("qwen: install registers Claude Code's groups in its settings files", "[agent_qwen]") {
  const util::MapEnvironment env{{"HOME", "/home/u"}};
  CHECK(qwen().registration.install_file(agent::InstallScope::user, env, "/p") ==
        std::optional<fs::path>("/home/u/.qwen/settings.json"));
  CHECK(qwen().registration.install_file(agent::InstallScope::project, env, "/p") ==
        std::optional<fs::path>("/p/.qwen/settings.json"));
  CHECK_FALSE(qwen().registration.install_file(agent::InstallScope::local, env, "/p"));
  CHECK(qwen().registration.layout() == agent::Layout::nested);
  CHECK(qwen().registration.required_events() == std::vector<std::string>{"PreToolUse", "PostToolUseFailure"});
  hook::HookOutcome block;
  block.decision = hook::HookOutcome::Decision::block;
  block.event_name = "PreToolUse";
  block.reason = "down";
  CHECK(qwen().dialect.answer_json(block).out.find("\"permissionDecision\":\"deny\"") != std::string::npos);
}
