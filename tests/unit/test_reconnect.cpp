#include "fakes.hpp"

#include <mcphealth/hook/reconnect.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using testing::FakeRunner;

TEST_CASE("the per-server variable name upper-cases and replaces the rest", "[reconnect]") {
  CHECK(hook::reconnect_env_suffix("my-server.v2") == "MY_SERVER_V2");
}

TEST_CASE("the per-server command wins, but COMMAND and TIMEOUT_MS are never a server's", "[reconnect]") {
  util::MapEnvironment env({{"ECC_MCP_RECONNECT_COMMAND", "generic"}, {"ECC_MCP_RECONNECT_DB", "db-only"},
                            {"MCPHEALTH_RECONNECT_DB", "ours"}, {"ECC_MCP_RECONNECT_TIMEOUT_MS", "100"}});
  CHECK(hook::find_reconnect_command("db", env)->command == "ours");
  CHECK(hook::find_reconnect_command("db", env)->variable == "MCPHEALTH_RECONNECT_DB");
  CHECK(hook::find_reconnect_command("other", env)->command == "generic");
  CHECK(hook::find_reconnect_command("timeout-ms", env)->command == "generic");
  CHECK(hook::find_reconnect_command("command", env)->command == "generic");
  CHECK_FALSE(hook::find_reconnect_command("x", util::MapEnvironment{}));
}

TEST_CASE("{server} is replaced by the shell-quoted name", "[reconnect]") {
  CHECK(hook::expand_reconnect_command("pm2 restart {server} && echo {server}", "a.b") ==
        "pm2 restart 'a.b' && echo 'a.b'");
  CHECK(hook::shell_quote("it's") == R"('it'\''s')");
}

TEST_CASE("names from the payload run only when plain", "[reconnect]") {
  CHECK(hook::is_plain_server_name("my-server_1.x"));
  CHECK_FALSE(hook::is_plain_server_name("x;touch y"));
  CHECK_FALSE(hook::is_plain_server_name("$(id)"));
  CHECK_FALSE(hook::is_plain_server_name(""));
  FakeRunner runner;
  auto refused = hook::run_reconnect({"pm2 restart {server}", "V"}, "x;touch y", false, 100, runner);
  CHECK(refused.status == hook::ReconnectOutcome::Status::refused);
  CHECK(runner.commands.empty());
  auto defined = hook::run_reconnect({"pm2 restart {server}", "V"}, "x;touch y", true, 100, runner);
  CHECK(defined.status == hook::ReconnectOutcome::Status::ok);
  REQUIRE(runner.commands.size() == 1);
  CHECK(runner.commands[0] == "pm2 restart 'x;touch y'");
}

TEST_CASE("a failed reconnect says why: stderr, else stdout, else the status", "[reconnect]") {
  FakeRunner runner;
  runner.result = FakeRunner::failing("  no such process \n");
  CHECK(hook::run_reconnect({"c", "V"}, "s", true, 100, runner).reason == "no such process");
  runner.result.err.clear();
  runner.result.out = "out text";
  CHECK(hook::run_reconnect({"c", "V"}, "s", true, 100, runner).reason == "out text");
  runner.result.out.clear();
  CHECK(hook::run_reconnect({"c", "V"}, "s", true, 100, runner).reason == "exited with 1");
  runner.result.status = proc::CommandResult::Status::timed_out;
  CHECK(hook::run_reconnect({"c", "V"}, "s", true, 250, runner).reason == "timed out after 250 ms");
}
