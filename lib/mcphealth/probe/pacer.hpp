#pragma once
// Pacing the starts of local servers by the machine, not by how many are probed. A fixed number of probes at once
// made servers that never answer cost a round of timeouts per slot: each held its slot while it waited, using no
// CPU. Here at most `slots` servers may be starting or busy on a CPU at once; one that has started and waits (its
// process group neither ran nor waited to run for a while: it sleeps) hands its slot on. One busy in a loop of its own
// keeps it. Starved servers are still told apart by the probe itself (probe::starved_of_cpu): pacing only makes that
// rarer.
//
// A batch with a backlog budget learns what a start costs from its own servers (the CPU one used until it answered
// or went quiet) and then lets as many start at once as the machine's cores get through within the budget (a part
// of the probes' timeout): a server's timeout runs from its start, so one that never answers is better started
// early among the others than last, after them. That is what makes a first run, which has no history to start the
// silent ones first, as short as the next. Until a start's cost is known, `slots` alone.
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

  /// Lets more than `slots` start at once, once a start's cost is known: as many as `cores` get through in
  /// `budget_ms` of CPU time each, at the dearest start seen so far.
  void allow_backlog(std::int64_t budget_ms, std::size_t cores);
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
    /// The server answered (or ended): the CPU its start took is what a start costs, and its slot is free.
    void answered();

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
  /// How many may start or run busy at once now (for tests): `slots`, or more once a start's cost is known.
  std::size_t capacity();

private:
  struct Holder {
    pid_t group = -1;
    bool holds = true;
    std::int64_t last_cpu_ms = -1;
    std::int64_t last_wait_ms = -1;
    int quiet_ticks = 0;
  };
  void give_back(Holder& h);
  /// A start's cost seen: the slots it allows from now on.
  void learn(std::int64_t cpu_ms);
  std::size_t capacity_locked() const;
  void watch();

  const std::int64_t m_tick_ms;
  std::mutex m_mutex;
  std::condition_variable m_freed;
  std::condition_variable m_wake;
  const std::size_t m_slots;
  std::size_t m_holding = 0;
  std::int64_t m_budget_ms = 0;
  std::size_t m_cores = 1;
  /// The dearest start seen so far (CPU ms); -1: none yet.
  std::int64_t m_start_cost_ms = -1;
  int m_next_id = 0;
  std::map<int, Holder> m_holders;
  std::multiset<std::size_t> m_waiting;
  bool m_stop = false;
  std::thread m_watcher;
};

} // namespace mcphealth::probe
