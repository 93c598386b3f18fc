// opencode's part of the agent seam: the payloads mcphealth's plugin sends (built from opencode 1.18.33's hook
// arguments, ../shared/agents/captured/opencode-*.json), its config files merged key by key, and the plugin
// install writes. No process.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace fs = std::filesystem;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agent_opencode {
namespace {

const agent::Agent& opencode() { return *agent::find_agent("opencode"); }

} // namespace

TEST_CASE("opencode: the plugin's PreToolUse names the tool as opencode does, every split kept", "[agent_opencode]") {
  testing::Payloads payloads(opencode());
  const hook::HookCall call =
      payloads.read(R"({"hook_event_name":"PreToolUse","tool_name":"my_svc_echo","cwd":"/p","session_id":"ses_1"})");
  CHECK(call.event == hook::Event::pre_tool_use);
  REQUIRE(call.target);
  CHECK(call.target->server == "my_svc"); // longest first; the configured names settle it
  CHECK(call.readings.size() == 2);
  CHECK(call.folder == "/p");
  CHECK(agent::detect_agent(payloads.last()) == nullptr); // only `--agent opencode` says so
}

TEST_CASE("opencode: a failure the plugin hands over reads in opencode's words", "[agent_opencode]") {
  testing::Payloads payloads(opencode());
  const hook::HookCall call = payloads.read(
      R"({"hook_event_name":"PostToolUseFailure","tool_name":"svc_echo","cwd":"/p","error":"Streamable HTTP error: Error POSTing to endpoint: {\"error\":\"down\"}"})");
  CHECK(call.event == hook::Event::post_tool_use_failure);
  const hook::FailureReading reading =
      hook::read_failure(call.failure_text, call.tool_input, opencode().dialect.failure_wordings());
  CHECK(reading.says == hook::FailureReading::Says::http_unknown);
}

TEST_CASE("opencode: a project's entry merges over the user's, key by key, and starts only from a session",
          "[agent_opencode]") {
  testing::MemoryDisk disk;
  disk.files["/home/u/.config/opencode/opencode.json"] =
      R"({"mcp":{"svc":{"type":"local","command":["/bin/user","--flag"],"environment":{"A":"{env:TOKEN}"}},)"
      R"("off":{"type":"local","command":["/bin/off"]},"remote":{"type":"remote","url":"http://127.0.0.1:9/mcp"}}})";
  disk.files["/p/opencode.json"] = R"({"mcp":{"svc":{"command":["/bin/project"]},"off":{"enabled":false}}})";
  const util::MapEnvironment env{{"HOME", "/home/u"}, {"TOKEN", "t"}};
  config::DiscoveryInputs in = config::discovery_inputs(env, {}, "/p");
  in.reader = &disk;
  config::Resolution res = opencode().catalogue.resolve(in, env);
  // probe, status: the repository's keys make svc the project's, which nothing says opencode runs here.
  CHECK_FALSE(res.winner("svc"));
  CHECK(res.winner("remote"));
  opencode().catalogue.read_start(in, env);
  res = opencode().catalogue.resolve(in, env);
  const config::Candidate* svc = res.winner("svc");
  REQUIRE(svc);
  CHECK(svc->scope == config::Scope::project);
  CHECK(json::serialize(svc->definition.raw) == R"({"command":"/bin/project","args":[],"env":{"A":"{env:TOKEN}"}})");
  REQUIRE(svc->resolved);
  const auto& environment = std::get<config::StdioServer>(svc->resolved->transport).environment;
  CHECK(std::find(environment.begin(), environment.end(), "A=t") != environment.end());
  // The project's `{"enabled": false}` turns the user's server off.
  CHECK_FALSE(res.winner("off"));
  CHECK(res.candidates_for("off").front()->standing == config::Standing::disabled);
  const config::Candidate* remote = res.winner("remote");
  REQUIRE(remote);
  CHECK(std::holds_alternative<config::HttpServer>(remote->resolved->transport));
}

TEST_CASE("opencode: a remote server's ${NAME} is sent as written, and only {env:NAME} is expanded", "[agent_opencode]") {
  testing::MemoryDisk disk;
  disk.files["/home/u/.config/opencode/opencode.json"] =
      R"({"mcp":{"r":{"type":"remote","url":"http://127.0.0.1:9/mcp?k=${SECRET}",)"
      R"("headers":{"Authorization":"Bearer ${SECRET}","X-Key":"{env:SECRET}"}}}})";
  const util::MapEnvironment env{{"HOME", "/home/u"}, {"SECRET", "s3"}};
  config::DiscoveryInputs in = config::discovery_inputs(env, {}, "/p");
  in.reader = &disk;
  const config::Resolution res = opencode().catalogue.resolve(in, env);
  const config::Candidate* r = res.winner("r");
  REQUIRE(r);
  REQUIRE(r->resolved);
  const auto& http = std::get<config::HttpServer>(r->resolved->transport);
  CHECK(http.url.for_transport() == "http://127.0.0.1:9/mcp?k=${SECRET}");
  CHECK(http.headers == std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer ${SECRET}"},
                                                                        {"X-Key", "s3"}});
}

TEST_CASE("opencode: install writes one plugin of its own that names the hook it runs", "[agent_opencode]") {
  const util::MapEnvironment env{{"HOME", "/home/u"}};
  CHECK(opencode().registration.install_file(agent::InstallScope::user, env, "/p") ==
        std::optional<fs::path>("/home/u/.config/opencode/plugins/mcphealth.js"));
  CHECK(opencode().registration.install_file(agent::InstallScope::project, env, "/p") ==
        std::optional<fs::path>("/p/.opencode/plugins/mcphealth.js"));
  CHECK(agent::writes_plugin(opencode().registration));
  CHECK_FALSE(agent::writes_plugin(agent::default_agent().registration));
  const std::string command = agent::hook_command("/opt/my tools/mcphealth", opencode());
  const std::optional<std::string> text =
      opencode().registration.plugin_text({"/opt/my tools/mcphealth", "hook", "--agent", "opencode"}, command);
  REQUIRE(text);
  CHECK(agent::plugin_command(*text) == std::optional<std::string>(command));
  CHECK(text->find(R"(const HOOK = ["/opt/my tools/mcphealth","hook","--agent","opencode"];)") != std::string::npos);
  CHECK_FALSE(agent::plugin_command("export const Other = async () => ({});\n"));
}

} // namespace test_agent_opencode
