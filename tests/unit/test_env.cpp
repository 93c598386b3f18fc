#include <mcphealth/util/env.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth::util;

TEST_CASE("every JS-hook variable has an MCPHEALTH_ spelling", "[env]") {
  CHECK(mcphealth_spelling("ECC_MCP_HEALTH_TTL_MS") == "MCPHEALTH_TTL_MS");
  CHECK(mcphealth_spelling("ECC_MCP_CONFIG_PATH") == "MCPHEALTH_CONFIG_PATH");
  CHECK(mcphealth_spelling("ECC_MCP_RECONNECT_COMMAND") == "MCPHEALTH_RECONNECT_COMMAND");
  CHECK(mcphealth_spelling("ECC_HOOK_INPUT_MAX_BYTES") == "MCPHEALTH_INPUT_MAX_BYTES");
  CHECK(mcphealth_spelling("ECC_MCP_HEALTH_FAIL_OPEN") == "MCPHEALTH_FAIL_OPEN");
}

TEST_CASE("the MCPHEALTH_ spelling wins when both are set", "[env]") {
  MapEnvironment env({{"ECC_MCP_HEALTH_TTL_MS", "1"}, {"MCPHEALTH_TTL_MS", "2"}});
  auto found = lookup_setting(env, "ECC_MCP_HEALTH_TTL_MS");
  REQUIRE(found);
  CHECK(found->value == "2");
  CHECK(found->name == "MCPHEALTH_TTL_MS");
  MapEnvironment only_js({{"ECC_MCP_HEALTH_TTL_MS", "1"}});
  CHECK(lookup_setting(only_js, "ECC_MCP_HEALTH_TTL_MS")->name == "ECC_MCP_HEALTH_TTL_MS");
  CHECK_FALSE(lookup_setting(MapEnvironment{}, "ECC_MCP_HEALTH_TTL_MS"));
}

TEST_CASE("truthy means 1, true or yes in any case", "[env]") {
  for (auto v : {"1", "true", "TRUE", "yes", "Yes"}) CHECK(is_truthy(v));
  for (auto v : {"0", "false", "no", "", "on", "2"}) CHECK_FALSE(is_truthy(v));
}

TEST_CASE("home is HOME", "[env]") {
  MapEnvironment env({{"HOME", "/h"}});
  CHECK(home_dir(env) == "/h");
}
