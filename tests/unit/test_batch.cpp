#include "fakes.hpp"

#include <mcphealth/probe/batch.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mcphealth;

TEST_CASE("a batch runs probes in parallel and keeps the items' order", "[batch]") {
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
    probe::ProbeResult probe(const config::ResolvedServer& s, const probe::ProbeSpec&) override {
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
    items.push_back({"s" + std::to_string(i), {{"s" + std::to_string(i), "/c", "x", {}}, config::UnsupportedServer{}, {}}, {1000, {}, 0, {}}});
  }
  util::SystemClock clock;
  for (std::size_t parallel : {std::size_t{0}, std::size_t{2}}) {
    Rendezvous meet;
    meet.want = parallel == 0 ? 6 : 2;
    auto out = probe::probe_batch(items, parallel, [&] { return std::make_unique<MeetingProber>(meet); }, clock);
    REQUIRE(out.size() == 6);
    for (int i = 0; i < 6; ++i) CHECK(out[static_cast<std::size_t>(i)].result.reason == "s" + std::to_string(i));
    CHECK(meet.peak == meet.want);
  }
}

