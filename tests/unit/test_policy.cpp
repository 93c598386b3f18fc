#include <mcphealth/config/policy.hpp>
#include <mcphealth/recover/recover.hpp>

#include "fakes.hpp"

#include <catch2/catch.hpp>

using namespace mcphealth;
using util::MapEnvironment;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_policy {
namespace {

const MapEnvironment k_env{{"HOME", "/h"}};

config::Policy parse(std::string_view text) {
  return config::parse_policy(text, {"/h/.config/mcphealth/policy.json", {}}, k_env);
}

std::vector<std::string> problem_texts(const config::Policy& p) {
  std::vector<std::string> out;
  for (const auto& problem : p.problems) out.push_back(problem.text());
  return out;
}

} // namespace

TEST_CASE("a valid policy reads every key, lists of entries and patterns", "[policy]") {
  const config::Policy p = parse(R"({"$schema":"x","defaults":{"timeoutMs":9000,"failOpen":false},
    "servers":{"claude.ai Gmail":{"probe":"skip"},"plugin_*":{"protocol":"legacy","ttlMs":0},
               "db":[{"backoffMs":1,"maxBackoffMs":2},{"project":"~/work/app","reconnect":["pm2","restart","{server}"],"reconnectTimeoutMs":7}]}})");
  REQUIRE(p.status == config::Policy::Status::ok);
  CHECK(p.defaults.timeout_ms == 9000);
  REQUIRE(p.rules.size() == 4);
  CHECK(p.rules[0].pattern == "claude_ai_Gmail"); // spelled as tool names spell it
  CHECK(p.rules[1].is_pattern());
  CHECK(p.rules[3].where == "servers.db[1]");
  CHECK(p.rules[3].project == std::filesystem::path("/h/work/app"));
  REQUIRE(p.rules[3].values.reconnect);
  CHECK(p.rules[3].values.reconnect->argv == std::vector<std::string>{"pm2", "restart", "{server}"});
  CHECK(p.has_project_rules());
}

TEST_CASE("JSON errors carry a line and column, and the file is ignored as a whole", "[policy]") {
  const config::Policy p = parse("{\n  \"defaults\": {\"timeoutMs\": 5,}\n}");
  CHECK(p.status == config::Policy::Status::invalid);
  REQUIRE(p.problems.size() == 1);
  CHECK(p.problems[0].line == 2);
  CHECK(p.problems[0].column > 0);
  CHECK(p.problems[0].text().rfind("line 2, column ", 0) == 0);
  CHECK_FALSE(p.defaults.timeout_ms);
}

TEST_CASE("unknown keys get a did-you-mean, wrong types are named, and nothing of an invalid file applies", "[policy]") {
  const config::Policy p = parse(R"({"defaults":{"timeoutMs":1000},"servers":{"a":{"timeotMs":1,"probe":"off",
    "failOpen":"yes","ttlMs":-1,"reconnect":"","project":"rel/dir"},"*":{}},"sever":{}})");
  CHECK(p.status == config::Policy::Status::invalid);
  const std::vector<std::string> texts = problem_texts(p);
  const auto has = [&](const std::string& t) { return std::find(texts.begin(), texts.end(), t) != texts.end(); };
  CHECK(has("servers.a.timeotMs: unknown key; did you mean \"timeoutMs\"?"));
  CHECK(has("servers.a.probe: \"off\" is not skip, liveness, handshake or auto"));
  CHECK(has("servers.a.failOpen: expected true or false, got a string"));
  CHECK(has("servers.a.ttlMs: -1 is out of range (0 to 1000000000000)"));
  CHECK(has("servers.a.reconnect: expected a list of words (run without a shell) or a non-empty string (run with "
            "/bin/sh -c), got an empty one"));
  CHECK(has("servers.a.project: \"rel/dir\" is not an absolute path (or one starting with ~/)"));
  CHECK(has("servers.*: a server name or pattern must name something (use \"defaults\" for every server)"));
  CHECK(has("sever: unknown key; did you mean \"servers\"?"));
  config::Settings base = config::resolve_settings(k_env, {});
  CHECK(config::settings_for(base, p, "a", std::nullopt).timeout_ms.value == 5000);
}

TEST_CASE("precedence: flag over the server's entries over defaults over the environment", "[policy]") {
  const MapEnvironment env{{"HOME", "/h"}, {"ECC_MCP_HEALTH_TTL_MS", "1"}, {"MCPHEALTH_TIMEOUT_MS", "2"}};
  const config::Policy p = parse(R"({"defaults":{"timeoutMs":10,"backoffMs":11},
    "servers":{"g*":{"timeoutMs":20,"probe":"liveness"},"github":[{"timeoutMs":30},{"project":"/p","timeoutMs":40}]}})");
  REQUIRE(p.status == config::Policy::Status::ok);
  const config::Settings base = config::resolve_settings(env, {});
  const config::Settings other = config::settings_for(base, p, "other", std::nullopt);
  CHECK(other.timeout_ms.value == 10);
  CHECK(other.timeout_ms.origin.text() == "policy defaults");
  CHECK(other.ttl_ms.value == 1);
  CHECK(other.ttl_ms.origin.text() == "variable ECC_MCP_HEALTH_TTL_MS");
  const config::Settings gitlab = config::settings_for(base, p, "gitlab", std::nullopt);
  CHECK(gitlab.timeout_ms.value == 20);
  CHECK(gitlab.probe.value == config::ProbeMode::liveness);
  const config::Settings github = config::settings_for(base, p, "github", std::nullopt);
  CHECK(github.timeout_ms.value == 30);
  CHECK(github.timeout_ms.origin.text() == "policy servers.github[0]");
  CHECK(github.probe.value == config::ProbeMode::liveness); // from the pattern, which the name does not override
  CHECK(config::settings_for(base, p, "github", std::filesystem::path("/p")).timeout_ms.value == 40);
  CHECK(config::settings_for(base, p, "github", std::filesystem::path("/q")).timeout_ms.value == 30);
  config::SettingsOverrides flags;
  flags.timeout_ms = 50;
  const config::Settings flagged = config::settings_for(config::resolve_settings(env, flags), p, "github", std::nullopt);
  CHECK(flagged.timeout_ms.value == 50);
  CHECK(flagged.timeout_ms.origin.text() == "flag --timeout-ms");
  CHECK(p.longest_recovery_ms(base) == 2 * 40 + 5000);
}

TEST_CASE("the policy path: flag, variable, XDG, then ~/.config", "[policy]") {
  CHECK(config::resolve_policy_path(k_env, {}).value == "/h/.config/mcphealth/policy.json");
  const MapEnvironment xdg{{"HOME", "/h"}, {"XDG_CONFIG_HOME", "/x"}};
  CHECK(config::resolve_policy_path(xdg, {}).value == "/x/mcphealth/policy.json");
  const MapEnvironment relative_xdg{{"HOME", "/h"}, {"XDG_CONFIG_HOME", "x"}}; // ignored, as the XDG spec says
  CHECK(config::resolve_policy_path(relative_xdg, {}).value == "/h/.config/mcphealth/policy.json");
  const MapEnvironment var{{"HOME", "/h"}, {"MCPHEALTH_POLICY", "~/p.json"}, {"XDG_CONFIG_HOME", "/x"}};
  CHECK(config::resolve_policy_path(var, {}).value == "/h/p.json");
  config::SettingsOverrides flags;
  flags.policy_path = "/f.json";
  CHECK(config::resolve_policy_path(var, flags).origin.text() == "flag --policy");
}

TEST_CASE("a skipped server is not probed, and a policy argv reconnect gets the name as one word", "[policy]") {
  const config::Policy p = parse(R"({"servers":{"s":{"probe":"skip"},"r":{"reconnect":["restart","--name={server}"]}}})");
  const config::Settings base = config::resolve_settings(k_env, {});
  config::Candidate c;
  c.definition.name = "s";
  c.tool_server = "s";
  c.resolved = config::ResolvedServer{};
  testing::FakeProber prober;
  prober.results.push_back(testing::FakeProber::down("x"));
  testing::FakeRunner runner;
  const recover::Recovery skipped = recover::check_and_recover(
      recover::request_for(c, config::settings_for(base, p, c), {}, recover::Reconnect::when_down), prober, runner, k_env);
  CHECK(skipped.result.kind == probe::Kind::skipped);
  CHECK(prober.calls == 0);

  c.definition.name = "r x-y_1";
  c.tool_server = "r";
  const recover::Recovery down = recover::check_and_recover(
      recover::request_for(c, config::settings_for(base, p, c), {}, recover::Reconnect::when_down), prober, runner, k_env);
  CHECK(prober.calls == 2); // the probe, and the re-probe after the command
  REQUIRE(runner.commands.size() == 1);
  CHECK(runner.commands[0] == "restart|--name=r x-y_1");
  CHECK(down.reconnect.attempt == recover::Attempt::ok);
}

TEST_CASE("with no agent waiting a built-in timeout becomes Claude Code's start-up timeout and a chosen one stays", "[policy]") {
  util::MapEnvironment env;
  config::Settings s;
  CHECK(config::unhurried(s, env).timeout_ms.value == config::k_client_startup_timeout_ms);
  env.set("MCP_TIMEOUT", "4000");
  CHECK(config::unhurried(s, env).timeout_ms.value == 4000);
  env.set("MCP_TIMEOUT", "soon");
  CHECK(config::unhurried(s, env).timeout_ms.value == config::k_client_startup_timeout_ms);
  s.timeout_ms = {1500, config::Origin::variable("MCPHEALTH_TIMEOUT_MS")};
  CHECK(config::unhurried(s, env).timeout_ms.value == 1500);
}

} // namespace test_policy

namespace test_policy {

TEST_CASE("a declared check is read per server, as a command, a url or a tool, and wrong ones are named", "[policy][check]") {
  const config::Policy p = parse(R"({"servers":{
    "db":{"check":{"command":["pg_isready","-h","db"]}},
    "api":{"check":{"url":"https://api.example/health","headers":true}},
    "wiki":{"check":{"tool":"ping","arguments":{"deep":false}}},
    "sh":{"check":{"command":"curl -fsS http://127.0.0.1:9/{server}"}}}})");
  REQUIRE(p.status == config::Policy::Status::ok);
  CHECK(p.has_checks());
  REQUIRE(p.rules.size() == 4);
  REQUIRE(p.rules[0].values.check);
  CHECK(p.rules[0].values.check->kind == config::CheckSpec::Kind::command);
  CHECK(p.rules[0].values.check->argv == std::vector<std::string>{"pg_isready", "-h", "db"});
  CHECK(p.rules[0].values.check->text() == "command pg_isready -h db");
  CHECK(p.rules[1].values.check->kind == config::CheckSpec::Kind::url);
  CHECK(p.rules[1].values.check->headers);
  CHECK(p.rules[2].values.check->tool == "ping");
  CHECK(p.rules[2].values.check->arguments == R"({"deep":false})");
  CHECK(p.rules[3].values.check->shell == "curl -fsS http://127.0.0.1:9/{server}");

  const config::Policy bad = parse(R"({"defaults":{"check":{"tool":"ping"}},"servers":{
    "a":{"check":{}},"b":{"check":{"tool":"x","url":"https://h/"}},"c":{"check":{"url":"ftp://h/"}},
    "d":{"check":{"tool":"x","headers":true}},"e":{"check":"pg_isready"},"f":{"check":{"command":[]}},
    "g":{"check":{"tool":"x","arguments":[1]}},"h":{"check":{"url":"https://h/","headrs":true}}}})");
  CHECK(bad.status == config::Policy::Status::invalid);
  const std::vector<std::string> texts = problem_texts(bad);
  CHECK_THAT(texts, Catch::VectorContains(std::string("defaults.check: a check is declared per server: put it under servers.NAME")));
  CHECK_THAT(texts, Catch::VectorContains(std::string("servers.a.check: expected one of \"command\", \"url\" or \"tool\"")));
  CHECK_THAT(texts, Catch::VectorContains(std::string("servers.b.check: expected only one of \"command\", \"url\" or \"tool\"")));
  CHECK_THAT(texts, Catch::VectorContains(std::string("servers.c.check.url: \"ftp://h/\" is not an http:// or https:// URL")));
  CHECK_THAT(texts, Catch::VectorContains(std::string("servers.d.check.headers: unknown key; expected one of: tool, arguments")));
  CHECK_THAT(texts, Catch::VectorContains(
                        std::string("servers.e.check: expected an object with one of \"command\", \"url\" or \"tool\", got a string")));
  CHECK_THAT(texts, Catch::VectorContains(std::string(
                        "servers.f.check.command: expected a list of words (run without a shell) or a non-empty string "
                        "(run with /bin/sh -c), got an empty one")));
  CHECK_THAT(texts, Catch::VectorContains(std::string("servers.g.check.arguments: expected an object of the tool's arguments, got a list")));
  CHECK_THAT(texts, Catch::VectorContains(std::string("servers.h.check.headrs: unknown key; did you mean \"headers\"?")));
}

TEST_CASE("a check's words are shown redacted", "[policy][check]") {
  const config::Policy p = parse(R"({"servers":{"api":{"check":{"url":"https://u:hunter2hunter2@api.example/health?token=abc"}},
    "db":{"check":{"command":["probe","--password=hunter2hunter2"]}}}})");
  REQUIRE(p.status == config::Policy::Status::ok);
  CHECK(p.rules[0].values.check->text().find("hunter2") == std::string::npos);
  CHECK(p.rules[0].values.check->text().find("abc") == std::string::npos);
  CHECK(p.rules[1].values.check->text().find("hunter2") == std::string::npos);
}

TEST_CASE("a check is as trusted as its file: not inside the project, not put there by a project's settings", "[policy][check]") {
  mcphealth::testing::MemoryDisk disk;
  const std::string text = R"({"servers":{"db":{"check":{"command":["pg_isready"]}}}})";
  const MapEnvironment user{{"HOME", "/h"}};
  SECTION("the user's own file runs its checks, and settings_for gives them to the server alone") {
    disk.write("/h/.config/mcphealth/policy.json", text);
    const config::Policy p = config::load_policy({"/h/.config/mcphealth/policy.json", {}}, user, disk, "/work/app");
    CHECK_FALSE(p.checks_refused);
    const config::Settings db = config::settings_for({}, p, "db", std::nullopt);
    REQUIRE(db.check.value);
    CHECK(db.check.origin.text().find("servers.db") != std::string::npos);
    CHECK_FALSE(config::settings_for({}, p, "other", std::nullopt).check.value);
  }
  SECTION("a file inside the project folder does not") {
    disk.write("/work/app/.claude/policy.json", text);
    const config::Policy p = config::load_policy({"/work/app/.claude/policy.json", config::Origin::variable("MCPHEALTH_POLICY")},
                                                 user, disk, "/work/app");
    REQUIRE(p.checks_refused);
    CHECK(*p.checks_refused == "the policy file is inside /work/app, a folder a repository controls");
    const config::Settings db = config::settings_for({}, p, "db", std::nullopt);
    CHECK_FALSE(db.check.value);
    CHECK(db.check_refused == p.checks_refused);
  }
  SECTION("nor one a project's settings point at, through MCPHEALTH_POLICY, XDG_CONFIG_HOME or HOME") {
    disk.write("/elsewhere/policy.json", text);
    for (const char* name : {"MCPHEALTH_POLICY", "XDG_CONFIG_HOME", "HOME"}) {
      const std::string value = std::string(name) == "MCPHEALTH_POLICY" ? "/elsewhere/policy.json" : "/elsewhere";
      disk.write("/work/app/.claude/settings.json", std::string(R"({"env":{")") + name + R"(":")" + value + R"("}})");
      MapEnvironment env{{"HOME", "/h"}};
      env.set(name, value);
      const config::Policy p = config::load_policy({"/elsewhere/policy.json", {}}, env, disk, "/work/app");
      REQUIRE(p.checks_refused);
      CHECK(*p.checks_refused == std::string(name) + " is set by /work/app/.claude/settings.json (its `env`), a project's file");
      // The same variable with another value in this environment (the user's own): the project did not set it.
      env.set(name, value + "2");
      CHECK_FALSE(config::load_policy({"/elsewhere/policy.json", {}}, env, disk, "/work/app").checks_refused);
    }
  }
}

} // namespace test_policy
