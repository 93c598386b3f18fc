#include <mcphealth/proc/groups.hpp>

#include <mcphealth/platform/platform.hpp>

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

namespace {

std::atomic<int> g_allow_code{0};

extern "C" void allow_and_exit(int sig) {
  kill_tracked_groups();
  // Only async-signal-safe calls: the message is built by hand.
  char text[96] = "[MCPHealthCheck] ended by signal ";
  std::size_t n = 33;
  char digits[4];
  int d = 0;
  for (int v = sig; v > 0 && d < 4; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
  while (d > 0) text[n++] = digits[--d];
  for (const char* rest = "; allowing the call\n"; *rest != '\0'; ++rest) text[n++] = *rest;
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, n);
  ::_exit(g_allow_code.load(std::memory_order_relaxed));
}

} // namespace

void allow_on_fatal_signals(int allow_code) {
  g_allow_code.store(allow_code, std::memory_order_relaxed);
  // A stack of its own, so a stack overflow (a payload nested deep enough) still reaches the handler.
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = allow_and_exit;
  sa.sa_flags = SA_ONSTACK;
  sigfillset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::sigaction(sig, &sa, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
}

void end_groups_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = end_groups_and_exit;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) sigaddset(&sa.sa_mask, sig);
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) ::sigaction(sig, &sa, nullptr);
}

std::vector<pid_t> descendants_outside_group(pid_t root) {
  std::vector<pid_t> out;
  const std::vector<platform::ProcessLink> all = platform::process_table();
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    for (const platform::ProcessLink& e : all) {
      if (e.parent != parent || e.pid == root) continue;
      frontier.push_back(e.pid);
      if (e.group != root) out.push_back(e.pid);
    }
  }
  return out;
}

} // namespace mcphealth::proc
