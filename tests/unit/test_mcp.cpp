#include "fakes.hpp"

#include <mcphealth/mcp/handshake.hpp>
#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/mcp/sse.hpp>
#include <mcphealth/mcp/stdio_transport.hpp>

#include <catch2/catch.hpp>

#include <deque>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_mcp {
namespace {

/// Answers calls from a script, in order, and records what was asked and with which deadline.
class ScriptedTransport final : public mcp::Transport {
public:
  std::deque<mcp::CallOutcome> script;
  std::vector<std::string> calls;
  std::vector<util::EpochMs> deadlines;
  std::vector<std::string> notifications;
  std::string version;

  mcp::CallOutcome call(std::string_view method, const json::object&, util::EpochMs deadline) override {
    calls.emplace_back(method);
    deadlines.push_back(deadline);
    mcp::CallOutcome out = script.front();
    script.pop_front();
    return out;
  }
  void notify(std::string_view method, const json::object&, util::EpochMs) override { notifications.emplace_back(method); }
  void set_protocol_version(const std::string& v) override { version = v; }
  void close() override {}
};

mcp::CallOutcome result(const char* raw) {
  mcp::CallOutcome o;
  o.status = mcp::CallOutcome::Status::result;
  o.result = json::parse(raw).as_object();
  return o;
}

mcp::CallOutcome rpc_error(int code) {
  mcp::CallOutcome o;
  o.status = mcp::CallOutcome::Status::rpc_error;
  o.error_code = code;
  o.error_message = "Method not found";
  return o;
}

} // namespace

TEST_CASE("SSE events are parsed across chunk boundaries", "[mcp]") {
  mcp::SseParser p;
  CHECK(p.feed(": hello\n\nevent: endpoint\nda").empty());
  auto events = p.feed("ta: /messages?s=1\r\n\r\ndata: {\"a\":\ndata: 1}\n\nevent: empty\n\n");
  REQUIRE(events.size() == 2);
  CHECK(events[0].event == "endpoint");
  CHECK(events[0].data == "/messages?s=1");
  CHECK(events[1].event == "message");
  CHECK(events[1].data == "{\"a\":\n1}");
}

TEST_CASE("an SSE line or event past the limit overflows the parser for good", "[mcp]") {
  SECTION("a line that never ends") {
    mcp::SseParser p(16);
    CHECK(p.feed("data: 0123456789").empty());
    CHECK_FALSE(p.overflowed());
    CHECK(p.feed("abcdef").empty());
    CHECK(p.overflowed());
    CHECK(p.feed("\n\ndata: x\n\n").empty()); // nothing more, ever
  }
  SECTION("an event of short lines that never ends") {
    mcp::SseParser p(16);
    CHECK(p.feed("data: 01234\ndata: 56789\n").empty());
    CHECK_FALSE(p.overflowed());
    CHECK(p.feed("data: abcdef\n").empty());
    CHECK(p.overflowed());
  }
  SECTION("events within the limit pass") {
    mcp::SseParser p(16);
    for (int i = 0; i < 100; ++i) REQUIRE(p.feed("data: 0123456789\n\n").size() == 1);
    CHECK_FALSE(p.overflowed());
  }
}

TEST_CASE("messages are told apart: response, server request, notification", "[mcp]") {
  CHECK(mcp::classify(json::parse(R"({"jsonrpc":"2.0","id":1,"result":{}})")) == mcp::MessageKind::response);
  CHECK(mcp::classify(json::parse(R"({"jsonrpc":"2.0","id":1,"error":{}})")) == mcp::MessageKind::response);
  CHECK(mcp::classify(json::parse(R"({"jsonrpc":"2.0","id":"p","method":"ping"})")) == mcp::MessageKind::server_request);
  CHECK(mcp::classify(json::parse(R"({"jsonrpc":"2.0","method":"notifications/x"})")) == mcp::MessageKind::notification);
  CHECK(mcp::classify(json::parse(R"([1])")) == mcp::MessageKind::invalid);
  CHECK(mcp::is_response_to(json::parse(R"({"id":"7","result":{}})"), 7));
  CHECK_FALSE(mcp::is_response_to(json::parse(R"({"id":8,"result":{}})"), 7));
}

TEST_CASE("server requests get {} for ping and -32601 otherwise", "[mcp]") {
  auto ping = json::parse(mcp::reply_to_server_request(json::parse(R"({"id":"a","method":"ping"})").as_object()));
  CHECK(ping.at("id") == "a");
  CHECK(ping.at("result").as_object().empty());
  auto other = json::parse(mcp::reply_to_server_request(json::parse(R"({"id":3,"method":"roots/list"})").as_object()));
  CHECK(other.at("error").at("code") == -32601);
}

TEST_CASE("requests are single lines with our client info", "[mcp]") {
  const std::string line = mcp::request_line(1, "initialize", mcp::initialize_params());
  CHECK(line.find('\n') == std::string::npos);
  auto msg = json::parse(line);
  CHECK(msg.at("params").at("protocolVersion") == "2025-11-25");
  CHECK(msg.at("params").at("clientInfo").at("name") == "mcphealth");
  CHECK(json::parse(mcp::notification_line("notifications/initialized", {})).as_object().contains("id") == false);
}

TEST_CASE("auto falls back from discover to initialize within one deadline", "[mcp]") {
  testing::FakeClock clock(0);
  ScriptedTransport t;
  t.script = {rpc_error(-32601),
              result(R"({"protocolVersion":"2025-06-18","serverInfo":{"name":"s","version":"1"}})"),
              result(R"({"tools":[{},{}]})")};
  auto hs = mcp::handshake(t, mcp::Protocol::automatic, 3000, clock);
  CHECK(hs.answered);
  CHECK(t.calls == std::vector<std::string>{"server/discover", "initialize", "tools/list"});
  CHECK(t.deadlines[0] == 1000); // discover gets a third
  CHECK(t.deadlines[1] == 3000); // the rest share the one deadline
  CHECK(t.notifications == std::vector<std::string>{"notifications/initialized"});
  CHECK(hs.protocol_version == "2025-06-18");
  CHECK(t.version == "2025-06-18");
  CHECK(hs.tool_count == 2);
  CHECK(hs.server_name == std::optional<std::string>("s"));
}

TEST_CASE("a modern server is discovered and listed with _meta", "[mcp]") {
  testing::FakeClock clock(0);
  ScriptedTransport t;
  t.script = {result(R"({"supportedVersions":["2026-07-28"],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"2"}}})"),
              result(R"({"tools":[{}]})")};
  auto hs = mcp::handshake(t, mcp::Protocol::automatic, 3000, clock);
  CHECK(hs.answered);
  CHECK(hs.protocol_version == "2026-07-28");
  CHECK(hs.server_name == std::optional<std::string>("m"));
  CHECK(hs.tool_count == 1);
  CHECK(t.calls == std::vector<std::string>{"server/discover", "tools/list"});
}

TEST_CASE("a process that died during discover is not asked again", "[mcp]") {
  testing::FakeClock clock(0);
  ScriptedTransport t;
  mcp::CallOutcome closed;
  closed.status = mcp::CallOutcome::Status::closed;
  closed.reason = "boom";
  t.script = {closed};
  auto hs = mcp::handshake(t, mcp::Protocol::automatic, 3000, clock);
  CHECK_FALSE(hs.answered);
  CHECK(hs.failure.reason == "boom");
  CHECK(t.calls.size() == 1);
}

TEST_CASE("an initialize answer older than 2024-11-05 is refused", "[mcp]") {
  testing::FakeClock clock(0);
  ScriptedTransport t;
  t.script = {result(R"({"protocolVersion":"2023-01-01"})")};
  auto hs = mcp::handshake(t, mcp::Protocol::legacy, 3000, clock);
  CHECK_FALSE(hs.answered);
  CHECK(hs.failure.status == mcp::CallOutcome::Status::rpc_error);
}


TEST_CASE("a start still busy at its deadline is owed the time it waited for a CPU, one asleep nothing",
          "[mcp][cpu]") {
  using platform::GroupCpu;
  const std::int64_t look = 20, most = 4000;
  // Busy through the look (on a CPU 15 of its 20 ms), after waiting 800 ms for a CPU since it started: owed 800.
  CHECK(mcp::cpu_wait_owed(GroupCpu{800, 300}, GroupCpu{800, 315}, look, 0, most) == 800);
  // Waiting for a CPU through the look counts as busy too.
  CHECK(mcp::cpu_wait_owed(GroupCpu{800, 300}, GroupCpu{818, 300}, look, 0, most) == 818);
  // Asleep (a silent server): nothing, however long it waited while it started.
  CHECK_FALSE(mcp::cpu_wait_owed(GroupCpu{900, 300}, GroupCpu{900, 300}, look, 0, most));
  CHECK_FALSE(mcp::cpu_wait_owed(GroupCpu{900, 300}, GroupCpu{900, 304}, look, 0, most)); // under a quarter
  // Bounded by `most` in all, and never granted twice.
  CHECK(mcp::cpu_wait_owed(GroupCpu{9000, 0}, GroupCpu{9000, 20}, look, 0, most) == most);
  CHECK_FALSE(mcp::cpu_wait_owed(GroupCpu{900, 0}, GroupCpu{900, 20}, look, 900, most));
  CHECK(mcp::cpu_wait_owed(GroupCpu{1500, 0}, GroupCpu{1500, 20}, look, 900, most) == 1500);
}

} // namespace test_mcp
