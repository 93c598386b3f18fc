#include "fakes.hpp"

#include <mcphealth/state/store.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/lockfile.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <sys/stat.h>

using namespace mcphealth;
using testing::FakeClock;
using testing::TempDir;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_store {
namespace {
void write_text(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string read_text(const std::filesystem::path& p) {
  auto read = util::read_file(p);
  return read ? *read : std::string();
}
bool mark(json::object& doc, const char* name) {
  state::entry_of(doc, name)["status"] = "healthy";
  return true;
}
} // namespace

TEST_CASE("an update creates the folder private and the file 0600", "[store]") {
  TempDir dir;
  FakeClock clock;
  state::StateStore store(dir.path() / "a" / "b" / "state.json", clock);
  auto r = store.update([](json::object& doc) { return mark(doc, "s"); });
  REQUIRE(r.ok());
  REQUIRE(r->written);
  struct stat st {};
  REQUIRE(::stat((dir.path() / "a").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat(store.path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto snap = store.read();
  CHECK(snap.status == state::LoadStatus::ok);
  REQUIRE(snap.server("s"));
}

TEST_CASE("a mutator that changes nothing writes nothing", "[store]") {
  TempDir dir;
  FakeClock clock;
  state::StateStore store(dir.path() / "state.json", clock);
  auto r = store.update([](json::object&) { return false; });
  REQUIRE(r.ok());
  CHECK_FALSE(r->written);
  CHECK_FALSE(std::filesystem::exists(store.path()));
}

TEST_CASE("a corrupt file is moved aside before the first write", "[store]") {
  TempDir dir;
  FakeClock clock(42);
  const auto path = dir.path() / "state.json";
  write_text(path, "{\"servers\": 3}");
  state::StateStore store(path, clock);
  CHECK(store.read().status == state::LoadStatus::corrupt);
  auto r = store.update([](json::object& doc) { return mark(doc, "s"); });
  REQUIRE(r.ok());
  REQUIRE(r->moved_aside);
  CHECK(r->moved_aside->filename() == "state.json.corrupt-42");
  CHECK(read_text(*r->moved_aside) == "{\"servers\": 3}");
  CHECK(store.read().status == state::LoadStatus::ok);
}

TEST_CASE("a newer version is read but never overwritten", "[store]") {
  TempDir dir;
  FakeClock clock;
  const auto path = dir.path() / "state.json";
  write_text(path, R"({"version":2,"servers":{"s":{"status":"healthy"}}})");
  state::StateStore store(path, clock);
  auto snap = store.read();
  CHECK(snap.status == state::LoadStatus::newer_version);
  CHECK(snap.server("s"));
  auto r = store.update([](json::object& doc) { return mark(doc, "t"); });
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == state::UpdateFailure::refused_newer_version);
  CHECK(read_text(path) == R"({"version":2,"servers":{"s":{"status":"healthy"}}})");
}

TEST_CASE("a symlinked state file is not written through", "[store]") {
  TempDir dir;
  FakeClock clock;
  write_text(dir.path() / "real.json", R"({"version":1,"servers":{}})");
  std::filesystem::create_symlink(dir.path() / "real.json", dir.path() / "state.json");
  state::StateStore store(dir.path() / "state.json", clock);
  auto r = store.update([](json::object& doc) { return mark(doc, "s"); });
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == state::UpdateFailure::failed);
  CHECK(r.error().message.find("symlink") != std::string::npos);
  CHECK(read_text(dir.path() / "real.json") == R"({"version":1,"servers":{}})");
}

TEST_CASE("a held lock makes a writer give up after its wait", "[store]") {
  TempDir dir;
  FakeClock clock;
  state::StateStore store(dir.path() / "state.json", clock);
  const auto held = util::FileLock::acquire(store.lock_path(), 0, clock);
  REQUIRE(held.ok());
  const auto before = clock.now_ms();
  auto r = store.update([](json::object& doc) { return mark(doc, "s"); }, 2000);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == state::UpdateFailure::lock_timeout);
  CHECK(clock.now_ms() - before >= 2000);
  CHECK_FALSE(std::filesystem::exists(store.path()));
}

} // namespace test_store
