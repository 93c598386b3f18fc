#include <mcphealth/hook/payload.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace mcphealth;
namespace json = boost::json;

TEST_CASE("MCP tool names split into server and tool", "[payload]") {
  auto t = hook::split_mcp_tool_name("mcp__github__create__issue");
  REQUIRE(t);
  CHECK(t->server == "github");
  CHECK(t->tool == "create__issue");
  CHECK(hook::split_mcp_tool_name("mcp__plugin_x_y__t")->server == "plugin_x_y");
  CHECK_FALSE(hook::split_mcp_tool_name("Bash"));
  CHECK_FALSE(hook::split_mcp_tool_name("mcp____t"));
}

TEST_CASE("an MCP tool name splits every way a server name could hold __: longest server first", "[payload]") {
  auto splits = hook::mcp_tool_name_splits("mcp__my__srv__get__x");
  REQUIRE(splits.size() == 3);
  CHECK(splits[0].server == "my__srv__get");
  CHECK(splits[0].tool == "x");
  CHECK(splits[1].server == "my__srv");
  CHECK(splits[1].tool == "get__x");
  CHECK(splits[2].server == "my");
  // `trail_` meets the separator: `trail___echo` is `trail_` + `echo` or `trail` + `_echo`.
  splits = hook::mcp_tool_name_splits("mcp__trail___echo");
  REQUIRE(splits.size() == 2);
  CHECK(splits[0].server == "trail_");
  CHECK(splits[0].tool == "echo");
  CHECK(splits[1].server == "trail");
  CHECK(hook::mcp_tool_name_splits("mcp__a__b").size() == 1);
  CHECK(hook::mcp_tool_name_splits("Bash").empty());
  CHECK(hook::mcp_tool_name_splits("mcp__a__").empty());
}

TEST_CASE("explicit target fields count only for non-MCP tool names", "[payload]") {
  auto mcp = hook::find_target(json::parse(R"({"tool_name":"mcp__a__t","tool_input":{"server":"b"}})").as_object());
  CHECK(mcp->server == "a");
  auto task = hook::find_target(json::parse(R"({"tool_name":"Task","tool_input":{"mcp_server":"b","tool":"q"}})").as_object());
  REQUIRE(task);
  CHECK(task->server == "b");
  CHECK(task->tool == "q");
  auto top = hook::find_target(json::parse(R"({"tool_name":"X","server":"c","tool_input":{"server":"d"}})").as_object());
  CHECK(top->server == "c");
  CHECK(top->tool == "X");
  auto conn = hook::find_target(json::parse(R"({"tool_name":"X","tool_input":{"connector":{"name":"e"}}})").as_object());
  CHECK(conn->server == "e");
  CHECK_FALSE(hook::find_target(json::parse(R"({"tool_name":"Bash","tool_input":{"command":"ls"}})").as_object()));
  CHECK_FALSE(hook::find_target(json::parse(R"({"tool_name":"X","tool_input":{"server":3}})").as_object()));
}

TEST_CASE("raw text yields the target when the payload is cut off", "[payload]") {
  auto t = hook::find_target_in_raw(R"({"hook_event_name":"PreToolUse","tool_name" : "mcp__s__t","tool_input":{"x":"aaaa)");
  REQUIRE(t);
  CHECK(t->server == "s");
  CHECK(hook::find_raw_string_field(R"({"a":"x\"y"})", "a") == std::optional<std::string>("x\"y"));
  CHECK_FALSE(hook::find_raw_string_field(R"({"a":"unterminat)", "a"));
}

TEST_CASE("input over the limit is cut and marked incomplete", "[payload]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string text = R"({"tool_name":"mcp__s__t","pad":"xxxxxxxxxxxxxxxxxxxxxxxx"})";
  REQUIRE(::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  auto in = hook::read_input(fds[0], 20, hook::CutByCaller::no);
  ::close(fds[0]);
  CHECK(in.incomplete);
  CHECK(in.raw == text.substr(0, 20));
  CHECK(in.payload.empty());
}

TEST_CASE("unparseable input is an empty payload", "[payload]") {
  hook::HookInput in;
  in.raw = "not json";
  hook::parse_payload(in);
  CHECK(in.payload.empty());
  in.raw = "[1,2]";
  hook::parse_payload(in);
  CHECK(in.payload.empty());
}

TEST_CASE("a lone surrogate escape is mended, a valid pair and an escaped backslash are not", "[payload]") {
  CHECK(util::repair_lone_surrogates(R"({"a":"x\ud83dy"})") == std::optional<std::string>(R"({"a":"x\uFFFDy"})"));
  CHECK(util::repair_lone_surrogates(R"({"a":"\udc00"})") == std::optional<std::string>(R"({"a":"\uFFFD"})"));
  CHECK_FALSE(util::repair_lone_surrogates(R"({"a":"\ud83d\ude00"})"));
  CHECK_FALSE(util::repair_lone_surrogates(R"({"a":"\\ud800"})")); // a backslash, then the text ud800
  CHECK(util::parse_json(R"({"a":"cut \ud83d"})").ok());
}

TEST_CASE("payloads parse past Boost's default depth, and with invalid UTF-8", "[payload]") {
  std::string deep = "1";
  for (int i = 0; i < 1000; ++i) deep = "[" + deep + "]";
  CHECK(util::parse_json(R"({"tool_input":)" + deep + "}").ok());
  CHECK(util::parse_json("{\"a\":\"\xff\xfe\"}").ok());
}

TEST_CASE("an input that does not parse still yields the gate's fields from its text", "[payload]") {
  hook::HookInput in;
  in.raw = R"({"hook_event_name":"PreToolUse","tool_name":"mcp__svc__x","cwd":"/p","tool_input":{"q": broken)";
  hook::parse_payload(in);
  REQUIRE(in.parse_error);
  CHECK(in.payload.at("tool_name") == "mcp__svc__x");
  CHECK(in.payload.at("hook_event_name") == "PreToolUse");
  CHECK(in.payload.at("cwd") == "/p");
}
