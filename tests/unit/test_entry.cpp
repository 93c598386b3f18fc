#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/fields.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace mcphealth;
namespace json = boost::json;

TEST_CASE("backoff doubles and stops at the cap", "[entry]") {
  CHECK(state::backoff_delay_ms(1, 30'000, 600'000) == 30'000);
  CHECK(state::backoff_delay_ms(2, 30'000, 600'000) == 60'000);
  CHECK(state::backoff_delay_ms(3, 30'000, 600'000) == 120'000);
  CHECK(state::backoff_delay_ms(5, 30'000, 600'000) == 480'000);
  CHECK(state::backoff_delay_ms(6, 30'000, 600'000) == 600'000);
  CHECK(state::backoff_delay_ms(400, 30'000, 600'000) == 600'000);
  CHECK(state::backoff_delay_ms(0, 30'000, 600'000) == 30'000);
}

TEST_CASE("numbers from a file are never trusted to fit", "[entry]") {
  // Found by the fuzzer: "lastFailureCode": 4e9 was cast to int.
  auto read = [](std::string_view text) { return state::ServerEntry::from_json(util::parse_json(text)->get_object()); };
  CHECK(read(R"({"lastFailureCode":4e9})").last_failure_code.kind == state::FailureCode::Kind::none);
  CHECK(read(R"({"lastFailureCode":-503})").last_failure_code.kind == state::FailureCode::Kind::none);
  CHECK(read(R"({"lastFailureCode":"99999999999999999999999"})").last_failure_code.kind == state::FailureCode::Kind::none);
  CHECK(read(R"({"lastFailureCode":503.0})").last_failure_code.text() == "503");
  CHECK(read(R"({"lastFailureCode":"429"})").last_failure_code.text() == "429");
  CHECK(read(R"({"failureCount":9223372036854775807})").failure_count == state::k_max_failure_count);
  CHECK(read(R"({"checkedAt":-9223372036854775808})").checked_at == 0);
  CHECK(read(R"({"nextRetryAt":9223372036854775807})").next_retry_at == util::k_max_epoch_ms);
  json::object e{{"failureCount", 9223372036854775807LL}};
  state::mark_unhealthy(e, {.now = 1000,
                            .error = "x",
                            .code = state::FailureCode::http(503),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000});
  CHECK(e["failureCount"] == state::k_max_failure_count + 1);
  CHECK(state::backoff_delay_ms(state::k_max_failure_count, 4'000'000'000'000'000'000LL,
                                std::numeric_limits<std::int64_t>::max()) == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("an unhealthy mark counts failures and keeps unknown fields", "[entry]") {
  json::object e{{"status", "healthy"}, {"failureCount", 0}, {"lastRestoredAt", 5}, {"note", "mine"}};
  state::mark_unhealthy(e, {.now = 1000,
                            .error = "boom",
                            .code = state::FailureCode::http(503),
                            .source = std::string("/c.json"),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000});
  CHECK(e["status"] == "unhealthy");
  CHECK(e["checkedAt"] == 1000);
  CHECK(e["expiresAt"] == 1000);
  CHECK(e["nextRetryAt"] == 31'000);
  CHECK(e["failureCount"] == 1);
  CHECK(e["lastError"] == "boom");
  CHECK(e["lastFailureCode"] == 503);
  CHECK(e["lastRestoredAt"] == 5);
  CHECK(e["note"] == "mine");
  state::mark_unhealthy(e, {.now = 2000,
                            .error = "again",
                            .code = state::FailureCode::transport(),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000});
  CHECK(e["failureCount"] == 2);
  CHECK(e["nextRetryAt"] == 62'000);
  CHECK(e["lastFailureCode"] == "transport");
  CHECK(e["source"] == "/c.json");
}

TEST_CASE("Retry-After pushes the retry out, up to an hour", "[entry]") {
  json::object e;
  state::mark_unhealthy(e, {.now = 0,
                            .error = "HTTP 429",
                            .code = state::FailureCode::http(429),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000,
                            .retry_after_ms = 900'000});
  CHECK(e["nextRetryAt"] == 900'000);
  json::object f;
  state::mark_unhealthy(f, {.now = 0,
                            .error = "HTTP 503",
                            .code = state::FailureCode::http(503),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000,
                            .retry_after_ms = 86'400'000});
  CHECK(f["nextRetryAt"] == 3'600'000);
  json::object g;
  state::mark_unhealthy(g, {.now = 0,
                            .error = "HTTP 503",
                            .code = state::FailureCode::http(503),
                            .backoff_ms = 30'000,
                            .max_backoff_ms = 600'000,
                            .retry_after_ms = 1'000});
  CHECK(g["nextRetryAt"] == 30'000);
}

TEST_CASE("a healthy mark resets failures and stamps a restore only after trouble", "[entry]") {
  json::object e{{"status", "unhealthy"}, {"failureCount", 4}, {"lastError", "x"}, {"lastFailureCode", 401}};
  state::mark_healthy(e, {.now = 7000,
                          .ttl_ms = 120'000,
                          .source = std::string("/c.json"),
                          .restored_by = state::RestoredBy::reconnect_command});
  CHECK(e["status"] == "healthy");
  CHECK(e["expiresAt"] == 127'000);
  CHECK(e["failureCount"] == 0);
  CHECK(e["lastError"].is_null());
  CHECK(e["lastFailureCode"].is_null());
  CHECK(e["nextRetryAt"].is_null());
  CHECK(e["lastRestoredAt"] == 7000);
  CHECK(e["restoredBy"] == "reconnect-command");
  state::mark_healthy(e, {.now = 9000, .ttl_ms = 120'000, .source = std::string("/c.json")});
  CHECK(e["lastRestoredAt"] == 7000);
  CHECK(e["restoredBy"] == "reconnect-command");
  // Down again, then back by a plain probe: the old cause does not stay.
  state::mark_unhealthy(e, {.now = 10'000, .error = "x", .backoff_ms = 30'000, .max_backoff_ms = 600'000});
  state::mark_healthy(e, {.now = 50'000, .ttl_ms = 120'000});
  CHECK(e["lastRestoredAt"] == 50'000);
  CHECK(e["restoredBy"].is_null());
}

TEST_CASE("failure codes read numbers, strings and nothing", "[entry]") {
  json::value n = 401, t = "transport", s = "503", bad = "weird", slow = "timeout";
  CHECK(state::FailureCode::from_json(&n) == state::FailureCode::http(401));
  CHECK(state::FailureCode::from_json(&t) == state::FailureCode::transport());
  CHECK(state::FailureCode::from_json(&slow) == state::FailureCode::timeout());
  CHECK(state::FailureCode::timeout().to_json() == "timeout");
  CHECK(state::FailureCode::timeout().text() == "timeout");
  CHECK(state::FailureCode::from_json(&s) == state::FailureCode::http(503));
  CHECK_FALSE(state::FailureCode::from_json(&bad).present());
  CHECK_FALSE(state::FailureCode::from_json(nullptr).present());
}

TEST_CASE("pretty JSON is stable, indented and integral", "[entry]") {
  json::value v = json::parse(R"({"a":[1,{"b":null}],"c":{},"d":1.5,"e":3.0})");
  CHECK(util::pretty_json(v) == "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": 1.5,\n  \"e\": 3\n}\n");
}

TEST_CASE("a mark checked in the future decides nothing so a forward clock jump keeps nothing fresh or blocked", "[entry]") {
  const util::EpochMs now = 1'800'000'000'000;
  const std::int64_t year = 365LL * 24 * 3600 * 1000;
  state::ServerEntry healthy;
  healthy.status = "healthy";
  healthy.checked_at = now + year;
  healthy.expires_at = now + year + 120'000;
  CHECK(state::outlook_of(healthy, now, 0, 0).freshness == state::Freshness::unknown);
  state::ServerEntry down;
  down.status = "unhealthy";
  down.checked_at = now + year;
  down.next_retry_at = now + year + 30'000;
  CHECK(state::outlook_of(down, now, 3'600'000, 0).freshness == state::Freshness::unknown);
  // Within the skew (or in the past) it decides as before.
  healthy.checked_at = now + 1'000;
  healthy.expires_at = now + 121'000;
  CHECK(state::outlook_of(healthy, now, 0, 0).freshness == state::Freshness::fresh);
}

TEST_CASE("a healthy mark is fresh no longer past its check than the TTL in force, whatever its expiresAt says", "[entry]") {
  const util::EpochMs now = 1'800'000'000'000;
  const std::int64_t year = 365LL * 24 * 3600 * 1000;
  state::ServerEntry e;
  e.status = "healthy";
  e.checked_at = now - 600'000; // ten minutes ago
  e.expires_at = now + year;
  CHECK(state::outlook_of(e, now, 0, 0).freshness == state::Freshness::fresh); // unbounded: as the mark says
  const state::Outlook o = state::outlook_of(e, now, 0, 120'000);
  CHECK(o.freshness == state::Freshness::stale);
  CHECK(o.stale_for_ms == 480'000);
  CHECK(state::outlook_of(e, now, 0, 3'600'000).freshness == state::Freshness::fresh);
  // What a text says follows the bound, not the year: fresh for 50 minutes more, not 8759h.
  CHECK(state::outlook_of(e, now, 0, 3'600'000).fresh_until == now + 3'000'000);
  CHECK(state::outlook_of(e, now, 0, 0).fresh_until == now + year);
}

TEST_CASE("the strings a server names itself with are capped when written", "[entry]") {
  state::ProbeDetails d;
  d.kind = "answered";
  d.server_name = std::string(16 << 20, 'n');
  d.server_version = std::string(1000, 'v');
  d.protocol_version = "2025-06-18";
  const json::object o = d.to_json();
  CHECK(o.at("serverName").get_string().size() == state::k_max_server_string_bytes);
  CHECK(o.at("serverVersion").get_string().size() == state::k_max_server_string_bytes);
  CHECK(o.at("protocolVersion").get_string() == "2025-06-18");
}

TEST_CASE("a server that goes down again within a TTL of coming back goes on backing off, and is flapping", "[entry]") {
  constexpr std::int64_t ttl = 120'000;
  const auto down = [&](json::object& e, util::EpochMs at) {
    state::mark_unhealthy(e, {.now = at, .error = "boom", .code = state::FailureCode::transport(), .backoff_ms = 30'000,
                              .max_backoff_ms = 600'000, .remember_ms = ttl});
  };
  json::object e;
  down(e, 0);
  down(e, 30'000); // two failures: a 60 s backoff
  REQUIRE(state::ServerEntry::from_json(e).failure_count == 2);
  state::mark_healthy(e, {.now = 90'000, .ttl_ms = ttl});
  CHECK(state::ServerEntry::from_json(e).failure_count == 0); // the JS hook's field, as it writes it
  CHECK(state::ServerEntry::from_json(e).recent_failures == 2);
  down(e, 100'000); // 10 s after coming back: the outage goes on
  state::ServerEntry s = state::ServerEntry::from_json(e);
  CHECK(s.failure_count == 3);
  CHECK(*s.next_retry_at - 100'000 == 120'000); // the backoff grows on, where a fresh count would give 30 s
  CHECK(s.flaps == 1);
  CHECK_FALSE(state::flapping(s));
  state::mark_healthy(e, {.now = 220'000, .ttl_ms = ttl});
  down(e, 221'000);
  s = state::ServerEntry::from_json(e);
  CHECK(s.failure_count == 4);
  CHECK(state::flapping(s));
  SECTION("up one whole TTL: the outages before are forgotten") {
    state::mark_healthy(e, {.now = 500'000, .ttl_ms = ttl});
    state::refresh_healthy(e, 500'000 + ttl, ttl);
    down(e, 700'000);
    s = state::ServerEntry::from_json(e);
    CHECK(s.failure_count == 1);
    CHECK(s.flaps == 0);
  }
  SECTION("down again long after coming back, with no check between: a new outage") {
    state::mark_healthy(e, {.now = 500'000, .ttl_ms = ttl});
    down(e, 500'000 + ttl);
    s = state::ServerEntry::from_json(e);
    CHECK(s.failure_count == 1);
    CHECK(s.flaps == 0);
  }
}

// Every field of an entry, held to what every kind of mark does with it: kept as it was (K), written by the mark
// (W), or cleared (null or gone: C). A field added to fields.hpp without a row here, or a mark site that wipes a
// field it should keep, fails.
namespace test_entry_marks {
namespace {

using namespace mcphealth;
namespace json = boost::json;

constexpr util::EpochMs k_now = 1'800'000'000'000;

/// An entry with every field set to a value no mark writes.
json::object everything(std::string_view status, util::EpochMs retry_at) {
  namespace f = state::field;
  json::object e;
  e[f::status] = status;
  e[f::checked_at] = k_now - 7'000;
  e[f::expires_at] = status == "healthy" ? k_now + 1'000 : k_now - 7'000;
  e[f::next_retry_at] = status == "healthy" ? json::value(nullptr) : json::value(retry_at);
  e[f::last_restored_at] = k_now - 3'000'000;
  e[f::down_since] = k_now - 9'000;
  e[f::failure_count] = status == "healthy" ? 0 : 3;
  e[f::last_error] = "old error";
  e[f::last_failure_code] = 502;
  e[f::source] = "/old/.mcp.json";
  e[f::restored_by] = "reconnect";
  e[f::updated_by] = "someone";
  e[f::probe] = json::object{{"kind", "exited"}};
  e[f::definition] = "fp-old";
  e[f::failed_calls] = 1;
  e[f::last_failed_call_at] = k_now - 8'000;
  e[f::last_failed_tool] = "old_tool";
  e[f::upstream] = true;
  e[f::code_files] = json::array{"/old/server.js"};
  e[f::credential_files] = json::array{"/old/creds.json"};
  e[f::files_stamp] = "old-stamp";
  e[f::recent_failures] = 4;
  e[f::flaps] = 1;
  e[f::last_reconnect] = json::object{{"at", k_now - 9'000}, {"command", "old"}, {"ok", false}, {"line", "no"}};
  return e;
}

state::MarkContext context() {
  state::MarkContext c;
  c.now = k_now;
  c.ttl_ms = 120'000;
  c.backoff_ms = 30'000;
  c.max_backoff_ms = 600'000;
  c.source = "/new/.mcp.json";
  return c;
}

state::ProbeDetails details() {
  state::ProbeDetails d;
  d.kind = "answered";
  return d;
}

struct Kind {
  const char* name;
  json::object before;
  std::function<void(json::object&)> mark;
};

std::vector<Kind> kinds() {
  std::vector<Kind> out;
  out.push_back({"a probe passes", everything("healthy", 0),
                 [](json::object& e) { state::mark_healthy(e, state::healthy_mark(context(), details())); }});
  out.push_back({"a restore", everything("unhealthy", k_now + 60'000), [](json::object& e) {
                   state::MarkContext c = context();
                   c.restored_by = state::RestoredBy::reconnect_command;
                   c.reconnect = state::ReconnectNote{.at = k_now, .command = "pm2 restart svc", .ok = true};
                   state::mark_healthy(e, state::healthy_mark(c));
                 }});
  out.push_back({"a mark extended", everything("healthy", 0), [](json::object& e) { state::refresh_healthy(e, k_now, 120'000); }});
  out.push_back({"a probe fails, its retry due", everything("unhealthy", k_now - 1), [](json::object& e) {
                   state::UnhealthyMark m = state::unhealthy_mark(context(), "refused", state::FailureCode::none());
                   m.probe = details();
                   m.escalate = state::Escalate::when_due;
                   state::mark_unhealthy(e, m);
                 }});
  out.push_back({"a probe fails in its backoff", everything("unhealthy", k_now + 60'000), [](json::object& e) {
                   state::UnhealthyMark m = state::unhealthy_mark(context(), "refused", state::FailureCode::none());
                   m.probe = details();
                   m.escalate = state::Escalate::when_due;
                   state::mark_unhealthy(e, m);
                 }});
  out.push_back({"a call fails", everything("healthy", 0), [](json::object& e) {
                   state::UnhealthyMark m = state::unhealthy_mark(context(), "closed", state::FailureCode::none());
                   m.failed_calls = 2;
                   m.failed_tool = "new_tool";
                   m.code_files = {"/new/server.js"};
                   m.credential_files = {"/new/creds.json"};
                   m.files_stamp = "new-stamp";
                   m.reconnect = state::ReconnectNote{.at = k_now, .command = "pm2 restart svc", .exit = "1"};
                   state::mark_unhealthy(e, m);
                 }});
  return out;
}

char what_became(const json::object& before, const json::object& after, std::string_view field) {
  const json::value* b = before.if_contains(field);
  const json::value* a = after.if_contains(field);
  if (a == nullptr || a->is_null()) return b == nullptr || b->is_null() ? 'K' : 'C';
  if (b != nullptr && *a == *b) return 'K';
  return 'W';
}

} // namespace

/// What each kind of mark (in kinds()' order: a probe passes, a restore, a mark extended, a probe fails with its
/// retry due, a probe fails in its backoff, a call fails) does with each field.
const std::map<std::string, std::string> k_rows = {
    {"status", "KWKKKW"},          {"checkedAt", "WWWWWW"},        {"expiresAt", "WWWWWW"},
    {"nextRetryAt", "KCKWKW"},     {"lastRestoredAt", "KWKKKK"},   {"downSince", "CCKKKW"},
    {"failureCount", "KWKWKW"},    {"lastError", "CCKWWW"},        {"lastFailureCode", "CCKCCC"},
    {"source", "WWKWKW"},          {"restoredBy", "KWKKKK"},       {"updatedBy", "KKKKKK"},
    {"probe", "WCKWWC"},           {"definition", "KKKKKK"},       {"failedCalls", "KKKKKW"},
    {"lastFailedCallAt", "KKKKKW"}, {"lastFailedTool", "KKKKKW"},  {"codeFiles", "KKKKKW"},
    {"credentialFiles", "KKKKKW"}, {"filesStamp", "KKKKKW"},     {"recentFailures", "CWCKKC"},   {"flaps", "CKCKKC"},
    {"lastReconnect", "KWKKKW"},   {"upstream", "KKKKKC"},
};

TEST_CASE("every field of an entry is kept, written or cleared by each kind of mark, as its row says", "[entry][marks]") {
  const std::vector<Kind> all = kinds();
  for (std::string_view f : state::field::entry_fields) {
    INFO("field " << f);
    const auto row = k_rows.find(std::string(f));
    REQUIRE(row != k_rows.end()); // a new field needs its row
    REQUIRE(row->second.size() == all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      INFO(all[i].name);
      json::object e = all[i].before;
      all[i].mark(e);
      CHECK(what_became(all[i].before, e, f) == row->second[i]);
      // Read back as written: the entry parses, and says what the mark made it.
      const state::ServerEntry read = state::ServerEntry::from_json(e);
      CHECK(read.checked_at == std::optional<util::EpochMs>(k_now));
    }
  }
  CHECK(k_rows.size() == std::size(state::field::entry_fields));
}

TEST_CASE("a tool's upstream error is noted without a mark, and the second in a row marks an upstream breaker at the look cap",
          "[entry][marks]") {
  json::object e = everything("healthy", 0);
  state::clear_failed_calls(e);
  const json::object before = e;
  state::note_failed_call(e, {.now = k_now, .failed_calls = 1, .tool = "query"});
  CHECK(e["status"] == "healthy"); // one failure's text proves nothing
  CHECK(e["checkedAt"] == before.at("checkedAt"));
  CHECK(e["failedCalls"] == 1);
  CHECK(e["lastFailedTool"] == "query");
  CHECK(e["upstream"] == true);
  // The second: a mark, its backoff within the look cap however long the row (a crash loop's would pass it).
  state::MarkContext c = context();
  c.backoff_ms = 30'000;
  c.max_backoff_ms = 600'000;
  c.crash_loop_max_backoff_ms = 3'600'000;
  state::UnhealthyMark m = state::unhealthy_mark(c, "its last 2 calls failed with an upstream error (HTTP 503)",
                                                 state::FailureCode::http(503));
  m.failed_calls = 40;
  m.upstream = true;
  state::mark_unhealthy(e, m);
  CHECK(e["status"] == "unhealthy");
  CHECK(e["upstream"] == true);
  CHECK(e["nextRetryAt"].as_int64() - k_now == 600'000);
  // The same row, not upstream: a crash loop, whose trial calls double past the look cap to its own.
  json::object loop = before;
  m.upstream = false;
  state::mark_unhealthy(loop, m);
  CHECK(!loop.contains("upstream"));
  CHECK(loop["nextRetryAt"].as_int64() - k_now == 3'600'000);
  // A call that succeeds ends the row, its kind with it.
  state::clear_failed_calls(e);
  CHECK(!e.contains("upstream"));
  CHECK(!e.contains("failedCalls"));
}

TEST_CASE("a crash loop nobody fixes over an 8-hour night costs about 15 trial calls, not one per look cap", "[entry][marks]") {
  // The defaults: 30 s base, 10 min look cap, 1 h crash-loop cap. Each trial call fails and marks one more.
  json::object e;
  util::EpochMs now = 0;
  int trials = 0;
  for (std::int64_t calls = 2; now < 8 * 3'600'000; ++calls) {
    state::MarkContext c;
    c.now = now;
    c.ttl_ms = 120'000;
    c.backoff_ms = 30'000;
    c.max_backoff_ms = 600'000;
    c.crash_loop_max_backoff_ms = 3'600'000;
    state::UnhealthyMark m = state::unhealthy_mark(c, "closed", state::FailureCode::transport());
    m.failed_calls = calls;
    state::mark_unhealthy(e, m);
    now = e["nextRetryAt"].as_int64();
    ++trials;
  }
  CHECK(trials <= 16);
  CHECK(trials >= 12);
  // At the look cap alone the same night would have cost one per 10 minutes past the climb: more than 45.
}

TEST_CASE("entry_fields names every field of an entry that fields.hpp spells", "[entry][marks]") {
  // The source's own list: every `inline constexpr std::string_view` above the probe object's fields.
  const std::filesystem::path fields =
      std::filesystem::path(MCPHEALTH_TEST_PAYLOADS).parent_path().parent_path().parent_path() / "lib" / "mcphealth" /
      "state" / "fields.hpp";
  std::ifstream in(fields);
  REQUIRE(in);
  std::vector<std::string> spelled;
  for (std::string line; std::getline(in, line);) {
    if (line.find("The entry's `probe` object") != std::string::npos) break;
    const std::string lead = "inline constexpr std::string_view ";
    if (line.rfind(lead, 0) != 0 || line.find("entry_fields") != std::string::npos) continue;
    const std::size_t quote = line.find('"');
    spelled.push_back(line.substr(quote + 1, line.find('"', quote + 1) - quote - 1));
  }
  std::vector<std::string> listed(std::begin(state::field::entry_fields), std::end(state::field::entry_fields));
  std::sort(spelled.begin(), spelled.end());
  std::sort(listed.begin(), listed.end());
  CHECK(spelled == listed);
}

} // namespace test_entry_marks
