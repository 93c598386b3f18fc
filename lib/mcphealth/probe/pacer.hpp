#pragma once
// Pacing the starts of local servers by the machine, not by how many are probed. A fixed number of probes at once
// made servers that never answer cost a round of timeouts per slot: each held its slot while it waited, using no
// CPU. Here at most `slots` servers may be starting or busy on a CPU at once; one that has started and waits (its
// process group neither ran nor waited to run for a while: it sleeps) hands its slot on. One busy in a loop of its own
// keeps it. Starved servers are still told apart by the probe itself (probe::starved_of_cpu): pacing only makes that
// rarer.
#include <mcphealth/proc/child.hpp>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace mcphealth::probe {

class StartPacer {
public:
  /// `slots`: how many servers may start or run busy at once; `tick_ms`: how often the holders' CPU is sampled.
  explicit StartPacer(std::size_t slots, std::int64_t tick_ms = 25);
  ~StartPacer();
  StartPacer(const StartPacer&) = delete;
  StartPacer& operator=(const StartPacer&) = delete;

  /// One probe's place: a slot, held from enter() until its server idles or the ticket is dropped.
  class Ticket {
  public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept : m_pacer(other.m_pacer), m_id(other.m_id) { other.m_pacer = nullptr; }
    Ticket& operator=(Ticket&& other) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { leave(); }
    /// The server started as process group `group`: from now on its idling hands the slot on.
    void started(pid_t group);

  private:
    friend class StartPacer;
    Ticket(StartPacer* pacer, int id) : m_pacer(pacer), m_id(id) {}
    void leave();
    StartPacer* m_pacer = nullptr;
    int m_id = 0;
  };

  /// Waits until a slot is free and no waiter of a lower `order` (a batch's item index) is left, then takes it:
  /// servers start in the batch's order, whichever thread gets there first.
  Ticket enter(std::size_t order = 0);

  /// How many slots are free now (for tests).
  std::size_t free_slots();

private:
  struct Holder {
    pid_t group = -1;
    bool holds = true;
    std::int64_t last_cpu_ms = -1;
    std::int64_t last_wait_ms = -1;
    int quiet_ticks = 0;
  };
  void give_back(Holder& h);
  void watch();

  const std::int64_t m_tick_ms;
  std::mutex m_mutex;
  std::condition_variable m_freed;
  std::condition_variable m_wake;
  std::size_t m_free;
  int m_next_id = 0;
  std::map<int, Holder> m_holders;
  std::multiset<std::size_t> m_waiting;
  bool m_stop = false;
  std::thread m_watcher;
};

} // namespace mcphealth::probe
