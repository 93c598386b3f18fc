#include <mcphealth/proc/groups.hpp>

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace mcphealth::proc {

namespace {

// A fixed table of lock-free slots: the signal handler may only read atomics and call async-signal-safe functions.
constexpr int k_slots = 256;
std::atomic<pid_t> g_groups[k_slots];

extern "C" void end_groups_and_exit(int sig) {
  kill_tracked_groups();
  ::_exit(exit_code_for_signal(sig));
}

} // namespace

void kill_tracked_groups() {
  for (auto& slot : g_groups) {
    const pid_t group = slot.load(std::memory_order_relaxed);
    if (group > 0) ::kill(-group, SIGKILL);
  }
}

void track_group(pid_t group) {
  for (auto& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) return;
  }
  // All slots taken (more than 256 children at once): that group is still ended by its owner, just not on a signal.
}

void untrack_group(pid_t group) {
  for (auto& slot : g_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void end_groups_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = end_groups_and_exit;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) sigaddset(&sa.sa_mask, sig);
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) ::sigaction(sig, &sa, nullptr);
}

} // namespace mcphealth::proc
