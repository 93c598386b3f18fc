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

TEST_CASE("gemini's reading also takes a bare $VAR and keeps an empty value over the default", "[expand]") {
  util::MapEnvironment env({{"A", "1"}, {"EMPTY", ""}, {"A_B", "2"}});
  std::vector<std::string> unset;
  const auto bare = config::VarExpansion::braces_and_bare;
  CHECK(config::expand_vars("$A/x:$A_B.$", env, unset, bare) == "1/x:2.$");
  CHECK(config::expand_vars("${EMPTY:-dflt}|${B:-dflt}", env, unset, bare) == "|dflt");
  CHECK(unset.empty());
  CHECK(config::expand_vars("$MISSING-${MISSING}", env, unset, bare) == "$MISSING-${MISSING}");
  CHECK(unset == std::vector<std::string>{"MISSING"});
  // Claude Code's reading leaves a bare $VAR alone.
  CHECK(config::expand_vars("$A", env, unset) == "$A");
}

TEST_CASE("an unset variable can become empty, and a literal reading expands nothing", "[expand]") {
  util::MapEnvironment env({{"A", "1"}});
  std::vector<std::string> unset;
  CHECK(config::expand_vars("x${NOPE}y$NOPE", env, unset, config::VarExpansion::braces_and_bare,
                            config::UnsetVar::empty) == "xy");
  CHECK(unset.empty());
  CHECK(config::expand_vars("${A}$A", env, unset, config::VarExpansion::literal) == "${A}$A");
}
