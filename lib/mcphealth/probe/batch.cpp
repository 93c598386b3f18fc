#include <mcphealth/probe/batch.hpp>

#include <mcphealth/probe/pacer.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <new>
#include <optional>
#include <system_error>
#include <mutex>
#include <thread>

namespace mcphealth::probe {

std::size_t default_parallelism() { return std::max<std::size_t>(3, std::thread::hardware_concurrency()); }

std::vector<BatchOutcome> probe_batch(const std::vector<BatchItem>& items, std::size_t parallel,
                                      const ProberFactory& make_prober, util::Clock& clock,
                                      const BatchProgress& progress, const BatchWaiting& waiting) {
  std::vector<BatchOutcome> out(items.size());
  if (items.empty()) return out;
  // A probe per thread, up to a bound; `parallel` paces the local servers' starts (probe/pacer.hpp), so one that
  // waits out its timeout holds no slot.
  const std::size_t workers = std::min(items.size(), k_max_probe_threads);
  std::optional<StartPacer> pacer;
  if (parallel != 0) {
    pacer.emplace(parallel);
    // Once a start's cost is seen, as many may start together as the cores get through in part of the shortest
    // timeout: a silent server started early waits its timeout out beside the others' starts, not after them.
    std::int64_t shortest = 0;
    for (const BatchItem& item : items) {
      if (item.spec.timeout_ms > 0 && (shortest == 0 || item.spec.timeout_ms < shortest)) shortest = item.spec.timeout_ms;
    }
    pacer->allow_backlog(shortest * k_backlog_percent / 100, std::thread::hardware_concurrency());
  }
  // The slowest last time first: a server that waits out its timeout should not be the last to start.
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return items[a].spec.expected_ms > items[b].spec.expected_ms; });
  std::atomic<std::size_t> next{0};
  std::mutex progress_lock;
  std::size_t done = 0;
  // Every worker catches: an exception escaping a thread is std::terminate, and nothing would be recorded.
  auto work = [&] {
    std::unique_ptr<Prober> prober;
    for (std::size_t turn; (turn = next.fetch_add(1)) < items.size();) {
      const std::size_t i = order[turn];
      out[i].name = items[i].name;
      out[i].started_at = clock.now_ms();
      try {
        if (!prober) prober = make_prober();
        ProbeSpec spec = items[i].spec;
        if (pacer) {
          spec.options.pacer = &*pacer;
          spec.options.pace_order = turn;
        }
        out[i].result = prober->probe(items[i].server, spec);
      } catch (const std::bad_alloc&) {
        out[i].result = local_fault("the probe", ENOMEM);
      } catch (const std::exception& e) { // a thread, a lock or a buffer this machine would not give
        out[i].result = ProbeResult{};
        out[i].result.kind = Kind::local_fault;
        out[i].result.reason = std::string("mcphealth could not run the probe (") + e.what() +
                               "); nothing was learned of the server";
      }
      if (progress) {
        const std::lock_guard<std::mutex> held(progress_lock);
        progress(++done, items.size(), items[i].name);
      }
    }
  };
  if (workers == 1 && !waiting) {
    work();
    return out;
  }
  // With someone waiting on this thread, every probe runs on a worker, and this thread wakes each tick to call it.
  std::mutex finished_lock;
  std::condition_variable finished_cv;
  std::size_t finished = 0;
  auto worker = [&] {
    work();
    const std::lock_guard<std::mutex> held(finished_lock);
    ++finished;
    finished_cv.notify_all();
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error&) {
      break; // no more threads here (EAGAIN): the ones started, or this one, take the rest
    }
  }
  if (threads.empty()) work();
  if (waiting && !threads.empty()) {
    std::unique_lock<std::mutex> held(finished_lock);
    while (!finished_cv.wait_for(held, std::chrono::milliseconds(k_batch_waiting_ms),
                                 [&] { return finished == threads.size(); })) {
      held.unlock();
      waiting();
      held.lock();
    }
  }
  for (auto& t : threads) t.join();
  return out;
}

} // namespace mcphealth::probe
