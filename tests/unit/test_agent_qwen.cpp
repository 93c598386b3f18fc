// Qwen Code's part of the agent seam: its real payloads (captured from 0.24.4) and settings files, no process.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/names.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_qwen {
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

TEST_CASE("qwen: tool names are spelled as Qwen Code spells them, with its hash whenever it changes one",
          "[agent_qwen]") {
  // Each expected name is what Qwen Code 0.24.4's normalizeToolNameForProvider returns (run under node).
  CHECK(config::qwen_tool_name("my_svc", "echo") == "mcp__my_svc__echo");
  CHECK(config::qwen_tool_name("my.svc", "echo") == "mcp__my_svc__echo_1mvuuwo");
  CHECK(config::qwen_tool_name("db", "a_very_long_tool_name_that_goes_on_and_on_past_the_limit_x") ==
        "mcp__db__a_very_long_tool_name_that_goes_on_and_on_past_1szud9k");
  CHECK(config::qwen_tool_name("caf\xc3\xa9", "x") == "mcp__caf___x_1tnylu2");
  CHECK(config::qwen_tool_name("a\xf0\x9f\x98\x80" "b", "tool") == "mcp__a__b__tool_0szov8d"); // two UTF-16 units
  CHECK(config::qwen_tool_name("a b", "t") == "mcp__a_b__t_0ikp4u0");
  CHECK(config::qwen_renames("my.svc"));
  CHECK_FALSE(config::qwen_renames("my_svc"));
}

TEST_CASE("qwen: a renamed server's tool is told from the tool of the server whose name it was renamed to",
          "[agent_qwen]") {
  testing::MemoryDisk disk;
  disk.files["/home/u/.qwen/settings.json"] =
      R"({"mcpServers":{"my_svc":{"command":"/bin/a"},"my.svc":{"command":"/bin/b"}}})";
  const util::MapEnvironment env{{"HOME", "/home/u"}};
  config::DiscoveryInputs in = config::discovery_inputs(env, {}, "/p");
  in.reader = &disk;
  const config::Resolution res = qwen().catalogue.resolve(in, env);
  // Two servers, two keys: the renamed one is kept under its own name.
  REQUIRE(res.winner("my_svc"));
  REQUIRE(res.winner("my.svc"));
  CHECK(res.winner("my_svc")->definition.name == "my_svc");
  CHECK(res.winner("my.svc")->definition.name == "my.svc");

  testing::Payloads payloads(qwen());
  const hook::HookCall renamed = payloads.read(
      R"({"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"mcp__my_svc__echo_1mvuuwo","tool_input":{}})");
  REQUIRE(renamed.respell != nullptr);
  const std::optional<hook::CallTarget> t = renamed.respell(renamed.tool_name, "my.svc");
  REQUIRE(t);
  CHECK(t->server == "my.svc");
  CHECK(t->tool == "echo");
  CHECK(t->keyed);
  CHECK(hook::server_key(*t) == "my.svc");
  CHECK_FALSE(renamed.respell(renamed.tool_name, "my_svc")); // its tools keep their names
  CHECK_FALSE(renamed.respell("mcp__my_svc__echo_0000000", "my.svc")); // the shape, not the hash

  // A tool name that only looks renamed (`list_records`) is no renaming of anything.
  const hook::HookCall plain = payloads.read(
      R"({"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"mcp__my_svc__echo","tool_input":{}})");
  CHECK(plain.respell == nullptr);
  REQUIRE(plain.target);
  CHECK(plain.target->server == "my_svc");
}

} // namespace test_agent_qwen
