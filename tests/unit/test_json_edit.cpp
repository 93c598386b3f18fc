// rewrite_json on literal documents: what changes is written, what did not keeps its bytes, and an edit undone
// gives back the text it began from.
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/json_edit.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace json = boost::json;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_json_edit {
namespace {

json::value parsed(std::string_view text) { return *util::parse_json(text); }

/// `text` with `edit` applied to its parsed value, rewritten over `text`.
template <typename Edit>
std::string edited(const std::string& text, Edit edit) {
  json::value v = parsed(text);
  edit(v);
  return util::rewrite_json(text, v);
}

} // namespace

TEST_CASE("a document written back unchanged keeps every byte", "[json_edit]") {
  const std::string text = "\n{ \"big\" :1e400,\"long\": 123456789012345678901234567890 ,\n\t\"odd\": \"\\ud800 \\/\", \"a\": [ ] }  \n";
  CHECK(util::rewrite_json(text, parsed(text)) == text);
}

TEST_CASE("an element added to a user's list is indented like its neighbour, and removing it gives the bytes back",
          "[json_edit]") {
  const std::string text = "{\n    \"hooks\": {\n        \"Stop\": [\n            {\"command\": \"say done\"}\n        ]\n    }\n}\n";
  const std::string added = edited(text, [](json::value& v) {
    v.at("hooks").at("Stop").as_array().push_back(json::object{{"command", "mcphealth hook"}});
  });
  CHECK(added == "{\n    \"hooks\": {\n        \"Stop\": [\n            {\"command\": \"say done\"},\n"
                 "            {\n                \"command\": \"mcphealth hook\"\n            }\n        ]\n    }\n}\n");
  CHECK(edited(added, [](json::value& v) { v.at("hooks").at("Stop").as_array().pop_back(); }) == text);
}

TEST_CASE("a member added to an object goes after its last, and removing it gives the bytes back", "[json_edit]") {
  const std::string text = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": []\n  }\n}";
  const std::string added = edited(text, [](json::value& v) { v.at("hooks").as_object()["PreToolUse"] = json::array{1}; });
  CHECK(added == "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [],\n    \"PreToolUse\": [\n      1\n    ]\n  }\n}");
  CHECK(edited(added, [](json::value& v) { v.at("hooks").as_object().erase("PreToolUse"); }) == text);
}

TEST_CASE("an object written on one line gains its member on that line", "[json_edit]") {
  const std::string text = "{\"env\": {\"X\": \"y\"}}";
  CHECK(edited(text, [](json::value& v) { v.at("env").as_object()["Z"] = json::object{{"a", json::array{1, 2}}}; }) ==
        "{\"env\": {\"X\": \"y\", \"Z\": {\"a\": [1, 2]}}}");
}

TEST_CASE("a string changed deep inside keeps the layout around it", "[json_edit]") {
  const std::string text = "{\"hooks\":{\"Pre\":[ {\"matcher\":\"mcp__.*\",   \"command\":\"/opt/old/mcphealth hook\"} ]}}";
  CHECK(edited(text, [](json::value& v) { v.at("hooks").at("Pre").at(0).as_object()["command"] = "/usr/bin/mcphealth hook"; }) ==
        "{\"hooks\":{\"Pre\":[ {\"matcher\":\"mcp__.*\",   \"command\":\"/usr/bin/mcphealth hook\"} ]}}");
}

TEST_CASE("removing a list's middle, first or last element keeps the others' separators", "[json_edit]") {
  const std::string text = "[1,  2,   3,    4]";
  const auto without = [&](std::size_t i) {
    return edited(text, [i](json::value& v) { v.as_array().erase(v.as_array().begin() + static_cast<std::ptrdiff_t>(i)); });
  };
  CHECK(without(1) == "[1,  3,    4]");
  CHECK(without(0) == "[2,   3,    4]");
  CHECK(without(3) == "[1,  2,   3]");
  CHECK(edited(text, [](json::value& v) { v.as_array().clear(); }) == "[]");
}

TEST_CASE("an element replaced in place is matched by position between the unchanged ones", "[json_edit]") {
  const std::string text = "[\"a\", {\"k\": 1, \"x\": true}, \"c\"]";
  CHECK(edited(text, [](json::value& v) { v.at(1).as_object()["k"] = 2; }) == "[\"a\", {\"k\": 2, \"x\": true}, \"c\"]");
}

TEST_CASE("an empty object gains its first member on a line of its own, and losing it gives back the brackets",
          "[json_edit]") {
  const std::string text = "{\n  \"hooks\": {}\n}\n";
  const std::string added = edited(text, [](json::value& v) { v.at("hooks").as_object()["Stop"] = json::array{}; });
  CHECK(added == "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n");
  CHECK(edited(added, [](json::value& v) { v.at("hooks").as_object().erase("Stop"); }) == text);
}

TEST_CASE("text that is not one JSON value is written anew", "[json_edit]") {
  const json::value v = json::object{{"a", 1}};
  CHECK(util::rewrite_json("", v) == "{\n  \"a\": 1\n}\n");
  CHECK(util::rewrite_json("{\"a\": ", v) == "{\n  \"a\": 1\n}\n");
  CHECK(util::rewrite_json("{} {}", v) == "{\n  \"a\": 1\n}\n");
}

TEST_CASE("a key written twice is changed at its last place, where it counts, and goes from both", "[json_edit]") {
  const std::string text = "{\"a\": 2, \"b\": 3e9, \"a\": 3}";
  CHECK(edited(text, [](json::value& v) { v.as_object()["a"] = 1; }) == "{\"a\": 2, \"b\": 3e9, \"a\": 1}");
  CHECK(edited(text, [](json::value& v) { v.as_object().erase("a"); }) == "{\"b\": 3e9}");
}

TEST_CASE("a number Boost.JSON reads as NaN keeps its bytes: it is the same value, not a changed one", "[json_edit]") {
  // Boost.JSON 1.81 reads 0e396 as NaN, which is not == to itself: compared with ==, the whole document looked
  // changed and was written anew, the NaN as `NaN`, which no JSON reader takes.
  const std::string text = "{\"n\": 0e396, \"a\": []}";
  CHECK(util::rewrite_json(text, parsed(text)) == text);
  CHECK(edited(text, [](json::value& v) { v.at("a").as_array().push_back(1); }) == "{\"n\": 0e396, \"a\": [\n  1\n]}");
}

} // namespace test_json_edit
