// Hook files walked as each agent's layout lists them (agent/hook_file.hpp).
#include <mcphealth/agent/hook_file.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_hook_file {
namespace {
json::array list_of(const char* text) { return json::parse(text).as_array(); }
} // namespace

TEST_CASE("a nested list is read through its groups, a flat one entry by entry, and neither reads the other shape",
          "[hook_file]") {
  const json::array mixed = list_of(R"([{"matcher":"mcp__.*","hooks":[{"command":"a"},{"command":"b"}]},
                                        {"matcher":"mcp__.*","command":"flat"}])");
  std::vector<std::string> nested, flat;
  agent::for_each_hook(mixed, agent::Layout::nested, [&](const json::object& group, const json::object& entry) {
    nested.push_back(agent::command_of(entry) + "@" + json::serialize(group.at("matcher")));
  });
  agent::for_each_hook(mixed, agent::Layout::flat,
                       [&](const json::object&, const json::object& entry) { flat.push_back(agent::command_of(entry)); });
  // The agent that nests never runs a bare entry, and the flat one reads a group as an entry without a command.
  CHECK(nested == std::vector<std::string>{"a@\"mcp__.*\"", "b@\"mcp__.*\""});
  CHECK(flat == std::vector<std::string>{"", "flat"});
}

TEST_CASE("removing hooks takes the selected entries and the groups they leave empty, nothing else", "[hook_file]") {
  json::array nested = list_of(R"([{"hooks":[{"command":"ours"}]},{"hooks":[{"command":"ours"},{"command":"theirs"}]},
                                   {"hooks":[]}])");
  const auto removed = agent::remove_hooks(nested, agent::Layout::nested, [](const std::string& c) { return c == "ours"; });
  CHECK(removed == std::vector<std::string>{"ours", "ours"});
  CHECK(json::serialize(nested) == R"([{"hooks":[{"command":"theirs"}]},{"hooks":[]}])");

  json::array flat = list_of(R"([{"command":"ours"},{"command":"theirs"},"text"])");
  agent::remove_hooks(flat, agent::Layout::flat, [](const std::string& c) { return c == "ours"; });
  CHECK(json::serialize(flat) == R"([{"command":"theirs"},"text"])");
}

} // namespace test_hook_file
