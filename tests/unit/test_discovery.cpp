#include "fakes.hpp"

#include <mcphealth/config/discovery.hpp>
#include <mcphealth/util/fs.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <sys/stat.h>

using namespace mcphealth;
using testing::TempDir;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_discovery {
namespace {
void write_json(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
} // namespace

TEST_CASE("mcp_servers is read like mcpServers", "[discovery]") {
  TempDir dir;
  write_json(dir.path() / "c.json", R"({"mcp_servers":{"s":{"command":"x"}}})");
  auto report = config::read_source({dir.path() / "c.json", "explicit"}, util::disk());
  REQUIRE(report.servers.size() == 1);
  CHECK(report.servers[0].name == "s");
}

TEST_CASE("a parse error reports line and column", "[discovery]") {
  TempDir dir;
  write_json(dir.path() / "c.json", "{\n  \"mcpServers\": {,\n}");
  auto report = config::read_source({dir.path() / "c.json", "explicit"}, util::disk());
  CHECK(report.status == config::FileReport::Status::parse_error);
  CHECK(report.line == 2);
  CHECK(report.column > 1);
}

TEST_CASE("a config nested 40 deep still gives its servers", "[discovery]") {
  TempDir dir;
  std::string deep = "1";
  for (int i = 0; i < 40; ++i) deep = "{\"k\":" + deep + "}";
  write_json(dir.path() / "c.json", R"({"numStartups":)" + deep + R"(,"mcpServers":{"s":{"command":"x"}}})");
  auto report = config::read_source({dir.path() / "c.json", "user"}, util::disk());
  CHECK(report.status == config::FileReport::Status::ok);
  REQUIRE(report.servers.size() == 1);
}

TEST_CASE("a FIFO or a device as a config file is refused at once, never read without end", "[discovery]") {
  TempDir dir;
  REQUIRE(::mkfifo((dir.path() / "fifo.json").c_str(), 0600) == 0);
  auto fifo = config::read_source({dir.path() / "fifo.json", "project"}, util::disk());
  CHECK(fifo.status == config::FileReport::Status::unreadable);
  CHECK(fifo.error == "it is a FIFO, not a regular file");
  auto zero = config::read_source({"/dev/zero", "project"}, util::disk());
  CHECK(zero.status == config::FileReport::Status::unreadable);
  CHECK(zero.error == "it is a device, not a regular file");
}

TEST_CASE("a file over the read limit is refused", "[discovery]") {
  TempDir dir;
  write_json(dir.path() / "big.json", std::string(2048, ' ') + "{}");
  const auto read = util::read_file(dir.path() / "big.json", 1024);
  REQUIRE_FALSE(read);
  CHECK(read.error().is(util::ReadFailure::unreadable));
  CHECK(read.error().message.find("larger than") != std::string::npos);
  CHECK(util::read_file(dir.path() / "big.json").ok());
}

TEST_CASE("the fingerprint changes when a config file appears", "[discovery]") {
  TempDir dir;
  std::vector<config::ConfigSource> sources{{dir.path() / "c.json", "explicit"}};
  const std::string before = config::config_fingerprint(sources, util::disk());
  CHECK(before == config::config_fingerprint(sources, util::disk()));
  write_json(dir.path() / "c.json", "{}");
  CHECK(before != config::config_fingerprint(sources, util::disk()));
}

} // namespace test_discovery
