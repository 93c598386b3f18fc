#include "fakes.hpp"

#include <mcphealth/ops/status.hpp>
#include <mcphealth/state/bindings.hpp>
#include <mcphealth/state/shelf.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_shelf {
namespace {

constexpr std::int64_t k_day = 24LL * 3600 * 1000;

/// `count` keys whose files share one shard of `shelf`.
std::vector<std::string> keys_in_one_shard(const state::Shelf& shelf, std::size_t count) {
  std::vector<std::string> out;
  const auto shard = shelf.file_of("/k0").parent_path();
  for (int i = 0; out.size() < count; ++i) {
    const std::string key = "/k" + std::to_string(i);
    if (shelf.file_of(key).parent_path() == shard) out.push_back(key);
  }
  return out;
}

json::object value(std::int64_t n) { return json::object{{"n", n}}; }

} // namespace

TEST_CASE("a shelf gives back what was put under a key, and nothing for another key", "[shelf]") {
  testing::TempDir dir;
  state::Shelf shelf(dir.path() / "shelf", 64, 30 * k_day);
  CHECK_FALSE(shelf.get("/a"));
  REQUIRE(shelf.put("/a", value(1), 1000));
  REQUIRE(shelf.get("/a"));
  CHECK(shelf.get("/a")->at("n") == 1);
  CHECK_FALSE(shelf.get("/a")->contains("key"));
  CHECK_FALSE(shelf.get("/b"));
  // A file holding another key (two keys with one hash) is none of this key's.
  const auto other = util::atomic_replace(shelf.file_of("/b"), R"({"key":"/c","n":3})");
  REQUIRE(other);
  CHECK_FALSE(shelf.get("/b"));
  // Nor is a file that does not parse (a crash left it empty).
  const auto torn = util::atomic_replace(shelf.file_of("/a"), "");
  REQUIRE(torn);
  CHECK_FALSE(shelf.get("/a"));
}

TEST_CASE("a shelf's shard keeps the most recently written files, up to its bound", "[shelf]") {
  testing::TempDir dir;
  state::Shelf shelf(dir.path() / "shelf", 3, 30 * k_day);
  const std::vector<std::string> keys = keys_in_one_shard(shelf, 5);
  for (std::size_t i = 0; i < keys.size(); ++i) REQUIRE(shelf.put(keys[i], value(static_cast<std::int64_t>(i)), 1000 + static_cast<util::EpochMs>(i)));
  CHECK_FALSE(shelf.get(keys[0]));
  CHECK_FALSE(shelf.get(keys[1]));
  CHECK(shelf.get(keys[2]));
  CHECK(shelf.get(keys[4]));
  CHECK(shelf.size().files == 3);
  CHECK(shelf.capacity() == 3 * state::Shelf::k_shards);
  // Written again, the oldest is the newest: the next new key pushes out the one after it.
  REQUIRE(shelf.put(keys[2], value(2), 2000));
  REQUIRE(shelf.put(keys[0], value(0), 2001));
  CHECK(shelf.get(keys[2]));
  CHECK_FALSE(shelf.get(keys[3]));
}

TEST_CASE("sibling folders spread over every shard of a shelf", "[shelf]") {
  const state::Shelf shelf("/nowhere", 64, 30 * k_day);
  std::map<std::filesystem::path, int> per_shard;
  for (int i = 0; i < 5000; ++i) ++per_shard[shelf.file_of("/home/u/wt/task-" + std::to_string(i)).parent_path()];
  CHECK(per_shard.size() == state::Shelf::k_shards);
  int fullest = 0;
  for (const auto& [shard, n] : per_shard) fullest = std::max(fullest, n);
  CHECK(fullest < 40); // about 20 each: no shard near its bound of 64
}

TEST_CASE("a shelf forgets what was not written for its keeping time, by the clock it is given", "[shelf]") {
  testing::TempDir dir;
  state::Shelf shelf(dir.path() / "shelf", 64, 30 * k_day);
  const std::vector<std::string> keys = keys_in_one_shard(shelf, 2);
  REQUIRE(shelf.put(keys[0], value(0), 1000));
  REQUIRE(shelf.put(keys[1], value(1), 1000 + 29 * k_day));
  CHECK(shelf.get(keys[0]));
  REQUIRE(shelf.put(keys[1], value(1), 1000 + 31 * k_day));
  CHECK_FALSE(shelf.get(keys[0]));
  std::vector<std::string> seen;
  shelf.each([&](const std::string& key, const json::object&) { seen.push_back(key); });
  CHECK(seen == std::vector<std::string>{keys[1]});
}

TEST_CASE("a state file's bindings are read and written one folder at a time, beside it", "[shelf][bindings]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  state::StateStore store(dir.path() / "state.json", clock);
  CHECK_FALSE(store.bindings("/p"));
  REQUIRE(store.bind("/p", {.stamp = "s", .names = {{"a", {std::string("fpA"), "active", {}}}}}, clock.now_ms()));
  REQUIRE(store.bind("/q", {.stamp = "t", .names = {{"a", {std::string("fpQ"), "active", {}}}}}, clock.now_ms()));
  CHECK(store.bindings("/p")->find("a")->definition == std::optional<std::string>("fpA"));
  CHECK(std::filesystem::exists(dir.path() / "state.json.d" / "bindings"));
  // The state file itself is neither written nor needed.
  CHECK_FALSE(std::filesystem::exists(dir.path() / "state.json"));
  const util::MapEnvironment env;
  CHECK(ops::read_bound(store.path(), env).scope.bound_folders == std::vector<std::string>{"/p", "/q"});
  CHECK(ops::read_bound(store.path(), env).definitions == std::vector<std::string>{"fpA", "fpQ"});
  state::Shelf shelf = store.shelf();
  CHECK(state::forget_bound_names(shelf, {"a"}, clock.now_ms()));
  CHECK_FALSE(store.bindings("/p")->find("a"));
  CHECK(ops::read_bound(store.path(), env).definitions.empty());
}

TEST_CASE("bindings kept inside a state file move out at its next write, all but the month-old", "[shelf][bindings]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  const util::EpochMs now = clock.now_ms();
  const auto path = dir.path() / "state.json";
  json::object old{{"version", 1}, {"servers", json::object{}}};
  old["bindings"] = json::object{
      {"/p", json::object{{"stamp", "s"}, {"files", json::array{}}, {"variables", json::array{}}, {"boundAt", now - 1000},
                          {"names", json::object{{"a", json::object{{"definition", "fpA"}}}}}}},
      {"/old", json::object{{"stamp", "s"}, {"files", json::array{}}, {"variables", json::array{}},
                            {"boundAt", now - 31 * k_day}, {"names", json::object{}}}}};
  REQUIRE(util::atomic_replace(path, json::serialize(old)));
  state::StateStore store(path, clock);
  CHECK_FALSE(store.bindings("/p")); // read where they are kept now, not from the old place
  const auto written = store.update([](json::object&) { return false; });
  REQUIRE(written);
  CHECK(written->written);
  CHECK_FALSE(store.read().doc.contains("bindings"));
  REQUIRE(store.bindings("/p"));
  CHECK(store.bindings("/p")->find("a")->definition == std::optional<std::string>("fpA"));
  CHECK_FALSE(store.bindings("/old"));
}

TEST_CASE("many bindings move out a few hundred at a write, so no write holds the lock for long", "[shelf][bindings]") {
  testing::TempDir dir;
  const util::EpochMs now = 1'800'000'000'000;
  json::object doc{{"version", 1}, {"servers", json::object{}}, {"bindings", json::object{}}};
  const std::size_t total = state::k_folders_moved_per_write + 10;
  for (std::size_t i = 0; i < total; ++i) {
    doc["bindings"].as_object()["/f" + std::to_string(i)] =
        json::object{{"stamp", "s"}, {"files", json::array{}}, {"boundAt", now}, {"names", json::object{}}};
  }
  state::Shelf shelf = state::bindings_shelf(dir.path() / "state.json");
  CHECK(state::move_bindings_out(doc, shelf, now));
  CHECK(doc.at("bindings").as_object().size() == 10);
  CHECK(shelf.size().files == state::k_folders_moved_per_write);
  CHECK(state::move_bindings_out(doc, shelf, now));
  CHECK_FALSE(doc.contains("bindings"));
  CHECK(shelf.size().files == total);
  CHECK_FALSE(state::move_bindings_out(doc, shelf, now));
}

TEST_CASE("with the cache off, binding writes nothing anywhere", "[shelf][bindings]") {
  testing::FakeClock clock;
  state::StateStore store("/dev/null", clock);
  REQUIRE(store.bind("/p", {.stamp = "s"}, clock.now_ms()));
  CHECK_FALSE(store.bindings("/p"));
  CHECK_FALSE(std::filesystem::exists("/dev/null.d"));
}

TEST_CASE("each verdict is a file beside the state file, read whole by commands and one at a time by a hook", "[shelf][verdicts]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  const util::EpochMs now = clock.now_ms();
  state::StateStore store(dir.path() / "state.json", clock);
  const auto mark = [now](const char* status) {
    return [now, status](json::object& e) {
      e["status"] = status;
      e["checkedAt"] = now;
    };
  };
  REQUIRE(store.update([&](json::object& doc) {
    state::record_verdict(doc, {"fpA", "a", "a", "user", std::nullopt, std::nullopt}, now, state::Writer::probe, mark("healthy"));
    state::record_verdict(doc, {"fpB", "b", "b", "user", std::nullopt, std::nullopt}, now, state::Writer::probe, mark("unhealthy"));
    return true;
  }));
  CHECK(std::filesystem::exists(state::verdicts_shelf(store.path()).file_of("fpA")));
  // The state file keeps the JS hook's map alone.
  const auto file = state::load_state(store.path(), state::Verdicts::when_asked);
  REQUIRE(file.verdict("fpB"));
  CHECK(file.unread_file); // decided from the verdict's file: the state file itself not parsed
  CHECK_FALSE(file.read_file().doc.contains("definitions"));
  CHECK(file.server("a") != nullptr);
  CHECK(file.verdict("fpB")->at("status") == "unhealthy");
  CHECK(file.verdict("fpZ") == nullptr);
  CHECK(state::verdicts(store.read().doc).size() == 2);

  // A write that touches one verdict reads and rewrites that one alone: the other's file is left as it was.
  const auto other = state::verdicts_shelf(store.path()).file_of("fpB");
  const auto other_before = std::filesystem::last_write_time(other);
  REQUIRE(store.update(
      [&](json::object& doc) {
        CHECK(state::verdicts(doc).size() == 1);
        state::record_verdict(doc, {"fpA", "a", "a", "user", std::nullopt, std::nullopt}, now, state::Writer::probe,
                              mark("unhealthy"));
        return true;
      },
      state::k_lock_wait_ms, state::Touches::only({"fpA"})));
  CHECK(std::filesystem::last_write_time(other) == other_before);
  CHECK(store.read_lazily().verdict("fpA")->at("status") == "unhealthy");

  // Removed from the document, removed from the shelf.
  REQUIRE(store.update([](json::object& doc) { return state::forget_verdict(doc, "fpB"); }));
  CHECK_FALSE(std::filesystem::exists(other));
  CHECK(state::verdicts(store.read().doc).size() == 1);
}

TEST_CASE("a lazily read snapshot keeps what it found, whatever is written after", "[shelf][verdicts]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  state::StateStore store(dir.path() / "state.json", clock);
  const state::StateSnapshot before = store.read_lazily();
  CHECK(before.verdict("fpA") == nullptr);
  REQUIRE(store.update([&](json::object& doc) {
    state::record_verdict(doc, {"fpA", "a", "a", "user", std::nullopt, std::nullopt}, clock.now_ms(), state::Writer::probe,
                          [](json::object& e) { e["status"] = "unhealthy"; });
    return true;
  }));
  CHECK(before.verdict("fpA") == nullptr);
  CHECK(store.read_lazily().verdict("fpA") != nullptr);
}

TEST_CASE("verdicts kept inside a state file are read as before, and move out at its next write", "[shelf][verdicts]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  const util::EpochMs now = clock.now_ms();
  const auto path = dir.path() / "state.json";
  const json::object verdict{{"status", "unhealthy"}, {"checkedAt", now}, {"definition", "fpA"}, {"toolName", "a"}};
  json::object old{{"version", 1}, {"servers", json::object{{"a", verdict}}}, {"definitions", json::object{{"fpA", verdict}}}};
  REQUIRE(util::atomic_replace(path, json::serialize(old)));
  state::StateStore store(path, clock);
  CHECK(store.read_lazily().verdict("fpA") != nullptr);
  CHECK(state::verdicts(store.read().doc).contains("fpA"));
  const auto written = store.update([](json::object&) { return false; }, state::k_lock_wait_ms, state::Touches::only({}));
  REQUIRE(written);
  CHECK(written->written);
  CHECK_FALSE(state::load_state(path, state::Verdicts::when_asked).read_file().doc.contains("definitions"));
  REQUIRE(store.read_lazily().verdict("fpA") != nullptr);
  CHECK(store.read_lazily().verdict("fpA")->at("status") == "unhealthy");
}

TEST_CASE("a servers entry mirroring a verdict unchecked for a month goes at the next write", "[shelf][verdicts]") {
  testing::TempDir dir;
  testing::FakeClock clock;
  const util::EpochMs now = clock.now_ms();
  state::StateStore store(dir.path() / "state.json", clock);
  REQUIRE(store.update([&](json::object& doc) {
    state::entry_of(doc, "old") = json::object{{"status", "healthy"}, {"checkedAt", now - 31 * k_day}, {"definition", "fpOld"}};
    state::entry_of(doc, "js") = json::object{{"status", "healthy"}, {"checkedAt", now - 31 * k_day}};
    state::entry_of(doc, "new") = json::object{{"status", "healthy"}, {"checkedAt", now}, {"definition", "fpNew"}};
    return true;
  }));
  const auto snap = store.read();
  CHECK_FALSE(snap.server("old"));
  CHECK(snap.server("js")); // the JS hook's own entry: its to keep
  CHECK(snap.server("new"));
}

} // namespace test_shelf
