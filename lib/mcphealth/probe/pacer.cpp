#include <mcphealth/probe/pacer.hpp>

#include <mcphealth/platform/platform.hpp>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace mcphealth::probe {

namespace {
/// A server whose group neither ran nor waited for a CPU more than this over two ticks in a row sleeps: it idles. One
/// that waits to run (the machine is busy) is not idle: it still needs the CPU its slot stands for.
constexpr std::int64_t k_idle_cpu_ms = 2;
constexpr int k_idle_ticks = 2;
/// The cheapest a start is taken to cost, however little CPU one was seen to use: what a budget is divided by.
constexpr std::int64_t k_least_start_cost_ms = 20;
/// The most servers let start at once, whatever the budget allows.
constexpr std::size_t k_most_at_once = 64;
} // namespace

StartPacer::StartPacer(std::size_t slots, std::int64_t tick_ms) : m_tick_ms(tick_ms), m_slots(slots == 0 ? 1 : slots) {}

void StartPacer::allow_backlog(std::int64_t budget_ms, std::size_t cores) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_budget_ms = std::max<std::int64_t>(0, budget_ms);
  m_cores = cores == 0 ? 1 : cores;
}

std::size_t StartPacer::capacity_locked() const {
  if (m_budget_ms <= 0 || m_start_cost_ms < 0) return m_slots;
  const std::int64_t cost = std::max(m_start_cost_ms, k_least_start_cost_ms);
  const auto fit = static_cast<std::size_t>(m_budget_ms / cost) * m_cores;
  return std::clamp(fit, m_slots, std::max(m_slots, k_most_at_once));
}

std::size_t StartPacer::capacity() {
  std::lock_guard<std::mutex> lock(m_mutex);
  return capacity_locked();
}

void StartPacer::learn(std::int64_t cpu_ms) {
  if (cpu_ms < 0 || cpu_ms <= m_start_cost_ms) return;
  m_start_cost_ms = cpu_ms;
  m_freed.notify_all(); // the capacity may have changed
}

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
  m_freed.wait(lock, [&] { return m_holding < capacity_locked() && *m_waiting.begin() == order; });
  m_waiting.erase(mine);
  ++m_holding;
  if (m_holding < capacity_locked()) m_freed.notify_all(); // the next in line may go too
  const int id = ++m_next_id;
  m_holders.emplace(id, Holder{});
  return Ticket(this, id);
}

std::size_t StartPacer::free_slots() {
  std::lock_guard<std::mutex> lock(m_mutex);
  const std::size_t cap = capacity_locked();
  return cap > m_holding ? cap - m_holding : 0;
}

void StartPacer::give_back(Holder& h) {
  if (!h.holds) return;
  h.holds = false;
  --m_holding;
  m_freed.notify_all(); // whoever is first in line
}

void StartPacer::Ticket::answered() {
  if (m_pacer == nullptr) return;
  StartPacer& p = *m_pacer;
  pid_t group = -1;
  {
    std::lock_guard<std::mutex> lock(p.m_mutex);
    auto it = p.m_holders.find(m_id);
    if (it != p.m_holders.end() && it->second.holds) group = it->second.group;
  }
  // Read outside the lock (a scan of the process table); a group not known here teaches nothing.
  const std::optional<platform::GroupCpu> cpu = group > 0 ? platform::group_cpu(group) : std::nullopt;
  if (cpu) {
    std::lock_guard<std::mutex> lock(p.m_mutex);
    p.learn(cpu->on_cpu_ms);
  }
  leave();
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
    lock.unlock(); // a scan of every process: not under the lock the probes wait on
    std::vector<pid_t> groups;
    for (const auto& [id, group] : watched) groups.push_back(group);
    const std::map<pid_t, platform::GroupCpu> sampled = platform::groups_cpu(groups);
    lock.lock();
    for (const auto& [id, group] : watched) {
      auto it = m_holders.find(id);
      if (it == m_holders.end() || !it->second.holds) continue;
      Holder& h = it->second;
      const auto found = sampled.find(group);
      if (found == sampled.end()) continue; // not known here: the slot is held until the probe ends, as before
      const platform::GroupCpu* cpu = &found->second;
      const bool quiet = h.last_cpu_ms >= 0 && cpu->on_cpu_ms - h.last_cpu_ms <= k_idle_cpu_ms &&
                         cpu->longest_wait_ms - h.last_wait_ms <= k_idle_cpu_ms;
      h.last_cpu_ms = cpu->on_cpu_ms;
      h.last_wait_ms = cpu->longest_wait_ms;
      // A start still going has cost at least this much: once starts are being counted, the dearest seen.
      if (m_start_cost_ms >= 0) learn(cpu->on_cpu_ms);
      h.quiet_ticks = quiet ? h.quiet_ticks + 1 : 0;
      if (h.quiet_ticks >= k_idle_ticks) {
        learn(cpu->on_cpu_ms); // what its start took before it went quiet
        give_back(h);
      }
    }
  }
}

} // namespace mcphealth::probe
