// Copilot CLI's part of the agent seam, fed with payloads captured from Copilot CLI 1.0.102 and literal files.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <memory>

using namespace mcphealth;
using testing::TempDir;
namespace json = boost::json;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_copilot {
namespace {

const agent::Agent& copilot() { return *agent::find_agent("copilot"); }

testing::Payloads g_payloads(copilot());

hook::HookCall read(const std::string& text, std::optional<std::string> flag = std::nullopt) {
  return g_payloads.read(text, flag);
}

// As Copilot CLI 1.0.102 sent them (ids shortened).
const std::string k_pascal_pre = R"({"hook_event_name":"PreToolUse","session_id":"5c64","timestamp":"2026-12-01T19:52:04.778Z",)"
                                 R"("cwd":"/home/user/src/copproj","tool_name":"svc-echo","tool_input":{"text":"hello"}})";
const std::string k_pascal_failure =
    R"({"hook_event_name":"PostToolUseFailure","session_id":"12bc","timestamp":"2026-12-01T19:53:19.166Z",)"
    R"("cwd":"/home/user/src/copproj","tool_name":"svc-echo","tool_input":{"text":"hello"},)"
    R"x("error":"MCP server 'svc': McpError: MCP error -32000: backend unavailable (fake)"})x";
const std::string k_camel_pre = R"({"sessionId":"5c64","timestamp":1796154724778,"cwd":"/home/user/src/copproj",)"
                                R"("toolName":"svc-echo","toolArgs":{"text":"hello"}})";
const std::string k_camel_died =
    R"({"sessionId":"8567","timestamp":1796154796333,"cwd":"/home/user/src/copproj","toolName":"svc-echo",)"
    R"("toolArgs":{"text":"hello"},"error":"MCP server 'svc': MCP request failed: MCP transport closed before the tool responded"})";
const std::string k_camel_session = R"({"sessionId":"5c64","timestamp":1796154724534,"cwd":"/home/user/src/copproj",)"
                                    R"("source":"new","initialPrompt":"call the echo tool"})";

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

} // namespace

TEST_CASE("copilot: a PascalCase PreToolUse is Claude Code's shape with <server>-<tool> names", "[agent_copilot]") {
  const hook::HookCall call = read(k_pascal_pre);
  CHECK(call.event == hook::Event::pre_tool_use);
  REQUIRE(call.target);
  CHECK(call.target->server == "svc");
  CHECK(call.target->tool == "echo");
  CHECK(call.folder == "/home/user/src/copproj");
}

TEST_CASE("copilot: camelCase payloads name no event and are told by their fields", "[agent_copilot]") {
  CHECK(read(k_camel_pre).event == hook::Event::pre_tool_use);
  CHECK(read(k_camel_session).event == hook::Event::session_start);
  const hook::HookCall died = read(k_camel_died);
  CHECK(died.event == hook::Event::post_tool_use_failure);
  CHECK(died.failure_text.find("MCP transport closed before the tool responded") != std::string::npos);
  REQUIRE(died.tool_input);
  CHECK(read(k_camel_pre, "postToolUse").event == hook::Event::post_tool_use);
}

TEST_CASE("copilot: a name with dashes keeps every reading for the configured names to settle", "[agent_copilot]") {
  const hook::HookCall call = read(R"({"hook_event_name":"PreToolUse","tool_name":"my-svc-get-thing"})");
  REQUIRE(call.target);
  CHECK(call.target->server == "my");
  REQUIRE(call.readings.size() == 3);
  CHECK(call.readings[0].server == "my-svc-get");
  CHECK(call.readings[1].server == "my-svc");
  CHECK_FALSE(read(R"({"hook_event_name":"PreToolUse","tool_name":"bash"})").target);
}

TEST_CASE("copilot: a server's name is spelled as Copilot spells it and its built-in GitHub server is its own", "[agent_copilot]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  util::MapEnvironment env{{"HOME", home.string()}};
  write(home / ".copilot" / "mcp-config.json",
        R"({"mcpServers":{"svc.v2":{"command":"/bin/true"},"github":{"command":"/bin/true"}}})");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  const config::Resolution res = copilot().catalogue.resolve(in, env);
  // Copilot CLI 1.0.102 names svc.v2's tools svc-v2-<tool>.
  const hook::HookCall dotted = read(R"({"hook_event_name":"PreToolUse","tool_name":"svc-v2-echo"})");
  bool found = false;
  for (const auto& r : dotted.readings) found = found || res.winner(r.server) != nullptr;
  CHECK(found);
  CHECK(res.winner("svc-v2") != nullptr);
  // Its own GitHub server's tools are never the user's `github`.
  const hook::HookCall builtin = read(R"({"hook_event_name":"PreToolUse","tool_name":"github-mcp-server-get_issue"})");
  REQUIRE(builtin.target);
  CHECK(builtin.target->server == "github-mcp-server");
  CHECK(builtin.target->tool == "get_issue");
  CHECK(builtin.readings.empty());
  CHECK(res.winner("github-mcp-server") == nullptr);
}

TEST_CASE("copilot: the failure texts of a closed transport and of a JSON-RPC error read apart", "[agent_copilot]") {
  CHECK(hook::read_failure(read(k_camel_died).failure_text, nullptr, copilot().dialect.failure_wordings()).code == state::FailureCode::transport());
  // A server that answers with an error is up: nothing to mark.
  CHECK_FALSE(hook::read_failure(read(k_pascal_failure).failure_text, nullptr, copilot().dialect.failure_wordings()).code);
}

TEST_CASE("copilot: its camelCase payloads are recognized, never its environment", "[agent_copilot]") {
  const hook::HookInput in = [] {
    hook::HookInput i;
    i.raw = k_pascal_pre;
    hook::parse_payload(i);
    return i;
  }();
  CHECK(agent::detect_agent(in) == nullptr); // Claude Code's shape
  hook::HookInput camel;
  camel.raw = k_camel_pre;
  hook::parse_payload(camel);
  CHECK(agent::detect_agent(camel) == &copilot());
  // A Claude Code payload with a top-level sessionId is still Claude Code's.
  hook::HookInput claude;
  claude.raw = R"({"session_id":"s","sessionId":"s","hook_event_name":"PreToolUse","tool_name":"mcp__svc__echo"})";
  hook::parse_payload(claude);
  CHECK(agent::detect_agent(claude) == nullptr);
}

TEST_CASE("copilot: a block carries both dialects' deny and context goes at the top level too", "[agent_copilot]") {
  hook::HookOutcome block;
  block.decision = hook::HookOutcome::Decision::block;
  block.reason = "svc is down";
  const json::value deny = json::parse(copilot().dialect.answer_json(block).out);
  CHECK(deny.at("permissionDecision") == "deny");
  CHECK(deny.at("permissionDecisionReason") == "svc is down");
  CHECK(deny.at("hookSpecificOutput").at("permissionDecision") == "deny");
  hook::HookOutcome context;
  context.event_name = "SessionStart";
  context.additional_context = "x is down";
  CHECK(json::parse(copilot().dialect.answer_json(context).out).at("additionalContext") == "x is down");
  CHECK(copilot().allow_exit_code == 0);
}

TEST_CASE("copilot: the user's servers and a trusted workspace's, which replace them whole", "[agent_copilot]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  util::MapEnvironment env{{"HOME", home.string()}};
  write(home / ".copilot" / "mcp-config.json",
        R"({"mcpServers":{"svc":{"type":"local","command":"/bin/true","args":["user"],"cwd":"sub"},"off":{"command":"/bin/true"}}})");
  write(home / ".copilot" / "settings.json", R"({"disabledMcpServers":["off"]})");
  write(proj / ".github" / "mcp.json", R"({"mcpServers":{"svc":{"type":"http","url":"http://127.0.0.1:9/mcp"}}})");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  config::Resolution res = copilot().catalogue.resolve(in, env);
  CHECK_FALSE(res.trusted);
  REQUIRE(res.winner("svc"));
  CHECK(res.winner("svc")->scope == config::Scope::user);
  REQUIRE(res.winner("svc")->resolved);
  CHECK(std::holds_alternative<config::StdioServer>(res.winner("svc")->resolved->transport));
  // Its `cwd` is taken from the session's folder, as Copilot CLI 1.0.102 started it.
  CHECK(std::get<config::StdioServer>(res.winner("svc")->resolved->transport).cwd == proj / "sub");
  CHECK(res.candidates_for("off")[0]->standing == config::Standing::disabled);
  write(home / ".copilot" / "config.json", "// managed\n{\"trustedFolders\":[\"" + dir.path().string() + "\"]}\n");
  res = copilot().catalogue.resolve(in, env);
  CHECK(res.trusted);
  CHECK(res.winner("svc")->scope == config::Scope::project);
  CHECK(std::get<config::HttpServer>(res.winner("svc")->resolved->transport).url.for_transport() == "http://127.0.0.1:9/mcp");
}

TEST_CASE("copilot: install writes the PascalCase events on every tool in ~/.copilot/settings.json", "[agent_copilot]") {
  const util::MapEnvironment env{{"HOME", "/home/u"}};
  CHECK(copilot().registration.install_file(agent::InstallScope::user, env, "/p") ==
        std::optional<fs::path>("/home/u/.copilot/settings.json"));
  CHECK_FALSE(copilot().registration.install_file(agent::InstallScope::project, env, "/p"));
  const auto events = copilot().registration.events();
  REQUIRE(events.size() == 4);
  CHECK(events[0].name == "PreToolUse");
  CHECK(events[0].matcher == ".*");
  CHECK(agent::hook_command("/usr/bin/mcphealth", copilot()) == "/usr/bin/mcphealth hook --agent copilot");
}

} // namespace test_agent_copilot
