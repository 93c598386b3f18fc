// Codex CLI's part of the agent seam, fed with payloads captured from Codex CLI 0.171.0 and literal config.toml
// files.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/agent/codex.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/toml.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <map>

using namespace mcphealth;
using testing::TempDir;
namespace json = boost::json;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_codex {
namespace {

const agent::Agent& codex() { return *agent::find_agent("codex"); }

testing::Payloads g_payloads(codex());

hook::HookCall read(const std::string& text, std::optional<std::string> flag = std::nullopt) {
  return g_payloads.read(text, flag);
}

// As Codex CLI 0.171.0 sent them (ids shortened).
const std::string k_pre = R"({"session_id":"01a2","turn_id":"01a3","transcript_path":"/home/user/.codex/sessions/r.jsonl",)"
                          R"("cwd":"/home/user/src/codexproj","hook_event_name":"PreToolUse","model":"fake-model",)"
                          R"("permission_mode":"bypassPermissions","tool_name":"mcp__my_svc_v2__echo",)"
                          R"("tool_input":{"text":"hello"},"tool_use_id":"call_fake_1"})";
const std::string k_post = R"({"session_id":"01a2","turn_id":"01a3","cwd":"/home/user/src/codexproj",)"
                           R"("hook_event_name":"PostToolUse","tool_name":"mcp__svc__echo","tool_input":{"text":"hello"},)"
                           R"("tool_response":{"content":[{"type":"text","text":"ECHO:hello"}],"isError":false},)"
                           R"("tool_use_id":"call_fake_1"})";
const std::string k_session = R"({"session_id":"01a2","transcript_path":"/home/user/.codex/sessions/r.jsonl",)"
                              R"("cwd":"/home/user/src/codexproj","hook_event_name":"SessionStart","model":"fake-model",)"
                              R"("permission_mode":"bypassPermissions","source":"startup"})";

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

hook::HookInput input_of(const std::string& text) { return testing::payload_input(text); }

} // namespace

TEST_CASE("codex: its payloads are Claude Code's shape, the server named as Codex sanitizes it", "[agent_codex]") {
  const hook::HookCall pre = read(k_pre);
  CHECK(pre.event == hook::Event::pre_tool_use);
  REQUIRE(pre.target);
  CHECK(pre.target->server == "my_svc_v2");
  CHECK(pre.target->tool == "echo");
  CHECK(pre.folder == "/home/user/src/codexproj");
  CHECK(read(k_post).event == hook::Event::post_tool_use);
  CHECK(read(k_session).event == hook::Event::session_start);
  CHECK(agent::codex_tool_server("my-svc.v2") == "my_svc_v2");
}

TEST_CASE("codex: its payloads are Claude Code's shape, so it is named by --agent and never guessed", "[agent_codex]") {
  for (const std::string& text : {k_pre, k_post, k_session}) {
    const hook::HookInput in = input_of(text);
    CHECK(agent::detect_agent(in) == nullptr);
  }
  // A Claude Code payload with a turn id or a transcript under /.codex/ is still Claude Code's (read as Codex's, a
  // server cached down was allowed).
  const hook::HookInput claude = input_of(R"({"session_id":"x","hook_event_name":"PreToolUse","tool_name":"mcp__a__b",)"
                                          R"("turn_id":"t","transcript_path":"/home/u/.codex/x.jsonl"})");
  CHECK(agent::detect_agent(claude) == nullptr);
  CHECK(agent::hook_command("/usr/bin/mcphealth", codex()) == "/usr/bin/mcphealth hook --agent codex");
}

TEST_CASE("codex: a block is Claude Code's deny, and the hook's own errors exit 0", "[agent_codex]") {
  hook::HookOutcome block;
  block.decision = hook::HookOutcome::Decision::block;
  block.reason = "svc is down";
  const json::value deny = json::parse(codex().dialect.answer_json(block).out);
  CHECK(deny.at("hookSpecificOutput").at("permissionDecision") == "deny");
  CHECK(deny.at("hookSpecificOutput").at("permissionDecisionReason") == "svc is down");
  CHECK(codex().allow_exit_code == 0);
}

TEST_CASE("codex: config.toml layers merge key by key, a trusted project's over the user's", "[agent_codex]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", proj = dir.path() / "proj";
  util::MapEnvironment env{{"HOME", home.string()}};
  write(home / ".codex" / "config.toml", R"([mcp_servers.svc]
command = "/bin/true"
args = ["user"]
env = { FROM_USER = "1" }

[mcp_servers."my-svc.v2"]
url = "http://127.0.0.1:9/mcp"
bearer_token_env_var = "SVC_TOKEN"

[mcp_servers.off]
command = "/bin/true"
enabled = false
)");
  write(proj / ".codex" / "config.toml", R"([mcp_servers.svc]
args = ["project"]
)");
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  config::Resolution res = codex().catalogue.resolve(in, env);
  CHECK_FALSE(res.trusted);
  REQUIRE(res.winner("svc"));
  CHECK(res.winner("svc")->scope == config::Scope::user);
  CHECK(res.winner("svc")->definition.raw.at("args").at(0) == "user");
  REQUIRE(res.winner("my_svc_v2"));
  CHECK(res.winner("my_svc_v2")->definition.raw.at("headers").at("Authorization") == "Bearer ${SVC_TOKEN}");
  CHECK(std::holds_alternative<config::HttpServer>(res.winner("my_svc_v2")->resolved->transport));
  REQUIRE(res.candidates_for("off").size() == 1);
  CHECK(res.candidates_for("off")[0]->standing == config::Standing::disabled);
  // An untrusted project's definition is listed, never started.
  bool refused = false;
  for (const config::Candidate& c : res.candidates) refused |= c.scope == config::Scope::project && c.standing == config::Standing::not_approved;
  CHECK(refused);

  std::ofstream(home / ".codex" / "config.toml", std::ios::app) << "\n[projects.\"" << proj.string() << "\"]\ntrust_level = \"trusted\"\n";
  res = codex().catalogue.resolve(in, env);
  CHECK(res.trusted);
  const config::Candidate* svc = res.winner("svc");
  REQUIRE(svc);
  CHECK(svc->scope == config::Scope::project);
  CHECK(svc->definition.raw.at("args").at(0) == "project");
  CHECK(svc->definition.raw.at("env").at("FROM_USER") == "1"); // the user's keys the project does not set stay
  CHECK(std::find(res.read_files.begin(), res.read_files.end(), proj / ".codex" / "config.toml") != res.read_files.end());
}

namespace {
/// The disk, except for the files it is given: the system's config.toml is outside any scratch folder.
class DiskWith final : public util::FileReader {
public:
  explicit DiskWith(std::map<fs::path, std::string> files) : m_files(std::move(files)) {}
  util::Result<std::string, util::ReadError> read(const fs::path& path, std::size_t max_bytes) override {
    if (auto it = m_files.find(path); it != m_files.end()) return it->second;
    return util::disk().read(path, max_bytes);
  }
  std::optional<util::FileStamp> stat(const fs::path& path) override {
    if (auto it = m_files.find(path); it != m_files.end()) return util::FileStamp{static_cast<std::int64_t>(it->second.size()), 0, true};
    return util::disk().stat(path);
  }
  bool executable(const fs::path& path) override { return util::disk().executable(path); }
  fs::path real_path(const fs::path& path) override { return util::disk().real_path(path); }

private:
  std::map<fs::path, std::string> m_files;
};
} // namespace

TEST_CASE("codex: /etc/codex/config.toml lies under the user's, key by key, and CODEX_HOME replaces ~/.codex",
          "[agent_codex]") {
  // As `codex mcp list` showed it (0.171.0): the user's `command` over the system's, the system's `args` kept.
  TempDir dir;
  const fs::path home = dir.path() / "home", alt = dir.path() / "alt", proj = dir.path() / "proj";
  write(home / ".codex" / "config.toml", "[mcp_servers.svc]\ncommand = \"/bin/true\"\n");
  write(alt / "config.toml", "[mcp_servers.other]\ncommand = \"/bin/true\"\n");
  DiskWith reader(std::map<fs::path, std::string>{
      {"/etc/codex/config.toml", "[mcp_servers.svc]\ncommand = \"/bin/false\"\nargs = [\"sys\"]\n\n"
                                 "[mcp_servers.managed]\ncommand = \"/bin/true\"\n"}});
  config::DiscoveryInputs in;
  in.project_dir = proj;
  in.home = home;
  in.reader = &reader;
  config::Resolution res = codex().catalogue.resolve(in, util::MapEnvironment{{"HOME", home.string()}});
  REQUIRE(res.winner("svc"));
  CHECK(res.winner("svc")->scope == config::Scope::user);
  CHECK(res.winner("svc")->definition.raw.at("command") == "/bin/true");
  CHECK(res.winner("svc")->definition.raw.at("args").at(0) == "sys");
  REQUIRE(res.winner("managed"));
  CHECK(res.winner("managed")->scope == config::Scope::managed);

  // Codex passes a stdio server only a few of its variables and the ones `env_vars` lists, in the `cwd` it names
  // (from the session's folder), its args as written; seen from a server that printed them.
  write(home / ".codex" / "config.toml",
        "[mcp_servers.svc]\ncommand = \"/bin/true\"\nargs = [\"${HOME}\"]\ncwd = \"sub\"\nenv_vars = [\"LISTED\"]\n");
  res = codex().catalogue.resolve(
      in, util::MapEnvironment{{"HOME", home.string()}, {"PATH", "/bin"}, {"LISTED", "1"}, {"API_KEY", "k"}, {"LANG", "C"}});
  REQUIRE(res.winner("svc"));
  const auto& svc = std::get<config::StdioServer>(res.winner("svc")->resolved->transport);
  CHECK(svc.cwd == proj / "sub");
  CHECK(svc.args == std::vector<std::string>{"${HOME}"}); // as written: Codex does not expand it
  CHECK(svc.environment == std::vector<std::string>{"HOME=" + home.string(), "LANG=C", "LISTED=1", "PATH=/bin"});

  res = codex().catalogue.resolve(in, util::MapEnvironment{{"HOME", home.string()}, {"CODEX_HOME", alt.string()}});
  CHECK(res.winner("other"));
  REQUIRE(res.winner("svc"));
  CHECK(res.winner("svc")->scope == config::Scope::managed); // ~/.codex is not read at all
}

TEST_CASE("codex: a project is its git root, and every folder down to the session's adds its file", "[agent_codex]") {
  TempDir dir;
  const fs::path home = dir.path() / "home", repo = dir.path() / "repo", sub = repo / "sub";
  util::MapEnvironment env{{"HOME", home.string()}};
  fs::create_directories(repo / ".git");
  write(home / ".codex" / "config.toml", "[projects.\"" + repo.string() + "\"]\ntrust_level = \"trusted\"\n");
  write(repo / ".codex" / "config.toml", "[mcp_servers.top]\ncommand = \"/bin/true\"\n");
  write(sub / ".codex" / "config.toml", "[mcp_servers.low]\ncommand = \"/bin/true\"\n");
  config::DiscoveryInputs in;
  in.project_dir = sub;
  in.home = home;
  const config::Resolution res = codex().catalogue.resolve(in, env);
  CHECK(res.trusted);
  CHECK(res.winner("top"));
  CHECK(res.winner("low"));
}

TEST_CASE("codex: a config.toml that does not parse says where", "[agent_codex]") {
  const util::JsonParse bad = util::parse_toml("[mcp_servers.svc]\ncommand = \n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().line == 2);
  const util::JsonParse good = util::parse_toml(
      "a = 1\nb = [true, \"x\"]\n[t]\nwhen = 1979-05-27\nat = 07:32:00.5\nz = 1979-05-27T07:32:00Z\n"
      "o = 1979-05-27T00:32:00.999999-07:30\nlocal = 1979-05-27T07:32:00\n");
  REQUIRE(good);
  CHECK(good->at("b").at(1) == "x");
  CHECK(good->at("t").at("when") == "1979-05-27");
  CHECK(good->at("t").at("at") == "07:32:00.5");
  CHECK(good->at("t").at("z") == "1979-05-27T07:32:00Z");
  CHECK(good->at("t").at("o") == "1979-05-27T00:32:00.999999-07:30");
  CHECK(good->at("t").at("local") == "1979-05-27T07:32:00");
}

TEST_CASE("codex: install writes hooks.json in Claude Code's shape, which Codex trusts before it runs", "[agent_codex]") {
  const util::MapEnvironment env{{"HOME", "/home/u"}};
  CHECK(codex().registration.install_file(agent::InstallScope::user, env, "/p") ==
        std::optional<fs::path>("/home/u/.codex/hooks.json"));
  CHECK(codex().registration.install_file(agent::InstallScope::project, env, "/p") ==
        std::optional<fs::path>("/p/.codex/hooks.json"));
  CHECK(codex().registration.install_file(agent::InstallScope::user, util::MapEnvironment{{"CODEX_HOME", "/c"}}, "/p") ==
        std::optional<fs::path>("/c/hooks.json"));
  CHECK(codex().registration.trust() != nullptr);
  const auto events = codex().registration.events();
  REQUIRE(events.size() == 3);
  CHECK(events[0].name == "PreToolUse");
  CHECK(codex().registration.required_events() == std::vector<std::string>{"PreToolUse"});
}

namespace {

/// One rollout line as Codex CLI 0.171.0 writes an MCP call's end.
std::string mcp_call_line(const std::string& at, const std::string& server, const std::string& status,
                          const std::string& error = {}) {
  json::object item{{"type", "McpToolCall"}, {"id", "call_1"},
                    {"server", server},      {"tool", "echo"},
                    {"status", status},      {"duration", json::object{{"secs", 1}, {"nanos", 500'000'000}}}};
  if (!error.empty()) item["error"] = json::object{{"message", error}};
  return json::serialize(
             json::object{{"timestamp", at},
                          {"type", "event_msg"},
                          {"payload", json::object{{"type", "item_completed"}, {"item", std::move(item)}}}}) +
         "\n";
}

} // namespace

TEST_CASE("codex: the rollout's last call to a server says whether it failed, read from the file's end",
          "[agent_codex]") {
  TempDir dir;
  const fs::path file = dir.path() / "rollout.jsonl";
  const std::string died = "tool call error: tool call failed for `my-svc/echo`\n\nCaused by:\n    Transport closed";
  std::ofstream(file) << R"({"type":"session_meta","payload":{}})"
                      << "\n"
                      << mcp_call_line("2026-12-03T14:49:34.187Z", "my-svc", "completed")
                      << mcp_call_line("2026-12-03T14:49:34.937Z", "my-svc", "failed", died)
                      << mcp_call_line("2026-12-03T14:49:35.000Z", "other", "completed")
                      << R"({"type":"event_msg","payload":{"type":"token_count"}})"
                      << "\n";
  const auto missed = agent::last_failure_in_rollout(file, "my_svc");
  REQUIRE(missed);
  CHECK(missed->text == died);
  CHECK(missed->ended_at_ms == *util::parse_iso8601_ms("2026-12-03T14:49:34.937Z"));
  CHECK(missed->duration_ms == 1500);
  CHECK_FALSE(agent::last_failure_in_rollout(file, "other")); // its last call succeeded
  CHECK_FALSE(agent::last_failure_in_rollout(file, "absent"));
  // A success after the failure: the server is back.
  std::ofstream(file, std::ios::app) << mcp_call_line("2026-12-03T14:50:00.000Z", "my-svc", "completed");
  CHECK_FALSE(agent::last_failure_in_rollout(file, "my_svc"));
  // Only the last bytes are read: a failure beyond them is not seen, and a line cut by the window is skipped.
  std::ofstream(file, std::ios::app) << mcp_call_line("2026-12-03T14:51:00.000Z", "my-svc", "failed", died)
                                     << std::string(300, 'x') << "\n";
  CHECK(agent::last_failure_in_rollout(file, "my_svc"));
  CHECK_FALSE(agent::last_failure_in_rollout(file, "my_svc", 320));
  CHECK_FALSE(agent::last_failure_in_rollout(dir.path() / "missing.jsonl", "my_svc"));
}

TEST_CASE("a UTC time reads back as format_iso8601_ms writes it", "[clock]") {
  CHECK(util::parse_iso8601_ms(util::format_iso8601_ms(1796309374937)) == std::optional<util::EpochMs>(1796309374937));
  CHECK(util::parse_iso8601_ms("2026-12-03T14:49:34Z") == std::optional<util::EpochMs>(1796309374000));
  CHECK(util::parse_iso8601_ms("2026-12-03T14:49:34.9371234Z") == std::optional<util::EpochMs>(1796309374937));
  for (const char* bad : {"", "2026-12-03", "2026-12-03T14:49:34", "2026-13-03T14:49:34Z", "2026-12-03T14:49:34.Z",
                          "2026-12-03T14:49:34.937+01:00"}) {
    CHECK_FALSE(util::parse_iso8601_ms(bad));
  }
}

TEST_CASE("codex: its own words for a closed transport are its framing, not a tool's text", "[agent_codex]") {
  const auto wordings = agent::find_agent("codex")->dialect.failure_wordings();
  const hook::FailureReading died = hook::read_failure(
      "tool call error: tool call failed for `svc/echo`\n\nCaused by:\n    Transport closed", nullptr, wordings);
  CHECK(died.says == hook::FailureReading::Says::transport);
  CHECK_FALSE(died.wording.empty());
  // A tool reporting its own backend's connection: not Codex's wording (the generic signs decide, as for any text).
  CHECK(hook::read_failure("database said: Transport closed", nullptr, wordings).wording.empty());
}

} // namespace test_agent_codex
