#include <mcphealth/config/expand.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;

TEST_CASE("variables expand, with defaults, and unset ones stay literal", "[expand]") {
  util::MapEnvironment env({{"A", "1"}, {"EMPTY", ""}});
  std::vector<std::string> unset;
  CHECK(config::expand_vars("x${A}y", env, unset) == "x1y");
  CHECK(config::expand_vars("${B:-dflt}", env, unset) == "dflt");
  CHECK(config::expand_vars("${EMPTY:-dflt}", env, unset) == "dflt");
  CHECK(config::expand_vars("${A:-dflt}", env, unset) == "1");
  CHECK(unset.empty());
  CHECK(config::expand_vars("k=${MISSING}/${MISSING}", env, unset) == "k=${MISSING}/${MISSING}");
  CHECK(unset == std::vector<std::string>{"MISSING"});
  CHECK(config::expand_vars("$A ${ unclosed", env, unset) == "$A ${ unclosed");
}
