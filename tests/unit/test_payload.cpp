#include <mcphealth/agent/agent.hpp>
#include <mcphealth/hook/payload.hpp>
#include <mcphealth/hook/shape.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <memory>
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

TEST_CASE("the client's mcp_server names the server and its definition's source", "[payload]") {
  auto target = [](const char* text) { return hook::find_target(json::parse(text).as_object()); };
  // Claude Code 2.1.332 names the server as its config does (`my.srv`); the tool name spells it `my_srv`.
  auto dotted = target(R"({"tool_name":"mcp__my_srv__echo","mcp_server":{"name":"my.srv","source":"user"}})");
  REQUIRE(dotted);
  CHECK(dotted->server == "my_srv");
  CHECK(dotted->tool == "echo");
  CHECK(dotted->source == std::optional<std::string>("user"));
  // A tool name that splits two ways is not guessed at: the client said which server.
  auto shorter = target(R"({"tool_name":"mcp__a__b__echo","mcp_server":{"name":"a","source":"project"}})");
  CHECK(shorter->server == "a");
  CHECK(shorter->tool == "b__echo");
  auto longer = target(R"({"tool_name":"mcp__a__b__echo","mcp_server":{"name":"a__b","source":"dynamic"}})");
  CHECK(longer->server == "a__b");
  CHECK(longer->tool == "echo");
  CHECK(longer->source == std::optional<std::string>("dynamic"));
  CHECK(hook::names_server_itself(json::parse(R"({"mcp_server":{"name":"a"}})").as_object()));
  // No name, or no object: the tool name decides, and there is no source.
  auto nameless = target(R"({"tool_name":"mcp__a__b__echo","mcp_server":{"source":"user"}})");
  CHECK(nameless->server == "a");
  CHECK_FALSE(nameless->source);
  CHECK_FALSE(hook::names_server_itself(json::parse(R"({"mcp_server":{"source":"user"}})").as_object()));
  // A tool's own input cannot name the source: only the payload's top-level field counts.
  auto forged =
      target(R"({"tool_name":"mcp__svc__echo","tool_input":{"mcp_server":{"name":"svc","source":"project"}}})");
  CHECK(forged->server == "svc");
  CHECK_FALSE(forged->source);
  CHECK_FALSE(
      hook::find_target_in_raw(
          R"({"tool_name":"mcp__svc__e","tool_input":{"source":"project"},"mcp_server":{"name":"svc","source":"user"}})")
          ->source);
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

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_payload {
namespace {

/// `payload` with `DEEP` replaced by an array nested `depth` deep: past any parser's limit.
std::string nested_in(const std::string& payload, std::size_t depth) {
  const std::string deep = std::string(depth, '[') + "1" + std::string(depth, ']');
  std::string out = payload;
  out.replace(out.find("DEEP"), 4, deep);
  return out;
}

} // namespace

TEST_CASE("every dialect reads its call the same whatever depth the tool's arguments have", "[payload]") {
  // Each agent's PreToolUse, with its arguments where the agent puts them (the shapes of agents/captured).
  const std::vector<std::pair<std::string, std::string>> payloads = {
      {"claude-code", R"({"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"mcp__svc__echo","tool_input":{"a":DEEP}})"},
      {"codex", R"({"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"mcp__svc__echo","tool_input":{"a":DEEP}})"},
      {"gemini", R"({"hook_event_name":"BeforeTool","cwd":"/p","tool_name":"mcp_svc_echo","tool_input":{"a":DEEP}})"},
      {"copilot", R"({"sessionId":"s","cwd":"/p","toolName":"svc-echo","toolArgs":{"a":DEEP}})"},
      {"copilot", R"({"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"svc-echo","tool_input":{"a":DEEP}})"},
      {"cursor", R"({"hook_event_name":"beforeMCPExecution","workspace_roots":["/p"],"tool_name":"echo","tool_input":DEEP,)"
                 R"("url":"http://127.0.0.1:9/mcp"})"},
      {"windsurf", R"({"agent_action_name":"pre_mcp_tool_use","tool_info":{"mcp_server_name":"svc","mcp_tool_name":"echo",)"
                   R"("mcp_tool_arguments":{"a":DEEP}}})"},
  };
  for (const auto& entry : payloads) {
    const auto& [id, payload] = entry;
    INFO(id << ": " << payload);
    const agent::Agent& a = *agent::find_agent(id);
    auto read = [&](std::size_t depth) { // `entry`, not `payload`: clang before 16 cannot capture a structured binding
      auto in = std::make_unique<hook::HookInput>();
      in->raw = nested_in(entry.second, depth);
      hook::parse_payload(*in);
      return std::make_pair(a.dialect.read(*in, std::nullopt, util::MapEnvironment{}), std::move(in));
    };
    const auto [shallow, shallow_input] = read(3);
    const auto [deep, deep_input] = read(util::k_max_json_depth + 50);
    CHECK(shallow.event == deep.event);
    CHECK(shallow.event_name == deep.event_name);
    REQUIRE(shallow.target.has_value() == deep.target.has_value());
    CHECK((shallow.target || shallow.endpoint));
    if (shallow.target) {
      CHECK(shallow.target->server == deep.target->server);
      CHECK(shallow.target->tool == deep.target->tool);
    }
    CHECK(shallow.endpoint == deep.endpoint);
    CHECK(shallow.folder == deep.folder);
  }
}

TEST_CASE("a payload's members are read one by one when one of them is nested past the limit", "[payload]") {
  const std::string deep = std::string(util::k_max_json_depth + 10, '[') + std::string(util::k_max_json_depth + 10, ']');
  const auto members = util::parse_object_members(R"({"a":"x\"}","b":{"c":)" + deep + R"(,"d":[1,"]"]},"e":)" + deep + "}");
  REQUIRE(members);
  CHECK(util::get_string(*members, "a") == std::optional<std::string>("x\"}"));
  REQUIRE(util::get_object(*members, "b") != nullptr);
  CHECK(util::get_object(*members, "b")->at("c").is_null());
  CHECK(util::get_object(*members, "b")->at("d").get_array().size() == 2);
  CHECK(members->at("e").is_null());
  CHECK_FALSE(util::parse_object_members("[1]"));
  CHECK_FALSE(util::parse_object_members(R"({"a":1,)"));
}

TEST_CASE("a payload's shape names its fields and types, never a tool's values or a credential", "[payload]") {
  hook::HookInput in;
  in.raw = R"({"hook_event_name":"PostToolUseFailure","tool_input":{"api_key":"k1"},"mcp_server":{"name":"svc"},)"
           R"("error":"POST https://u:pw@h/mcp?token=t2 failed: --api-key k3 sk-abcdefghijklmnopqrstuvwx"})";
  hook::parse_payload(in);
  const json::object shape = json::parse(hook::payload_shape("claude-code", in)).as_object();
  CHECK(shape.at("agent") == "claude-code");
  CHECK(shape.at("event") == "PostToolUseFailure");
  const std::string fields = json::serialize(shape.at("fields"));
  CHECK(fields.find("\"mcp_server.name:string\"") != std::string::npos);
  CHECK(fields.find("\"tool_input:object\"") != std::string::npos);
  CHECK(fields.find("api_key") == std::string::npos); // the tool's own argument names stay out
  const std::string error(shape.at("error").as_string());
  CHECK(error.find("failed") != std::string::npos);
  for (const char* secret : {"pw", "t2", "k1", "k3", "sk-abc"}) CHECK(error.find(secret) == std::string::npos);
}

} // namespace test_payload
