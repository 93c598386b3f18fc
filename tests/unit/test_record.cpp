#include "fakes.hpp"

#include <mcphealth/probe/batch.hpp>
#include <mcphealth/probe/prometheus.hpp>
#include <mcphealth/probe/record.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mcphealth;
namespace json = boost::json;

TEST_CASE("a probe result becomes the same mark the hook writes", "[record]") {
  json::object entry;
  probe::ProbeResult down = testing::FakeProber::down("HTTP 503", state::FailureCode::http(503));
  down.retry_after_ms = 90'000;
  probe::mark_from_probe(entry, down, {1000, 120'000, 30'000, 600'000, std::string("/c.json"), std::nullopt});
  CHECK(entry["status"] == "unhealthy");
  CHECK(entry["lastFailureCode"] == 503);
  CHECK(entry["nextRetryAt"] == 91'000);
  CHECK(entry["probe"].at("kind") == "exited");
  probe::ProbeResult up = testing::FakeProber::healthy();
  up.tool_count = 4;
  probe::mark_from_probe(entry, up, {2000, 120'000, 30'000, 600'000, std::string("/c.json"), std::string("reconnect-command")});
  CHECK(entry["status"] == "healthy");
  CHECK(entry["restoredBy"] == "reconnect-command");
  CHECK(entry["probe"].at("tools") == 4);
}

TEST_CASE("recording keeps an entry checked after the probe started", "[record]") {
  testing::TempDir dir;
  testing::FakeClock clock(10'000);
  state::StateStore store(dir.path() / "state.json", clock);
  store.update([](json::object& doc) {
    state::entry_of(doc, "newer") = json::object{{"status", "healthy"}, {"checkedAt", 20'000}};
    state::entry_of(doc, "older") = json::object{{"status", "healthy"}, {"checkedAt", 5'000}};
    return true;
  });
  probe::ProbeResult down = testing::FakeProber::down("boom");
  probe::MarkContext ctx{10'000, 120'000, 30'000, 600'000, std::nullopt, std::nullopt};
  std::vector<std::string> skipped;
  auto r = probe::record_probes(store, {{"newer", down, 9'000, ctx}, {"older", down, 9'000, ctx}, {"fresh", down, 9'000, ctx}},
                                skipped);
  CHECK(r.outcome == state::UpdateResult::Outcome::written);
  CHECK(skipped == std::vector<std::string>{"newer"});
  auto snap = store.read();
  CHECK(snap.server("newer")->at("status") == "healthy");
  CHECK(snap.server("older")->at("status") == "unhealthy");
  CHECK(snap.server("fresh")->at("status") == "unhealthy");
}

TEST_CASE("a batch runs probes in parallel and keeps the items' order", "[record]") {
  /// Meets the other probes: each waits (10 s at most) until `want` probes are running at once, and records the most
  /// it saw. A serial batch never gets there; one that ignores --parallel runs more than `want`.
  struct Rendezvous {
    std::mutex mutex;
    std::condition_variable changed;
    int running = 0;
    int peak = 0;
    int want = 0;
  };
  class MeetingProber final : public probe::Prober {
  public:
    explicit MeetingProber(Rendezvous& r) : m_r(r) {}
    probe::ProbeResult probe(const config::ResolvedServer& s, std::int64_t) override {
      std::unique_lock<std::mutex> lock(m_r.mutex);
      m_r.peak = std::max(m_r.peak, ++m_r.running);
      m_r.changed.notify_all();
      m_r.changed.wait_for(lock, std::chrono::seconds(10), [&] { return m_r.peak >= m_r.want; });
      --m_r.running;
      probe::ProbeResult r = testing::FakeProber::healthy();
      r.reason = s.definition.name;
      return r;
    }

  private:
    Rendezvous& m_r;
  };
  std::vector<probe::BatchItem> items;
  for (int i = 0; i < 6; ++i) {
    items.push_back({"s" + std::to_string(i), {{"s" + std::to_string(i), "/c", "x", {}}, config::UnsupportedServer{}, {}}});
  }
  util::SystemClock clock;
  for (std::size_t parallel : {std::size_t{0}, std::size_t{2}}) {
    Rendezvous meet;
    meet.want = parallel == 0 ? 6 : 2;
    auto out = probe::probe_batch(items, 1000, parallel, [&] { return std::make_unique<MeetingProber>(meet); }, clock);
    REQUIRE(out.size() == 6);
    for (int i = 0; i < 6; ++i) CHECK(out[static_cast<std::size_t>(i)].result.reason == "s" + std::to_string(i));
    CHECK(meet.peak == meet.want);
  }
}

TEST_CASE("Prometheus output has HELP, TYPE and escaped labels, without floating point", "[record]") {
  std::string text = probe::render_prometheus({{"a\"b", true, 1234, 7, 0, 1'796'000'000'123}, {"c", false, 5, std::nullopt, 3, 1000}});
  CHECK(text.find("# HELP mcphealth_up ") != std::string::npos);
  CHECK(text.find("# TYPE mcphealth_up gauge\n") != std::string::npos);
  CHECK(text.find("mcphealth_up{server=\"a\\\"b\"} 1\n") != std::string::npos);
  CHECK(text.find("mcphealth_up{server=\"c\"} 0\n") != std::string::npos);
  CHECK(text.find("mcphealth_probe_duration_seconds{server=\"a\\\"b\"} 1.234\n") != std::string::npos);
  CHECK(text.find("mcphealth_tools{server=\"c\"}") == std::string::npos);
  CHECK(text.find("mcphealth_consecutive_failures{server=\"c\"} 3\n") != std::string::npos);
  CHECK(text.find("mcphealth_last_probe_timestamp_seconds{server=\"a\\\"b\"} 1796000000.123\n") != std::string::npos);
  CHECK(text.find("E+") == std::string::npos); // no exponent notation (Boost.JSON would write 1.5E0)
  CHECK(text.find("e+") == std::string::npos);
}
