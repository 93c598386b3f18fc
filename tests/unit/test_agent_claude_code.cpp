// Claude Code's part of the agent seam, fed with literal payloads, settings and commands: no process.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/agent/claude_code_servers.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <memory>
#include <set>

using namespace mcphealth;
using testing::TempDir;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_claude_code {
namespace {

const agent::Agent& claude() { return *agent::find_agent("claude-code"); }

testing::Payloads g_payloads(claude());

hook::HookCall read(const std::string& text, std::optional<std::string> flag = std::nullopt,
                    const util::Environment& env = util::MapEnvironment{}) {
  return g_payloads.read(text, flag, env);
}

hook::HookInput input_of(const std::string& text) { return testing::payload_input(text); }

} // namespace

TEST_CASE("claude code: a PreToolUse payload names the server and tool of mcp__ tools", "[agent_claude_code]") {
  const hook::HookCall call = read(R"({"session_id":"s","cwd":"/home/user/src/p","hook_event_name":"PreToolUse",)"
                                   R"("tool_name":"mcp__svc__echo","tool_input":{"text":"hello"},"tool_use_id":"t1"})");
  CHECK(call.event == hook::Event::pre_tool_use);
  CHECK(call.event_source == "the payload's hook_event_name");
  REQUIRE(call.target);
  CHECK(call.target->server == "svc");
  CHECK(call.target->tool == "echo");
  CHECK(call.readings.empty());
  CHECK(call.folder == "/home/user/src/p");
  REQUIRE(call.tool_input);
  CHECK(util::get_string(*call.tool_input, "text") == std::optional<std::string>("hello"));
}

TEST_CASE("claude code: a name that splits two ways keeps both readings for the names that exist", "[agent_claude_code]") {
  const hook::HookCall call = read(R"({"hook_event_name":"PreToolUse","tool_name":"mcp__my__srv__echo"})");
  REQUIRE(call.target);
  CHECK(call.target->server == "my");
  REQUIRE(call.readings.size() == 2);
  CHECK(call.readings[0].server == "my__srv");
}

TEST_CASE("claude code: a failure's texts its duration and Esc are read", "[agent_claude_code]") {
  const hook::HookCall call =
      read(R"({"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__echo","tool_input":{},)"
           R"("error":"MCP error -32000: Connection closed","is_interrupt":false,"duration_ms":1200})");
  CHECK(call.event == hook::Event::post_tool_use_failure);
  CHECK(call.failure_text == "MCP error -32000: Connection closed");
  CHECK(call.duration_ms == 1200);
  CHECK_FALSE(call.interrupted);
  CHECK(read(R"({"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__echo","is_interrupt":true})").interrupted);
}

TEST_CASE("claude code: the event is --event else the payload's else CLAUDE_HOOK_EVENT_NAME else PreToolUse",
          "[agent_claude_code]") {
  const std::string payload = R"({"hook_event_name":"PostToolUse","tool_name":"mcp__svc__echo"})";
  CHECK(read(payload, "PreToolUse").event_source == "--event");
  CHECK(read(payload).event == hook::Event::post_tool_use);
  const util::MapEnvironment env{{"CLAUDE_HOOK_EVENT_NAME", "SessionStart"}};
  CHECK(read(R"({"tool_name":"x"})", std::nullopt, env).event == hook::Event::session_start);
  const hook::HookCall fallback = read(R"({"tool_name":"x"})");
  CHECK(fallback.event_name == "PreToolUse");
  CHECK(fallback.event_source == "the default");
}

TEST_CASE("claude code: a cut payload is read from its text", "[agent_claude_code]") {
  hook::HookInput in;
  in.raw = R"({"hook_event_name":"PreToolUse","tool_name":"mcp__svc__echo","tool_input":{"text":"xxxx)";
  in.incomplete = true;
  const hook::HookCall call = claude().dialect.read(in, std::nullopt, util::MapEnvironment{});
  CHECK(call.names_tool);
  REQUIRE(call.target);
  CHECK(call.target->server == "svc");
  in.raw = R"({"hook_event_name":"PreToolUse","tool_input":{"text":"xxxx)";
  CHECK_FALSE(claude().dialect.read(in, std::nullopt, util::MapEnvironment{}).names_tool);
}

TEST_CASE("claude code: a block is hookSpecificOutput's deny and context is additionalContext and an allow is nothing",
          "[agent_claude_code]") {
  hook::HookOutcome block;
  block.decision = hook::HookOutcome::Decision::block;
  block.event_name = "PreToolUse";
  block.reason = "svc is down";
  CHECK(claude().dialect.answer_json(block).out ==
        R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"svc is down"}})"
        "\n");
  hook::HookOutcome context;
  context.event_name = "SessionStart";
  context.additional_context = "x is down";
  CHECK(claude().dialect.answer_json(context).out ==
        R"({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x is down"}})"
        "\n");
  CHECK(claude().dialect.answer_json(hook::HookOutcome{}).out.empty());
  CHECK(claude().allow_exit_code == 0);
}

TEST_CASE("claude code: registrations are looked for in the user project local and managed settings",
          "[agent_claude_code]") {
  const util::MapEnvironment env{{"HOME", "/home/u"}, {"MCPHEALTH_MANAGED_DIR", "/opt/managed"}};
  const auto files = claude().registration.hook_files(env, "/p");
  const std::vector<std::filesystem::path> expected = {"/home/u/.claude/settings.json", "/p/.claude/settings.json",
                                                       "/p/.claude/settings.local.json", "/opt/managed/managed-settings.json"};
  CHECK(files == expected);
  CHECK(claude().registration.install_file(agent::InstallScope::local, env, "/p") ==
        std::optional<std::filesystem::path>("/p/.claude/settings.local.json"));
  const util::MapEnvironment elsewhere{{"HOME", "/home/u"}, {"CLAUDE_CONFIG_DIR", "/cfg"}};
  CHECK(claude().registration.install_file(agent::InstallScope::user, elsewhere, "/p") ==
        std::optional<std::filesystem::path>("/cfg/settings.json"));
}

TEST_CASE("claude code: install registers four events the tool ones on mcp__ tools", "[agent_claude_code]") {
  const auto events = claude().registration.events();
  REQUIRE(events.size() == 4);
  CHECK(events[0].name == "PreToolUse");
  CHECK(events[0].matcher == "mcp__.*");
  CHECK(events[3].name == "SessionStart");
  CHECK(events[3].matcher.empty());
  CHECK(agent::hook_command("/opt/my tools/mcphealth", claude()) == "'/opt/my tools/mcphealth' hook --agent claude-code");
}

TEST_CASE("a registered command is mcphealth's hook only when its program is mcphealth and it runs hook", "[agent_claude_code]") {
  CHECK(agent::read_hook_command("/usr/local/bin/mcphealth hook"));
  CHECK(agent::read_hook_command("mcphealth -v --state /tmp/s.json hook --output exit-code"));
  CHECK_FALSE(agent::read_hook_command("/opt/mcphealth-old/bin/notify --hook"));
  CHECK_FALSE(agent::read_hook_command("mcphealth status --statusline"));
  CHECK_FALSE(agent::read_hook_command("node mcp-health-check.js"));
  CHECK(agent::read_hook_command("mcphealth hook")->problem.empty());
  CHECK(agent::read_hook_command("mcphealth hook --outptu json")->problem == "the hook does not take --outptu");
  CHECK(agent::read_hook_command("mcphealth hook --output yaml")->problem == "--output yaml is not one of json, exit-code, passthrough");
  CHECK(agent::read_hook_command("mcphealth hook --event Bogus")->problem ==
        "--event Bogus is not an event mcphealth acts on for Claude Code");
  CHECK(agent::read_hook_command("mcphealth hook --agent nope")->problem.find("not an agent") != std::string::npos);
  CHECK(agent::read_hook_command("mcphealth hook --agent=gemini --event BeforeTool")->agent == std::optional<std::string>("gemini"));
  CHECK(agent::read_hook_command("mcphealth hook --agent=gemini --event BeforeTool")->problem.empty());
}

TEST_CASE("Claude Code's files follow CLAUDE_CONFIG_DIR and MCPHEALTH_MANAGED_DIR", "[agent_claude_code]") {
  util::MapEnvironment env({{"HOME", "/h"}});
  agent::ClaudePaths p = agent::claude_paths(env);
  CHECK(p.claude_json == "/h/.claude.json");
  CHECK(p.config_dir == "/h/.claude");
  env.set("CLAUDE_CONFIG_DIR", "/cfg");
  env.set("MCPHEALTH_MANAGED_DIR", "/m");
  p = agent::claude_paths(env);
  CHECK(p.claude_json == "/cfg/.claude.json");
  CHECK(p.config_dir == "/cfg");
  CHECK(p.managed_dir == "/m");
  // The registration reads the same folders the catalogue does.
  CHECK(claude().registration.install_file(agent::InstallScope::user, env, "/p") ==
        std::optional<std::filesystem::path>("/cfg/settings.json"));
}

TEST_CASE("the table lists every agent once and Claude Code is the default", "[agent_claude_code]") {
  CHECK(&agent::default_agent() == &claude());
  CHECK(agent::agents().front() == &claude());
  std::set<std::string_view> ids;
  std::string listed;
  for (const agent::Agent* a : agent::agents()) {
    CHECK(ids.insert(a->id).second);
    CHECK(agent::find_agent(a->id) == a);
    listed += (listed.empty() ? "" : ", ") + std::string(a->id);
  }
  CHECK(agent::agent_ids() == listed);
  CHECK(agent::find_agent("aider") == nullptr);
  CHECK(agent::detect_agent(input_of(R"({"hook_event_name":"PreToolUse","tool_name":"mcp__svc__echo"})")) == nullptr);
}

TEST_CASE("a bindings key reads back as the agent and folder it was made for", "[agent_claude_code]") {
  for (const agent::Agent* a : agent::agents()) {
    const auto [who, dir] = agent::read_folder_key(agent::folder_key(*a, "/home/u/my proj", {"headless"}));
    CHECK(who == a);
    CHECK(dir == "/home/u/my proj");
    CHECK(agent::read_folder_key(agent::folder_key(*a, "/p")).first == a);
  }
  // Claude Code's keys: the bare folder, or its qualifiers alone.
  CHECK(agent::read_folder_key("/p").first == &agent::default_agent());
  CHECK(agent::read_folder_key("/p (headless, --mcp-config 1a2b)").second == "/p");
}

} // namespace test_agent_claude_code
