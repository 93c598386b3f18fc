#include "fakes.hpp"

#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/text.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using testing::FakeRunner;

TEST_CASE("the per-server variable name upper-cases and replaces the rest", "[reconnect]") {
  CHECK(recover::reconnect_env_suffix("my-server.v2") == "MY_SERVER_V2");
}

TEST_CASE("the per-server command wins, but COMMAND and TIMEOUT_MS are never a server's", "[reconnect]") {
  util::MapEnvironment env({{"ECC_MCP_RECONNECT_COMMAND", "generic"}, {"ECC_MCP_RECONNECT_DB", "db-only"},
                            {"MCPHEALTH_RECONNECT_DB", "ours"}, {"ECC_MCP_RECONNECT_TIMEOUT_MS", "100"}});
  CHECK(recover::find_reconnect_command("db", env)->command == "ours");
  CHECK(recover::find_reconnect_command("db", env)->variable == "MCPHEALTH_RECONNECT_DB");
  CHECK(recover::find_reconnect_command("other", env)->command == "generic");
  CHECK(recover::find_reconnect_command("timeout-ms", env)->command == "generic");
  CHECK(recover::find_reconnect_command("command", env)->command == "generic");
  CHECK_FALSE(recover::find_reconnect_command("x", util::MapEnvironment{}));
}

TEST_CASE("{server} becomes a reference to $MCPHEALTH_SERVER written for its quoting context", "[reconnect]") {
  CHECK(recover::expand_reconnect_command("pm2 restart {server}") == R"(pm2 restart "${MCPHEALTH_SERVER}")");
  CHECK(recover::expand_reconnect_command(R"(echo "x {server} y")") == R"(echo "x ${MCPHEALTH_SERVER} y")");
  CHECK(recover::expand_reconnect_command("echo '{server}'") == R"(echo ''"${MCPHEALTH_SERVER}"'')");
  CHECK(recover::expand_reconnect_command(R"(echo \"{server})") == R"(echo \""${MCPHEALTH_SERVER}")");
  CHECK(recover::expand_reconnect_command(R"(echo "it's {server}")") == R"(echo "it's ${MCPHEALTH_SERVER}")");
  CHECK(util::shell_quote("it's") == R"('it'\''s')");
}

TEST_CASE("only plain names reach a reconnect command, from the payload or a config, passed by variable", "[reconnect]") {
  CHECK(recover::is_plain_server_name("my-server_1.x"));
  CHECK_FALSE(recover::is_plain_server_name("x;touch y"));
  CHECK_FALSE(recover::is_plain_server_name("$(id)"));
  CHECK_FALSE(recover::is_plain_server_name(""));
  FakeRunner runner;
  auto refused = recover::run_reconnect({"pm2 restart {server}", {}, "V"}, "x;touch y", recover::NameOrigin::payload, 100, runner);
  CHECK(refused.status == recover::ReconnectOutcome::Status::refused);
  CHECK(runner.commands.empty());
  // A config's name is a repository's choice: `sh -c "echo {server}"` would run it.
  auto defined = recover::run_reconnect({"sh -c \"echo {server}\"", {}, "V"}, "x;touch y", recover::NameOrigin::config, 100, runner);
  CHECK(defined.status == recover::ReconnectOutcome::Status::refused);
  CHECK(runner.commands.empty());
  auto plain = recover::run_reconnect({"pm2 restart {server}", {}, "V"}, "my-server_1.x", recover::NameOrigin::config, 100, runner);
  CHECK(plain.status == recover::ReconnectOutcome::Status::ok);
  REQUIRE(runner.commands.size() == 1);
  CHECK(runner.commands[0] == R"(pm2 restart "${MCPHEALTH_SERVER}")");
  CHECK(runner.servers[0] == "my-server_1.x");
}

TEST_CASE("a failed reconnect says why: stderr, else stdout, else the status", "[reconnect]") {
  FakeRunner runner;
  runner.result = FakeRunner::failing("  no such process \n");
  CHECK(recover::run_reconnect({"c", {}, "V"}, "s", recover::NameOrigin::config, 100, runner).reason == "no such process");
  runner.result.err.clear();
  runner.result.out = "out text";
  CHECK(recover::run_reconnect({"c", {}, "V"}, "s", recover::NameOrigin::config, 100, runner).reason == "out text");
  runner.result.out.clear();
  CHECK(recover::run_reconnect({"c", {}, "V"}, "s", recover::NameOrigin::config, 100, runner).reason == "exited with 1");
  runner.result.status = proc::CommandResult::Status::timed_out;
  CHECK(recover::run_reconnect({"c", {}, "V"}, "s", recover::NameOrigin::config, 250, runner).reason == "timed out after 250 ms");
}
