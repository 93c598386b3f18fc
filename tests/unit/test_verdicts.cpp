#include <mcphealth/state/verdicts.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_verdicts {
namespace {
json::object empty_doc() { return json::object{{"version", 1}, {"servers", json::object{}}}; }
void mark(json::object& e) { e["status"] = "healthy"; e["checkedAt"] = 1000; }
} // namespace

TEST_CASE("two definitions of one name keep two verdicts: the servers entry mirrors the last", "[verdicts]") {
  json::object doc = empty_doc();
  state::record_verdict(doc, {"fpA", "dup", "dup", "project", "/a", "/a/.mcp.json"}, 1000, state::Writer::probe, mark);
  state::record_verdict(doc, {"fpB", "dup", "dup", "project", "/b", "/b/.mcp.json"}, 1000, state::Writer::probe,
                        [](json::object& e) { e["status"] = "unhealthy"; e["checkedAt"] = 1000; });
  CHECK(state::decision_entry(doc, "dup", std::string("fpA"))->at("status") == "healthy");
  CHECK(state::decision_entry(doc, "dup", std::string("fpB"))->at("status") == "unhealthy");
  CHECK(doc.at("servers").at("dup").at("definition") == "fpB");
  // A third definition has no verdict yet, and another definition's mirror is not its verdict.
  CHECK(state::decision_entry(doc, "dup", std::string("fpC")) == nullptr);
}

TEST_CASE("an entry without a definition (the JS hook's) is adopted by the first verdict", "[verdicts]") {
  json::object doc = empty_doc();
  state::entry_of(doc, "svc") = json::object{{"status", "unhealthy"}, {"failureCount", 3}};
  CHECK(state::decision_entry(doc, "svc", std::string("fp"))->at("failureCount") == 3);
  state::record_verdict(doc, {"fp", "svc", "svc", "user", std::nullopt, std::nullopt}, 1000, state::Writer::probe,
                        [](json::object& e) { e["failureCount"] = e.at("failureCount").as_int64() + 1; e["checkedAt"] = 1000; });
  CHECK(doc.at("definitions").at("fp").at("failureCount") == 4);
}

TEST_CASE("a folder's bindings are replaced when the stamp changes and merged when it holds", "[verdicts]") {
  json::object stored;
  state::bind_folder(stored, {.stamp = "s1", .names = {{"a", {std::string("fpA"), "active", {}}}}}, 1000);
  state::bind_folder(stored, {.stamp = "s1", .names = {{"b", {std::nullopt, "none", {}}}}}, 1000);
  auto f = state::FolderBindings::from_json(stored);
  REQUIRE(f);
  CHECK(f->find("a")->definition == std::optional<std::string>("fpA"));
  CHECK(f->find("b")->standing == "none");
  state::bind_folder(stored, {.stamp = "s2", .files = {"/x"}, .variables = {"V"}, .names = {{"b", {std::string("fpB"), "active", {}}}}},
                     2000);
  f = state::FolderBindings::from_json(stored);
  CHECK_FALSE(f->find("a"));
  CHECK(f->find("b")->definition == std::optional<std::string>("fpB"));
  CHECK(f->files == std::vector<std::string>{"/x"});
  CHECK(f->variables == std::vector<std::string>{"V"});
  // Binding what is held already would rewrite the folder's file for nothing.
  const state::FolderBind same{.stamp = "s2", .names = {{"b", {std::string("fpB"), "active", {}}}}};
  CHECK(state::holds(f, same));
  CHECK_FALSE(state::holds(f, {.stamp = "s3", .names = same.names}));
  CHECK_FALSE(state::holds(f, {.stamp = "s2", .names = {{"b", {std::string("fpC"), "active", {}}}}}));
  CHECK_FALSE(state::holds(f, {.stamp = "s2", .names = {{"c", {std::nullopt, "none", {}}}}}));
  CHECK_FALSE(state::holds(std::nullopt, same));
}

TEST_CASE("forgetting a server removes its entry and its verdicts", "[verdicts]") {
  json::object doc = empty_doc();
  state::record_verdict(doc, {"fpA", "dup", "dup", "project", "/a", std::nullopt}, 1000, state::Writer::probe, mark);
  state::record_verdict(doc, {"fpK", "keep", "keep", "user", std::nullopt, std::nullopt}, 1000, state::Writer::probe, mark);
  CHECK(state::forget_server(doc, "dup"));
  CHECK_FALSE(doc.at("servers").as_object().contains("dup"));
  CHECK_FALSE(doc.at("definitions").as_object().contains("fpA"));
  CHECK(doc.at("definitions").as_object().contains("fpK"));
  CHECK_FALSE(state::forget_server(doc, "dup"));
}

TEST_CASE("a verdict unchecked for a month goes with the servers entry that mirrors it", "[verdicts]") {
  json::object doc = empty_doc();
  state::record_verdict(doc, {"fpOld", "old", "old", "user", std::nullopt, std::nullopt}, 1000, state::Writer::probe, mark);
  REQUIRE(doc.at("servers").as_object().contains("old"));
  const util::EpochMs later = 1000 + state::k_keep_unused_ms + 2000;
  state::record_verdict(doc, {"fpNew", "new", "new", "user", std::nullopt, std::nullopt}, later, state::Writer::probe,
                        [&](json::object& e) { e["checkedAt"] = later; });
  CHECK_FALSE(doc.at("definitions").as_object().contains("fpOld"));
  CHECK_FALSE(doc.at("servers").as_object().contains("old"));
  CHECK(doc.at("servers").as_object().contains("new"));
}

} // namespace test_verdicts
