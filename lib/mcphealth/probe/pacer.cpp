#include <mcphealth/probe/pacer.hpp>

#include <mcphealth/platform/platform.hpp>

#include <chrono>
#include <utility>
#include <vector>

namespace mcphealth::probe {

namespace {
/// A server whose group neither ran nor waited for a CPU more than this over two ticks in a row sleeps: it idles. One
/// that waits to run (the machine is busy) is not idle: it still needs the CPU its slot stands for.
constexpr std::int64_t k_idle_cpu_ms = 2;
constexpr int k_idle_ticks = 2;
} // namespace

StartPacer::StartPacer(std::size_t slots, std::int64_t tick_ms) : m_tick_ms(tick_ms), m_free(slots == 0 ? 1 : slots) {}

StartPacer::~StartPacer() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_watcher.joinable()) m_watcher.join();
}

StartPacer::Ticket& StartPacer::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    leave();
    m_pacer = std::exchange(other.m_pacer, nullptr);
    m_id = other.m_id;
  }
  return *this;
}

StartPacer::Ticket StartPacer::enter(std::size_t order) {
  std::unique_lock<std::mutex> lock(m_mutex);
  const auto mine = m_waiting.insert(order);
  m_freed.wait(lock, [&] { return m_free > 0 && *m_waiting.begin() == order; });
  m_waiting.erase(mine);
  --m_free;
  if (m_free > 0) m_freed.notify_all(); // the next in line may go too
  const int id = ++m_next_id;
  m_holders.emplace(id, Holder{});
  return Ticket(this, id);
}

std::size_t StartPacer::free_slots() {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_free;
}

void StartPacer::give_back(Holder& h) {
  if (!h.holds) return;
  h.holds = false;
  ++m_free;
  m_freed.notify_all(); // whoever is first in line
}

void StartPacer::Ticket::started(pid_t group) {
  if (m_pacer == nullptr) return;
  StartPacer& p = *m_pacer;
  std::lock_guard<std::mutex> lock(p.m_mutex);
  auto it = p.m_holders.find(m_id);
  if (it == p.m_holders.end()) return;
  it->second.group = group;
  // The watcher starts with the first server: a batch of HTTP servers alone never needs it.
  if (!p.m_watcher.joinable()) {
    try {
      p.m_watcher = std::thread([&p] { p.watch(); });
    } catch (const std::system_error&) {
      p.give_back(it->second); // no thread to watch with: pace by count no longer, rather than stall
    }
  }
  p.m_wake.notify_all();
}

void StartPacer::Ticket::leave() {
  if (m_pacer == nullptr) return;
  StartPacer& p = *std::exchange(m_pacer, nullptr);
  std::lock_guard<std::mutex> lock(p.m_mutex);
  auto it = p.m_holders.find(m_id);
  if (it == p.m_holders.end()) return;
  p.give_back(it->second);
  p.m_holders.erase(it);
}

void StartPacer::watch() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_stop) {
    m_wake.wait_for(lock, std::chrono::milliseconds(m_tick_ms));
    if (m_stop) break;
    std::vector<std::pair<int, pid_t>> watched;
    for (const auto& [id, h] : m_holders) {
      if (h.holds && h.group > 0) watched.emplace_back(id, h.group);
    }
    if (watched.empty()) continue;
    lock.unlock(); // a scan of every process per server: not under the lock the probes wait on
    std::vector<std::pair<int, std::optional<platform::GroupCpu>>> sampled;
    for (const auto& [id, group] : watched) sampled.emplace_back(id, platform::group_cpu(group));
    lock.lock();
    for (const auto& [id, cpu] : sampled) {
      auto it = m_holders.find(id);
      if (it == m_holders.end() || !it->second.holds) continue;
      Holder& h = it->second;
      if (!cpu) continue; // not known here: the slot is held until the probe ends, as before
      const bool quiet = h.last_cpu_ms >= 0 && cpu->on_cpu_ms - h.last_cpu_ms <= k_idle_cpu_ms &&
                         cpu->longest_wait_ms - h.last_wait_ms <= k_idle_cpu_ms;
      h.last_cpu_ms = cpu->on_cpu_ms;
      h.last_wait_ms = cpu->longest_wait_ms;
      h.quiet_ticks = quiet ? h.quiet_ticks + 1 : 0;
      if (h.quiet_ticks >= k_idle_ticks) give_back(h);
    }
  }
}

} // namespace mcphealth::probe
