#include <mcphealth/probe/batch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>

namespace mcphealth::probe {

std::size_t default_parallelism() { return std::max<std::size_t>(3, std::thread::hardware_concurrency()); }

std::vector<BatchOutcome> probe_batch(const std::vector<BatchItem>& items, std::size_t parallel,
                                      const ProberFactory& make_prober, util::Clock& clock) {
  std::vector<BatchOutcome> out(items.size());
  if (items.empty()) return out;
  const std::size_t workers = parallel == 0 ? items.size() : std::min(parallel, items.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    std::unique_ptr<Prober> prober = make_prober();
    for (std::size_t i; (i = next.fetch_add(1)) < items.size();) {
      out[i].name = items[i].name;
      out[i].started_at = clock.now_ms();
      out[i].result = prober->probe(items[i].server, items[i].spec);
    }
  };
  if (workers == 1) {
    work();
    return out;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  return out;
}

} // namespace mcphealth::probe
