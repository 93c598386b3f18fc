#include "fakes.hpp"

#include <mcphealth/config/discovery.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
using testing::TempDir;
namespace fs = std::filesystem;

namespace {
void write_json(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::vector<std::string> scopes(const std::vector<config::ConfigSource>& sources) {
  std::vector<std::string> out;
  for (const auto& s : sources) out.push_back(s.scope);
  return out;
}
} // namespace

TEST_CASE("the search order puts the JS hook's files first, then local, project and user scope", "[discovery]") {
  config::DiscoveryInputs in{{}, "/p", "/h/.claude.json", "/h"};
  auto sources = config::search_order(in);
  CHECK(scopes(sources) == std::vector<std::string>{"project .claude.json", "project .claude/settings.json",
                                                    "local scope", "project scope", "user scope",
                                                    "user settings.json"});
  CHECK(sources[0].file == "/p/.claude.json");
  CHECK(sources[2].kind == config::ConfigSource::Kind::project_entry);
  CHECK(sources[3].file == "/p/.mcp.json");
  CHECK(sources[5].file == "/h/.claude/settings.json");
}

TEST_CASE("explicit paths replace the search", "[discovery]") {
  config::DiscoveryInputs in{{"/a.json", "/b.json"}, "/p", "/h/.claude.json", "/h"};
  auto sources = config::search_order(in);
  REQUIRE(sources.size() == 2);
  CHECK(sources[1].file == "/b.json");
  CHECK(sources[1].scope == "explicit");
}

TEST_CASE("the nearest ancestor .mcp.json is the project scope", "[discovery]") {
  TempDir dir;
  write_json(dir.path() / "repo" / ".mcp.json", "{}");
  fs::create_directories(dir.path() / "repo" / "a" / "b");
  config::DiscoveryInputs in{{}, dir.path() / "repo" / "a" / "b", "/h/.claude.json", "/h"};
  CHECK(config::search_order(in)[3].file == dir.path() / "repo" / ".mcp.json");
}

TEST_CASE("local scope walks up to the nearest projects key", "[discovery]") {
  TempDir dir;
  const fs::path claude_json = dir.path() / ".claude.json";
  const std::string proj = (dir.path() / "proj").string();
  write_json(claude_json, R"({"projects":{")" + proj + R"(":{"mcpServers":{"s":{"command":"a"}}}},
                              "mcpServers":{"s":{"command":"user"},"u":{"command":"u"}}})");
  config::ConfigSource local{claude_json, config::ConfigSource::Kind::project_entry, "local scope"};
  auto report = config::read_source(local, dir.path() / "proj" / "x" / "y");
  CHECK(report.status == config::FileReport::Status::ok);
  REQUIRE(report.project_key);
  CHECK(*report.project_key == proj);
  REQUIRE(report.servers.size() == 1);
  CHECK(report.servers[0].raw.at("command") == "a");

  config::ConfigReader reader({local, {claude_json, config::ConfigSource::Kind::servers, "user scope"}},
                              dir.path() / "proj");
  CHECK(reader.find("s")->scope == "local scope");
  CHECK(reader.find("u")->scope == "user scope");
  CHECK(reader.definitions_of("s").size() == 2);
  CHECK(reader.all_winners().size() == 2);
}

TEST_CASE("mcp_servers is read like mcpServers", "[discovery]") {
  TempDir dir;
  write_json(dir.path() / "c.json", R"({"mcp_servers":{"s":{"command":"x"}}})");
  auto report = config::read_source({dir.path() / "c.json", config::ConfigSource::Kind::servers, "explicit"}, "/");
  REQUIRE(report.servers.size() == 1);
  CHECK(report.servers[0].name == "s");
}

TEST_CASE("a parse error reports line and column", "[discovery]") {
  TempDir dir;
  write_json(dir.path() / "c.json", "{\n  \"mcpServers\": {,\n}");
  auto report = config::read_source({dir.path() / "c.json", config::ConfigSource::Kind::servers, "explicit"}, "/");
  CHECK(report.status == config::FileReport::Status::parse_error);
  CHECK(report.line == 2);
  CHECK(report.column > 1);
}

TEST_CASE("the fingerprint changes when a config file appears", "[discovery]") {
  TempDir dir;
  std::vector<config::ConfigSource> sources{{dir.path() / "c.json", config::ConfigSource::Kind::servers, "explicit"}};
  const std::string before = config::config_fingerprint(sources);
  CHECK(before == config::config_fingerprint(sources));
  write_json(dir.path() / "c.json", "{}");
  CHECK(before != config::config_fingerprint(sources));
}
