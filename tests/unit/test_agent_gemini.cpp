// Gemini CLI's part of the agent seam, fed with payloads captured from Gemini CLI 0.61.0 and literal settings files.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
using testing::TempDir;
namespace json = boost::json;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_gemini {
namespace {

const agent::Agent& gemini() { return *agent::find_agent("gemini"); }

// A call points into its input: the inputs stay alive for the file's tests (the earlier helper read a temporary).
testing::Payloads g_payloads(gemini());

hook::HookCall read(const std::string& text, std::optional<std::string> flag = std::nullopt) {
  return g_payloads.read(text, flag);
}

hook::HookInput input_of(const std::string& text) { return testing::payload_input(text); }

// As Gemini CLI 0.61.0 sent them (the session and paths shortened).
const std::string k_before_tool =
    R"({"session_id":"6c3f","transcript_path":"/home/user/.gemini/tmp/gemproj/chats/session-6c3f.jsonl",)"
    R"("cwd":"/home/user/src/gemproj","hook_event_name":"BeforeTool","timestamp":"2026-12-01T19:46:11.121Z",)"
    R"("tool_name":"mcp_svc_echo","tool_input":{"text":"hello"},)"
    R"("mcp_context":{"server_name":"svc","tool_name":"echo","command":"python3","args":["/opt/fixtures/fake_mcp.py","gemini-svc"]}})";
const std::string k_after_tool_died =
    R"({"session_id":"f4dc","cwd":"/home/user/src/gemproj","hook_event_name":"AfterTool","tool_name":"mcp_svc_echo",)"
    R"("tool_input":{"text":"hello"},"tool_response":{"llmContent":"...","returnDisplay":"Error: MCP tool 'echo' reported an error.",)"
    R"("error":{"message":"MCP tool 'echo' reported tool error for function call: {\"name\":\"echo\",\"args\":{\"text\":\"hello\"}} )"
    R"(with response: [{\"functionResponse\":{\"name\":\"echo\",\"response\":{\"error\":{\"message\":\"MCP error -32000: )"
    R"(Connection closed\",\"isError\":true}}}}]","type":"mcp_tool_error"}},)"
    R"("mcp_context":{"server_name":"svc","tool_name":"echo","command":"python3","args":["/opt/fixtures/fake_mcp.py","gemini-svc"]}})";
const std::string k_after_tool_ok =
    R"({"session_id":"6c3f","cwd":"/home/user/src/gemproj","hook_event_name":"AfterTool","tool_name":"mcp_svc_echo",)"
    R"("tool_input":{"text":"hello"},"tool_response":{"llmContent":[{"text":"ECHO:hello"}],"returnDisplay":"ECHO:hello"},)"
    R"("mcp_context":{"server_name":"svc","tool_name":"echo","command":"python3","args":[]}})";
const std::string k_session_start =
    R"({"session_id":"6c3f","transcript_path":"/home/user/.gemini/tmp/gemproj/chats/session-6c3f.jsonl",)"
    R"("cwd":"/home/user/src/gemproj","hook_event_name":"SessionStart","timestamp":"2026-12-01T19:46:10.612Z","source":"startup"})";

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

} // namespace

TEST_CASE("gemini: BeforeTool names the server outright in mcp_context", "[agent_gemini]") {
  const hook::HookCall call = read(k_before_tool);
  CHECK(call.event == hook::Event::pre_tool_use);
  CHECK(call.event_name == "BeforeTool");
  REQUIRE(call.target);
  CHECK(call.target->server == "svc");
  CHECK(call.target->tool == "echo");
  CHECK(call.readings.empty());
  CHECK(call.folder == "/home/user/src/gemproj");
}

TEST_CASE("gemini: an AfterTool with an error is a failure in the server's own words", "[agent_gemini]") {
  const hook::HookCall failed = read(k_after_tool_died);
  CHECK(failed.event == hook::Event::post_tool_use_failure);
  CHECK(failed.failure_text == "MCP error -32000: Connection closed");
  const hook::HookCall ok = read(k_after_tool_ok);
  CHECK(ok.event == hook::Event::post_tool_use);
  CHECK(ok.failure_text.empty());
  // --event AfterTool (as install writes it) reads the same way.
  CHECK(read(k_after_tool_died, "AfterTool").event == hook::Event::post_tool_use_failure);
}

TEST_CASE("gemini: without mcp_context the tool name is read every way it splits", "[agent_gemini]") {
  const hook::HookCall call = read(R"({"hook_event_name":"BeforeTool","tool_name":"mcp_my_srv_echo"})");
  REQUIRE(call.target);
  CHECK(call.target->server == "my");
  REQUIRE(call.readings.size() == 2);
  CHECK(call.readings[0].server == "my_srv");
  CHECK(call.readings[0].tool == "echo");
  CHECK_FALSE(read(R"({"hook_event_name":"BeforeTool","tool_name":"read_file"})").target);
}

TEST_CASE("gemini: its tool events are recognized by their names and its SessionStart is read by --agent", "[agent_gemini]") {
  CHECK(read(k_session_start).event == hook::Event::session_start);
  for (const std::string& payload : {k_before_tool, k_after_tool_ok}) CHECK(agent::detect_agent(input_of(payload)) == &gemini());
  // Claude Code's shape: not guessed from where the transcript is.
  CHECK(agent::detect_agent(input_of(k_session_start)) == nullptr);
  // A cut payload is recognized by nobody: its text may stop inside the model's arguments.
  hook::HookInput cut;
  cut.raw = R"({"session_id":"x","hook_event_name":"BeforeTool","tool_name":"mcp_svc_ec)";
  cut.incomplete = true;
  CHECK(agent::detect_agent(cut) == nullptr);
}

TEST_CASE("gemini: a block is a decision of deny with a reason and context goes in hookSpecificOutput", "[agent_gemini]") {
  hook::HookOutcome block;
  block.decision = hook::HookOutcome::Decision::block;
  block.event_name = "BeforeTool";
  block.reason = "svc is down";
  CHECK(gemini().dialect.answer_json(block).out == "{\"decision\":\"deny\",\"reason\":\"svc is down\"}\n");
  CHECK(gemini().dialect.answer_json(block).exit_code == 0);
  hook::HookOutcome context;
  context.event_name = "SessionStart";
  context.additional_context = "x is down";
  CHECK(gemini().dialect.answer_json(context).out ==
        R"({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x is down"}})"
        "\n");
  CHECK(gemini().allow_exit_code == 0);
}

TEST_CASE("gemini: a trusted folder's project server replaces the user one whole", "[agent_gemini]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  util::MapEnvironment env{{"HOME", home.string()},
                           {"GEMINI_CLI_SYSTEM_SETTINGS_PATH", (dir.path() / "etc" / "settings.json").string()}};
  write(home / ".gemini" / "settings.json",
        R"({"mcpServers":{"svc":{"command":"/bin/true","args":["user"]},"web":{"httpUrl":"http://127.0.0.1:9/mcp"},)"
        R"("old":{"url":"http://127.0.0.1:9/sse"}}})");
  write(proj / ".gemini" / "settings.json", R"({"mcpServers":{"svc":{"command":"/bin/echo","cwd":"sub"}}})");
  write(home / ".gemini" / "trustedFolders.json", "{\"" + proj.string() + "\":\"TRUST_FOLDER\"}");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  const config::Resolution res = gemini().catalogue.resolve(in, env);
  CHECK(res.trusted);
  const config::Candidate* svc = res.winner("svc");
  REQUIRE(svc);
  CHECK(svc->scope == config::Scope::project);
  CHECK(svc->definition.raw.contains("args") == false);
  // Its `cwd` is taken from the session's folder, as Gemini CLI 0.61.0 started it.
  CHECK(std::get<config::StdioServer>(svc->resolved->transport).cwd == proj / "sub");
  REQUIRE(res.candidates_for("svc").size() == 2);
  CHECK(res.candidates_for("svc")[1]->standing == config::Standing::shadowed);
  const config::Candidate* web = res.winner("web");
  REQUIRE(web);
  REQUIRE(web->resolved);
  const auto* http = std::get_if<config::HttpServer>(&web->resolved->transport);
  REQUIRE(http);
  CHECK(http->type == "http");
  CHECK(std::get<config::HttpServer>(res.winner("old")->resolved->transport).type == "sse");
}

TEST_CASE("gemini: settings with comments are read as Gemini CLI reads them", "[agent_gemini]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  util::MapEnvironment env{{"HOME", home.string()},
                           {"GEMINI_CLI_SYSTEM_SETTINGS_PATH", (dir.path() / "etc" / "settings.json").string()}};
  write(home / ".gemini" / "settings.json",
        "{\n  // the servers\n  \"mcpServers\": {/* one */ \"svc\": {\"command\": \"/bin/true\"}}\n}\n");
  write(home / ".gemini" / "trustedFolders.json", "{\"" + proj.string() + "\":\"TRUST_FOLDER\"}");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  const config::Resolution res = gemini().catalogue.resolve(in, env);
  CHECK(res.winner("svc") != nullptr);
  for (const auto& f : res.files) CHECK(f.status != config::FileReport::Status::parse_error);
}

TEST_CASE("gemini: in a folder it does not trust no server starts not even the user's", "[agent_gemini]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  util::MapEnvironment env{{"HOME", home.string()},
                           {"GEMINI_CLI_SYSTEM_SETTINGS_PATH", (dir.path() / "etc" / "settings.json").string()}};
  write(home / ".gemini" / "settings.json", R"({"mcpServers":{"svc":{"command":"/bin/true"}}})");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  config::Resolution res = gemini().catalogue.resolve(in, env);
  CHECK_FALSE(res.trusted);
  CHECK(res.winner("svc") == nullptr);
  REQUIRE(res.candidates_for("svc").size() == 1);
  CHECK(res.candidates_for("svc")[0]->standing == config::Standing::not_read);
  // A parent's TRUST_PARENT rule covers it; DO_NOT_TRUST nearer wins over a rule further up.
  write(home / ".gemini" / "trustedFolders.json", "{\"" + (proj / "x").string() + "\":\"TRUST_PARENT\"}");
  CHECK(gemini().catalogue.resolve(in, env).trusted);
  write(home / ".gemini" / "trustedFolders.json",
        "{\"" + dir.path().string() + "\":\"TRUST_FOLDER\",\"" + proj.string() + "\":\"DO_NOT_TRUST\"}");
  CHECK_FALSE(gemini().catalogue.resolve(in, env).trusted);
  env.set("GEMINI_CLI_TRUST_WORKSPACE", "true");
  CHECK(gemini().catalogue.resolve(in, env).trusted);
}

TEST_CASE("gemini: mcp.excluded mcp.allowed and `gemini mcp disable` keep a server from starting", "[agent_gemini]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  util::MapEnvironment env{{"HOME", home.string()}, {"GEMINI_CLI_TRUST_WORKSPACE", "true"},
                           {"GEMINI_CLI_SYSTEM_SETTINGS_PATH", (dir.path() / "etc" / "settings.json").string()}};
  write(home / ".gemini" / "settings.json",
        R"({"mcp":{"excluded":["Gone"]},"mcpServers":{"gone":{"command":"/bin/true"},"off":{"command":"/bin/true"},)"
        R"("on":{"command":"/bin/true"}}})");
  write(home / ".gemini" / "mcp-server-enablement.json", R"({"off":{"enabled":false}})");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  config::Resolution res = gemini().catalogue.resolve(in, env);
  CHECK(res.candidates_for("gone")[0]->standing == config::Standing::denied);
  CHECK(res.candidates_for("off")[0]->standing == config::Standing::disabled);
  CHECK(res.winner("on") != nullptr);
  write(dir.path() / "etc" / "settings.json", R"({"mcp":{"allowed":["gone"]}})");
  res = gemini().catalogue.resolve(in, env);
  CHECK(res.candidates_for("on")[0]->standing == config::Standing::denied);
}

TEST_CASE("gemini: install writes BeforeTool and AfterTool on mcp_ tools with a name and a timeout", "[agent_gemini]") {
  const util::MapEnvironment env{{"HOME", "/home/u"}};
  CHECK(gemini().registration.install_file(agent::InstallScope::user, env, "/p") ==
        std::optional<fs::path>("/home/u/.gemini/settings.json"));
  CHECK(gemini().registration.install_file(agent::InstallScope::project, env, "/p") ==
        std::optional<fs::path>("/p/.gemini/settings.json"));
  CHECK_FALSE(gemini().registration.install_file(agent::InstallScope::local, env, "/p"));
  const auto events = gemini().registration.events();
  REQUIRE(events.size() == 3);
  CHECK(events[0].name == "BeforeTool");
  CHECK(events[0].matcher == "mcp_.*");
  CHECK(events[2].matcher.empty());
  const json::object entry = gemini().registration.hook_entry("mcphealth hook --agent gemini");
  CHECK(util::get_string(entry, "name") == std::optional<std::string>("mcphealth"));
  CHECK(entry.contains("timeout"));
  CHECK(agent::hook_command("/usr/bin/mcphealth", gemini()) == "/usr/bin/mcphealth hook --agent gemini");
  CHECK(agent::read_hook_command("mcphealth hook --agent gemini --event PreToolUse")->problem ==
        "--event PreToolUse is not an event mcphealth acts on for Gemini CLI");
}

namespace {

/// The environment Gemini CLI's catalogue would start `svc` (defined by `server`) with, for a hook run in `env`.
std::map<std::string, std::string> started_env(const std::string& server, util::MapEnvironment env,
                                               std::vector<std::string>* argv = nullptr) {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  env.set("HOME", home.string());
  env.set("GEMINI_CLI_TRUST_WORKSPACE", "true");
  env.set("GEMINI_CLI_SYSTEM_SETTINGS_PATH", (dir.path() / "etc" / "settings.json").string());
  write(home / ".gemini" / "settings.json", R"({"mcpServers":{"svc":)" + server + "}}");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  const config::Resolution res = gemini().catalogue.resolve(in, env);
  REQUIRE(res.winner("svc"));
  const auto& stdio = std::get<config::StdioServer>(res.winner("svc")->resolved->transport);
  if (argv) *argv = stdio.args;
  std::map<std::string, std::string> out;
  for (const std::string& e : stdio.environment) out[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
  for (const char* own : {"HOME", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_CLI_SYSTEM_SETTINGS_PATH"}) out.erase(own);
  return out;
}

} // namespace

// As a server that printed its environment saw it under `gemini mcp list` (0.61.0).
TEST_CASE("gemini: a stdio server gets what Gemini CLI's redaction leaves, GEMINI_CLI=1, and env on top", "[agent_gemini]") {
  const util::MapEnvironment env{{"GX", "/opt/gx"}, {"EMPTYV", ""}, {"MY_API_TOKEN", "t0k"}, {"KEYBOARD", "k"},
                                 {"NOTME", "n"}, {"SSH_AUTH_SOCK", "/s"}, {"SOME_URL", "https://u:p@h/"},
                                 {"GIT_CONFIG_COUNT", "1"}, {"GEMINI_CLI_X", "1"}, {"CLIENT_ID", "c"}};
  std::vector<std::string> argv;
  const auto started = started_env(
      R"({"command":"python3","args":["$GX/envsrv.py","/tmp/${EMPTYV:-dflt}.json"],)"
      R"("env":{"NODE_OPTIONS":"--x","MY_SETTING":"${MY_API_TOKEN}","PLAIN":"$GX","K1":"${NOPE}","K2":"x$NOPE"}})",
      env, &argv);
  CHECK(argv == std::vector<std::string>{"/opt/gx/envsrv.py", "/tmp/.json"});
  const std::map<std::string, std::string> expected{
      {"EMPTYV", ""},          {"GEMINI_CLI", "1"},  {"GEMINI_CLI_X", "1"}, {"GIT_CONFIG_COUNT", "1"},
      {"GX", "/opt/gx"},       {"NOTME", "n"},       {"MY_SETTING", "t0k"}, {"PLAIN", "/opt/gx"},
      {"K1", ""},              {"K2", "x"}};
  CHECK(started == expected);
}

TEST_CASE("gemini: in a GitHub Action only the variables it always passes reach a server", "[agent_gemini]") {
  const util::MapEnvironment env{{"GITHUB_SHA", "abc"}, {"PATH", "/bin"}, {"NOTME", "n"}, {"LC_ALL", "C"},
                                 {"GIT_CONFIG_X", "1"}, {"ISSUE_TITLE", "t"}};
  const std::map<std::string, std::string> expected{
      {"PATH", "/bin"}, {"GIT_CONFIG_X", "1"}, {"ISSUE_TITLE", "t"}, {"GEMINI_CLI", "1"}};
  CHECK(started_env(R"({"command":"/bin/true"})", env) == expected);
  util::MapEnvironment surface = env;
  surface.set("GITHUB_SHA", "");
  surface.set("SURFACE", "Github");
  CHECK(started_env(R"({"command":"/bin/true"})", surface) == expected);
}

TEST_CASE("gemini: a value that looks like a credential stays with Gemini CLI, whatever its name", "[agent_gemini]") {
  const std::vector<std::string> secrets = {
      "-----BEGIN OPENSSH PRIVATE KEY-----\nabc", "x -----BEGIN CERTIFICATE----- y", "smtp://me:pw@mail.test",
      "see HTTPS://a:b/c@d", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_" + std::string(36, 'A'),
      "AIzaSy" + std::string(33, 'x'), "AKIAABCDEFGHIJKLMNOP", "eyJhbGci.eyJzdWIi.c2ln", "eyJ..",
      "sk_live_" + std::string(24, '0'), "xoxb-1-a"};
  for (const std::string& value : secrets) {
    util::MapEnvironment env{{"HARMLESS_NAME", value}};
    INFO(value);
    CHECK(started_env(R"({"command":"/bin/true"})", env).count("HARMLESS_NAME") == 0);
  }
  const std::vector<std::string> plain = {"https://example.test/path", "http://u@h/", "ghp_short",
                                          "AKIA-NOT", "eyJonly", "sk_live_short", "xoxz-1", "https://a :b@c"};
  for (const std::string& value : plain) {
    util::MapEnvironment env{{"HARMLESS_NAME", value}};
    INFO(value);
    CHECK(started_env(R"({"command":"/bin/true"})", env).count("HARMLESS_NAME") == 1);
  }
}

} // namespace test_agent_gemini
