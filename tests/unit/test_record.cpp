#include "fakes.hpp"

#include <mcphealth/probe/record.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>

using namespace mcphealth;
namespace json = boost::json;

TEST_CASE("a probe result becomes the same mark the hook writes", "[record]") {
  json::object entry;
  probe::ProbeResult down = testing::FakeProber::down("HTTP 503", state::FailureCode::http(503));
  down.retry_after_ms = 90'000;
  probe::mark_from_probe(entry, down, {1000, 120'000, 30'000, 600'000, 3'600'000, std::string("/c.json"), std::nullopt}, util::disk());
  CHECK(entry["status"] == "unhealthy");
  CHECK(entry["lastFailureCode"] == 503);
  CHECK(entry["nextRetryAt"] == 91'000);
  CHECK(entry["probe"].at("kind") == "exited");
  probe::ProbeResult up = testing::FakeProber::healthy();
  up.tool_count = 4;
  probe::mark_from_probe(entry, up, {2000, 120'000, 30'000, 600'000, 3'600'000, std::string("/c.json"), state::RestoredBy::reconnect_command}, util::disk());
  CHECK(entry["status"] == "healthy");
  CHECK(entry["restoredBy"] == "reconnect-command");
  CHECK(entry["probe"].at("tools") == 4);
}

TEST_CASE("recording keeps a verdict checked after the probe started", "[record]") {
  json::object doc{{"servers", json::object{}}};
  state::entry_of(doc, "newer") = json::object{{"status", "healthy"}, {"checkedAt", 20'000}};
  state::entry_of(doc, "older") = json::object{{"status", "healthy"}, {"checkedAt", 5'000}};
  probe::ProbeResult down = testing::FakeProber::down("boom");
  probe::MarkContext ctx{10'000, 120'000, 30'000, 600'000, 3'600'000, std::nullopt, std::nullopt};
  auto who = [](const std::string& name) { return state::DefinitionInfo{"fp-" + name, name, name, "user", std::nullopt, std::nullopt}; };
  std::vector<std::string> skipped;
  CHECK(probe::record_probes(doc, {{who("newer"), down, 9'000, ctx}, {who("older"), down, 9'000, ctx}, {who("fresh"), down, 9'000, ctx}},
                             state::Writer::probe, util::disk(),
                             skipped));
  CHECK(skipped == std::vector<std::string>{"newer"});
  CHECK(doc.at("servers").at("newer").at("status") == "healthy");
  CHECK(doc.at("servers").at("older").at("status") == "unhealthy");
  CHECK(doc.at("servers").at("fresh").at("status") == "unhealthy");
  // The verdict lives under the definition; the servers entry mirrors it for the JS hook.
  CHECK(doc.at("definitions").at("fp-older").at("status") == "unhealthy");
  CHECK(doc.at("servers").at("older").at("definition") == "fp-older");
  CHECK(doc.at("servers").at("older").at("updatedBy") == "probe");
}

TEST_CASE("recording replaces a verdict checked by a clock far ahead of this one", "[record]") {
  json::object doc{{"servers", json::object{}}};
  const std::int64_t year = 365LL * 24 * 3600 * 1000;
  state::entry_of(doc, "jumped") = json::object{{"status", "healthy"}, {"checkedAt", 10'000 + year}};
  probe::MarkContext ctx{10'000, 120'000, 30'000, 600'000, 3'600'000, std::nullopt, std::nullopt};
  std::vector<std::string> skipped;
  CHECK(probe::record_probes(doc, {{state::DefinitionInfo{"fp-j", "jumped", "jumped", "user", std::nullopt, std::nullopt},
                                    testing::FakeProber::down("boom"), 9'000, ctx}},
                             state::Writer::probe, util::disk(), skipped));
  CHECK(skipped.empty());
  CHECK(doc.at("servers").at("jumped").at("status") == "unhealthy");
}

TEST_CASE("a silent probe keeps a server whose call timed out in the agent down and clears no other", "[record]") {
  probe::ProbeResult silent = testing::FakeProber::healthy();
  silent.kind = probe::Kind::alive_silent;
  silent.reason = "no answer to initialize in 3000 ms";
  const probe::MarkContext ctx{10'000, 120'000, 30'000, 600'000, 3'600'000, std::nullopt, std::nullopt};
  json::object timed_out;
  state::mark_unhealthy(timed_out, {.now = 1'000, .error = "MCP server \"svc\" tool \"echo\" timed out after 6s",
                                    .code = state::FailureCode::timeout(), .backoff_ms = 1'000, .max_backoff_ms = 8'000});
  CHECK(probe::silence_keeps_a_timeout(&timed_out, silent));
  const probe::ProbeResult held = probe::held_to(&timed_out, silent);
  CHECK_FALSE(held.ok);
  CHECK(held.code == state::FailureCode::timeout());
  CHECK(held.reason.find("its last call timed out in the agent") != std::string::npos);
  CHECK_FALSE(probe::held_to(&timed_out, held).reason.find("silent to a probe (silent") != std::string::npos);
  probe::mark_from_probe(timed_out, silent, ctx, util::disk());
  CHECK(timed_out["status"] == "unhealthy");
  CHECK(timed_out["lastFailureCode"] == "timeout");
  // An answer ends it; silence after a connection lost, or on a healthy server, is the slow server it may be.
  json::object answered = timed_out;
  probe::mark_from_probe(answered, testing::FakeProber::healthy(), ctx, util::disk());
  CHECK(answered["status"] == "healthy");
  json::object lost;
  state::mark_unhealthy(lost, {.now = 1'000, .error = "Connection closed", .code = state::FailureCode::transport(),
                               .backoff_ms = 1'000, .max_backoff_ms = 8'000});
  CHECK_FALSE(probe::silence_keeps_a_timeout(&lost, silent));
  probe::mark_from_probe(lost, silent, ctx, util::disk());
  CHECK(lost["status"] != "unhealthy");
  CHECK_FALSE(probe::silence_keeps_a_timeout(nullptr, silent));
}

TEST_CASE("a probe outside the hook keeps a server that refused the agent's token down until its credentials change",
          "[record]") {
  // refresh, probe and watch record through here: a probe asking for a token says nothing of the agent's token.
  testing::TempDir dir;
  const std::string store = (dir.path() / ".credentials.json").string();
  std::ofstream(store) << "{}";
  const auto mtime_ms = [&] { // as the file seam reads it
    const std::optional<util::FileStamp> stamp = util::disk().stat(store);
    REQUIRE(stamp);
    return util::EpochMs(stamp->mtime_ns / 1'000'000);
  };
  const auto touch_at = [&](util::EpochMs at) {
    const struct timespec times[2] = {{at / 1000, (at % 1000) * 1'000'000}, {at / 1000, (at % 1000) * 1'000'000}};
    REQUIRE(::utimensat(AT_FDCWD, store.c_str(), times, 0) == 0);
  };
  // Marked down by a failed call well after the file last changed.
  const util::EpochMs refused_at = mtime_ms() + 60'000;
  json::object entry = testing::failed_call(refused_at, state::FailureCode::http(401), {store});
  probe::ProbeResult asks;
  asks.ok = true;
  asks.kind = probe::Kind::needs_auth;
  asks.http_status = 401;
  probe::mark_from_probe(entry, asks, {refused_at + 31'000, 120'000, 30'000, 600'000, 3'600'000, std::nullopt, std::nullopt}, util::disk());
  CHECK(entry["status"] == "unhealthy");
  CHECK(std::string(entry["lastError"].as_string()).find("have not changed since") != std::string::npos);
  // A login rewrote the file after that check: the probe's answer stands, and the next call tries the new token.
  const util::EpochMs checked = *state::ServerEntry::from_json(entry).checked_at;
  touch_at(checked + 5'000);
  probe::mark_from_probe(entry, asks, {checked + 6'000, 120'000, 30'000, 600'000, 3'600'000, std::nullopt, std::nullopt}, util::disk());
  CHECK(entry["status"] == "healthy");
  // No file there (an agent that keeps its tokens elsewhere): the probe decides, as for any server.
  json::object elsewhere = testing::failed_call(1000, state::FailureCode::http(401), {(dir.path() / "none").string()});
  probe::mark_from_probe(elsewhere, asks, {40'000, 120'000, 30'000, 600'000, 3'600'000, std::nullopt, std::nullopt}, util::disk());
  CHECK(elsewhere["status"] == "healthy");
}

TEST_CASE("a breaker whose declared check failed ends when the check passes, and one that began while it passed holds",
          "[record][check]") {
  const auto breaker = [](std::optional<bool> check_passed) {
    json::object probe{{"kind", check_passed == false ? "check-failed" : "answered"}, {"latencyMs", 5}};
    if (check_passed) probe["check"] = *check_passed ? "passed" : "failed";
    return json::object{{"status", "unhealthy"},  {"failedCalls", 3},        {"lastFailedCallAt", 9'000},
                        {"downSince", 5'000},     {"checkedAt", 9'000},       {"nextRetryAt", 39'000},
                        {"lastFailureCode", "transport"}, {"probe", probe}};
  };
  probe::ProbeResult passing = testing::FakeProber::healthy();
  passing.check_passed = true;
  const json::object failed_check = breaker(false);
  REQUIRE(state::fails_on_calls(state::ServerEntry::from_json(failed_check)));
  CHECK(probe::held_for_trial(&failed_check, passing, std::nullopt).ok);
  const json::object passed_check = breaker(true);
  CHECK_FALSE(probe::held_for_trial(&passed_check, passing, std::nullopt).ok);
  const json::object no_check = breaker(std::nullopt);
  CHECK_FALSE(probe::held_for_trial(&no_check, passing, std::nullopt).ok);
  // A probe without its check (none declared) holds it, whatever the last one said.
  CHECK_FALSE(probe::held_for_trial(&failed_check, testing::FakeProber::healthy(), std::nullopt).ok);
}
