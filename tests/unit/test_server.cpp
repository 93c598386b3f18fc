#include "fakes.hpp"

#include <mcphealth/config/server.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <sys/stat.h>

using namespace mcphealth;
namespace json = boost::json;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_server {
namespace {
config::ServerDefinition def(const char* raw) { return {"s", "/c.json", "explicit", json::parse(raw).as_object()}; }
} // namespace

TEST_CASE("a command resolves on the merged PATH with env over the hook's environment", "[server]") {
  testing::TempDir dir;
  const auto exe = dir.path() / "my-server";
  std::ofstream(exe) << "#!/bin/sh\n";
  ::chmod(exe.c_str(), 0755);
  util::MapEnvironment env({{"PATH", "/nowhere"}, {"KEEP", "1"}, {"TOKEN", "old"}});
  auto resolved = config::resolve_server(
      def((R"({"command":"my-server","args":["--x",3],"env":{"PATH":")" + dir.path().string() +
           R"(","TOKEN":"${SECRET:-new}"}})")
              .c_str()),
      env, {}, util::disk());
  const auto* stdio = std::get_if<config::StdioServer>(&resolved.transport);
  REQUIRE(stdio);
  CHECK(stdio->executable == exe);
  CHECK(stdio->args == std::vector<std::string>{"--x", "3"});
  CHECK(stdio->env_names == std::vector<std::string>{"PATH", "TOKEN"});
  CHECK(std::count(stdio->environment.begin(), stdio->environment.end(), "TOKEN=new") == 1);
  CHECK(std::count(stdio->environment.begin(), stdio->environment.end(), "TOKEN=old") == 0);
  CHECK(std::count(stdio->environment.begin(), stdio->environment.end(), "KEEP=1") == 1);
}

TEST_CASE("a command not on PATH resolves to nothing", "[server]") {
  auto resolved = config::resolve_server(def(R"({"command":"surely-not-a-command-xyz"})"), util::MapEnvironment{}, {}, util::disk());
  CHECK(std::get<config::StdioServer>(resolved.transport).executable.empty());
}

TEST_CASE("type http, streamable-http, sse and a bare url are HTTP", "[server]") {
  util::MapEnvironment env({{"TOK", "abc"}});
  for (const char* raw : {R"({"type":"http","url":"http://h/mcp","headers":{"Authorization":"Bearer ${TOK}"}})",
                          R"({"type":"streamable-http","url":"http://h/mcp"})", R"({"url":"http://h/mcp"})"}) {
    auto resolved = config::resolve_server(def(raw), env, {}, util::disk());
    const auto* http = std::get_if<config::HttpServer>(&resolved.transport);
    REQUIRE(http);
    CHECK(http->url.for_transport() == "http://h/mcp");
    CHECK(http->type == "http");
  }
  auto with_headers = config::resolve_server(
      def(R"({"type":"http","url":"http://h/mcp","headers":{"Authorization":"Bearer ${TOK}"}})"), env, {}, util::disk());
  CHECK(std::get<config::HttpServer>(with_headers.transport).headers[0].second == "Bearer abc");
  auto sse = config::resolve_server(def(R"({"type":"sse","url":"http://h/sse"})"), env, {}, util::disk());
  CHECK(std::get<config::HttpServer>(sse.transport).type == "sse");
}

TEST_CASE("anything else is an unsupported config", "[server]") {
  for (const char* raw : {R"({"type":"ws","url":"x"})", R"({"args":["a"]})", R"({"type":"stdio"})"}) {
    auto resolved = config::resolve_server(def(raw), util::MapEnvironment{}, {}, util::disk());
    const auto* bad = std::get_if<config::UnsupportedServer>(&resolved.transport);
    REQUIRE(bad);
    CHECK(bad->reason == "unsupported MCP server config");
  }
}

TEST_CASE("unset variables are listed once", "[server]") {
  auto resolved = config::resolve_server(def(R"({"command":"${BIN}","args":["${KEY}","${KEY}"]})"), util::MapEnvironment{}, {}, util::disk());
  CHECK(resolved.unset_vars == std::vector<std::string>{"BIN", "KEY"});
}

TEST_CASE("a stdio server starts in the session's folder, or the folder its definition names, from there",
          "[server]") {
  const util::MapEnvironment env({{"PATH", "/usr/bin:/bin"}, {"SUB", "from-var"}});
  const auto cwd_of = [&](config::ServerDefinition d) {
    return std::get<config::StdioServer>(config::resolve_server(d, env, "/srv/proj", util::disk()).transport).cwd;
  };
  config::ServerDefinition d = def(R"({"command":"./run.sh"})");
  CHECK(cwd_of(d) == "/srv/proj");
  // A relative command starts from there too, as the agent's own spawn finds it.
  CHECK(std::get<config::StdioServer>(config::resolve_server(d, env, "/srv/proj", util::disk()).transport).executable == "/srv/proj/run.sh");
  d.cwd = "tools/../sub";
  CHECK(cwd_of(d) == "/srv/proj/sub");
  d.cwd = "/opt/${SUB}";
  CHECK(cwd_of(d) == "/opt/from-var");
}

TEST_CASE("only the variables the agent passes on reach the server, and its env comes on top", "[server]") {
  const util::MapEnvironment env({{"PATH", "/usr/bin:/bin"}, {"HOME", "/h"}, {"API_KEY", "k"}, {"LISTED", "1"}});
  config::ServerDefinition d = def(R"({"command":"/bin/true","env":{"SET":"2"}})");
  d.env_rule.passes = [](std::string_view name, std::string_view) {
    return name == "PATH" || name == "HOME" || name == "LISTED";
  };
  const auto resolved = config::resolve_server(d, env, "/srv/proj", util::disk());
  const std::vector<std::string>& e = std::get<config::StdioServer>(resolved.transport).environment;
  CHECK(e == std::vector<std::string>{"HOME=/h", "LISTED=1", "PATH=/usr/bin:/bin", "SET=2"});
}

TEST_CASE("a relative PATH entry is looked up from the folder the server starts in", "[server]") {
  testing::TempDir dir;
  const fs::path proj = dir.path() / "proj";
  fs::create_directories(proj / "node_modules" / ".bin");
  const fs::path tool = proj / "node_modules" / ".bin" / "my-server";
  std::ofstream(tool) << "#!/bin/sh\n";
  fs::permissions(tool, fs::perms::owner_all);
  const util::MapEnvironment env({{"PATH", "node_modules/.bin:/usr/bin:/bin"}});
  // From anywhere else (the test's own folder here, cron's $HOME in use), as the agent finds it in the project.
  const auto resolved = config::resolve_server(def(R"({"command":"my-server"})"), env, proj, util::disk());
  CHECK(std::get<config::StdioServer>(resolved.transport).executable == tool);
}

TEST_CASE("a stdio server's code files: what it runs, and the arguments that name code or settings", "[server]") {
  config::StdioServer s;
  s.executable = "/usr/bin/node";
  s.cwd = "/work/proj";
  s.args = {"dist/index.js", "--config", "/etc/svc/config.yaml", "--log", "/tmp/svc.log", "stdio", "-v",
            "./dist/index.js", "server.py", "--port=8080", "https://user:s3cret@example.com/config.json",
            "TOKEN=abc.json"};
  CHECK(config::code_files(s) == std::vector<std::string>{"/usr/bin/node", "/work/proj/dist/index.js",
                                                          "/etc/svc/config.yaml", "/work/proj/server.py"});
  s.executable.clear();
  s.args.assign(20, "a.js");
  for (int i = 0; i < 20; ++i) s.args[i] = "m" + std::to_string(i) + ".js";
  CHECK(config::code_files(s).size() == config::k_most_code_files);
}

} // namespace test_server
