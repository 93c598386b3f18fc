#include <mcphealth/config/settings.hpp>
#include <mcphealth/config/variables_file.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using util::MapEnvironment;

TEST_CASE("settings default to the JS hook's values", "[settings]") {
  config::Settings s = config::resolve_settings(MapEnvironment({{"HOME", "/h"}}), {});
  CHECK(s.ttl_ms.value == 120'000);
  CHECK(s.timeout_ms.value == 5'000);
  CHECK(s.backoff_ms.value == 30'000);
  CHECK(s.max_backoff_ms.value == 600'000);
  CHECK(s.reconnect_timeout_ms.value == 5'000);
  CHECK_FALSE(s.fail_open.value);
  CHECK(s.state_path.value == "/h/.claude/mcp-health-cache.json");
  CHECK(s.state_path.origin.kind == config::Origin::Kind::built_in);
  CHECK(s.state_path.origin.text() == "default");
  CHECK(s.warnings.empty());
}

TEST_CASE("settings come from variables and say which", "[settings]") {
  MapEnvironment env({{"HOME", "/h"}, {"MCPHEALTH_TTL_MS", "5"}, {"ECC_MCP_HEALTH_FAIL_OPEN", "yes"},
                      {"ECC_MCP_HEALTH_STATE_PATH", "~/s.json"}});
  config::Settings s = config::resolve_settings(env, {});
  CHECK(s.ttl_ms.value == 5);
  CHECK(s.ttl_ms.origin.kind == config::Origin::Kind::variable);
  CHECK(s.ttl_ms.origin.name == "MCPHEALTH_TTL_MS");
  CHECK(s.ttl_ms.origin.text() == "variable MCPHEALTH_TTL_MS");
  CHECK(s.fail_open.value);
  CHECK(s.state_path.value == "/h/s.json");
}

TEST_CASE("a malformed number is ignored with a warning", "[settings]") {
  config::Settings s = config::resolve_settings(MapEnvironment({{"ECC_MCP_HEALTH_TIMEOUT_MS", "5s"}}), {});
  CHECK(s.timeout_ms.value == 5'000);
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].code == config::SettingWarning::Code::not_a_whole_number);
  CHECK(s.warnings[0].text().find("ECC_MCP_HEALTH_TIMEOUT_MS=5s") != std::string::npos);
}

TEST_CASE("a number too large to add to a clock is capped with a warning", "[settings]") {
  config::Settings s =
      config::resolve_settings(MapEnvironment({{"MCPHEALTH_TTL_MS", "9223372036854775807"}}), {});
  CHECK(s.ttl_ms.value == 1'000'000'000'000);
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].code == config::SettingWarning::Code::capped);
  CHECK(s.warnings[0].variable == "MCPHEALTH_TTL_MS");
}

TEST_CASE("the config path variable splits on colons and warns about ~", "[settings]") {
  MapEnvironment env({{"HOME", "/h"}, {"ECC_MCP_CONFIG_PATH", "/a.json:~/b.json::$HOME/c.json"}});
  config::Settings s = config::resolve_settings(env, {});
  REQUIRE(s.config_paths.value.size() == 3);
  CHECK(s.config_paths.value[0] == "/a.json");
  CHECK(s.config_paths.value[1] == "/h/b.json");
  CHECK(s.config_paths.value[2] == "/h/c.json");
  CHECK(s.warnings.size() == 2);
}

TEST_CASE("flags win over variables", "[settings]") {
  config::SettingsOverrides flags;
  flags.state_path = "/flag.json";
  flags.config_paths = {"/x.json"};
  MapEnvironment env({{"ECC_MCP_HEALTH_STATE_PATH", "/var.json"}, {"ECC_MCP_CONFIG_PATH", "/y.json"}});
  config::Settings s = config::resolve_settings(env, flags);
  CHECK(s.state_path.value == "/flag.json");
  CHECK(s.state_path.origin.text() == "flag --state");
  CHECK(s.config_paths.value == std::vector<std::filesystem::path>{"/x.json"});
}

TEST_CASE("a timeout of 0 is refused like the policy file refuses it and a TTL of 0 is kept", "[settings]") {
  config::Settings s = config::resolve_settings(
      MapEnvironment({{"MCPHEALTH_TIMEOUT_MS", "0"}, {"ECC_MCP_RECONNECT_TIMEOUT_MS", "0"}, {"ECC_MCP_HEALTH_TTL_MS", "0"}}), {});
  CHECK(s.timeout_ms.value == config::k_default_timeout_ms);
  CHECK(s.reconnect_timeout_ms.value == config::k_default_reconnect_timeout_ms);
  CHECK(s.ttl_ms.value == 0);
  REQUIRE(s.warnings.size() == 2);
  CHECK(s.warnings[0].code == config::SettingWarning::Code::zero_timeout);
  // The value in force, where each command takes it: probe waits as long as Claude Code's start-up does.
  CHECK(s.warnings[0].text() == "ignoring MCPHEALTH_TIMEOUT_MS=0: a timeout must be at least 1 ms; using the defaults: "
                                "5000 ms in a hook, Claude Code's start-up timeout (MCP_TIMEOUT, else 30000 ms) in "
                                "probe, watch and refresh");
}

TEST_CASE("the variables file has one syntax: a line written reads back as its value, a user's lines are kept",
          "[settings][variables]") {
  for (const std::string value : {"plain", "pm2 restart {server}", "it's", "a'b'c", "", "x=y:z@h/p%1,2+3",
                                  "curl -H \"X: y\" $HOME", "tab\tno"}) {
    INFO(value);
    const std::optional<std::string> line = config::variable_line("KEY", value);
    if (value.find('\t') != std::string::npos) {
      CHECK_FALSE(line); // a control character: no line holds it for all three readers
      continue;
    }
    REQUIRE(line);
    CHECK(config::variables_in(*line + "\n").at("KEY") == value);
  }
  CHECK_FALSE(config::variable_line("1BAD", "x"));
  CHECK_FALSE(config::variable_line("KEY", "a\nb"));
  // Lines out of the syntax are not read (and are kept by a merge); the last line of a key wins.
  const std::string text = "# mine\nexport A=1\nB=\"quoted\"\nC='ok'\nC=again\n";
  const auto vars = config::variables_in(text);
  CHECK(vars.count("A") == 0);
  CHECK(vars.count("B") == 0);
  CHECK(vars.at("C") == "again");
  const config::MergedVariables merged = config::merge_variables(text, {{"C", "other"}, {"D", "new one"}});
  CHECK(merged.text == text + "D='new one'\n");
  CHECK(merged.added == std::vector<std::string>{"D"});
  CHECK(merged.kept_other == std::vector<std::string>{"C"});
}
