#include <mcphealth/probe/batch.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <new>
#include <system_error>
#include <thread>

namespace mcphealth::probe {

std::size_t default_parallelism() { return std::max<std::size_t>(3, std::thread::hardware_concurrency()); }

std::vector<BatchOutcome> probe_batch(const std::vector<BatchItem>& items, std::size_t parallel,
                                      const ProberFactory& make_prober, util::Clock& clock) {
  std::vector<BatchOutcome> out(items.size());
  if (items.empty()) return out;
  const std::size_t workers = parallel == 0 ? items.size() : std::min(parallel, items.size());
  std::atomic<std::size_t> next{0};
  // Every worker catches: an exception escaping a thread is std::terminate, and nothing would be recorded.
  auto work = [&] {
    std::unique_ptr<Prober> prober;
    for (std::size_t i; (i = next.fetch_add(1)) < items.size();) {
      out[i].name = items[i].name;
      out[i].started_at = clock.now_ms();
      try {
        if (!prober) prober = make_prober();
        out[i].result = prober->probe(items[i].server, items[i].spec);
      } catch (const std::bad_alloc&) {
        out[i].result = local_fault("the probe", ENOMEM);
      } catch (const std::exception& e) { // a thread, a lock or a buffer this machine would not give
        out[i].result = ProbeResult{};
        out[i].result.kind = Kind::local_fault;
        out[i].result.reason = std::string("mcphealth could not run the probe (") + e.what() +
                               "); nothing was learned of the server";
      }
    }
  };
  if (workers == 1) {
    work();
    return out;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break; // no more threads here (EAGAIN): the ones started, or this one, take the rest
    }
  }
  if (threads.empty()) work();
  for (auto& t : threads) t.join();
  return out;
}

} // namespace mcphealth::probe
