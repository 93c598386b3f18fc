// Child processes, for real: what they print and how they end, a failed start, and that ending a child ends its
// whole process group (the grandchildren a server leaves behind) so nothing of ours outlives a probe.
#include "fakes.hpp"

#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/clock.hpp>

#include <catch2/catch.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/types.h>
#include <unistd.h>

using namespace mcphealth;
using testing::TempDir;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_child {
namespace {

proc::SpawnSpec sh(const std::string& script) { return {"/bin/sh", {"-c", script}, std::nullopt}; }

/// True while `pid` runs: a zombie (ended, not yet reaped by whoever inherited it) counts as gone. Asked of ps(1),
/// whose `stat` column says Z for a zombie on Linux and macOS alike.
bool alive(pid_t pid) {
  const std::string command = "ps -o stat= -p " + std::to_string(pid) + " 2>/dev/null";
  FILE* ps = ::popen(command.c_str(), "r");
  if (ps == nullptr) return false;
  char state[16] = {0};
  const bool listed = std::fgets(state, sizeof state, ps) != nullptr;
  ::pclose(ps);
  const char* s = state;
  while (*s == ' ') ++s;
  return listed && *s != '\0' && *s != 'Z';
}

/// Waits up to 2 s for `file` to hold a pid; 0 when it does not.
pid_t read_pid(const std::filesystem::path& file, util::Clock& clock) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream in(file);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    clock.sleep_ms(10);
  }
  return 0;
}

} // namespace

TEST_CASE("a command's output, input and exit code come back", "[child]") {
  util::SystemClock clock;
  const proc::CommandResult r = proc::run_to_completion(sh("read line; echo \"got $line\"; echo oops >&2; exit 3"), 5'000,
                                                        clock, 64 * 1024, "hello\n");
  CHECK(r.status == proc::CommandResult::Status::exited);
  CHECK(r.exit.code == 3);
  CHECK(r.exit.describe() == "3");
  CHECK(r.out == "got hello\n");
  CHECK(r.err == "oops\n");
  CHECK_FALSE(r.succeeded());
}

TEST_CASE("output past the cap is dropped, not kept", "[child]") {
  util::SystemClock clock;
  const proc::CommandResult r = proc::run_to_completion(sh("head -c 100000 /dev/zero"), 5'000, clock, 1'000);
  CHECK(r.succeeded());
  CHECK(r.out.size() == 1'000);
}

TEST_CASE("a command that cannot start says why", "[child]") {
  util::SystemClock clock;
  const proc::CommandResult r = proc::run_to_completion({"/no/such/program", {}, std::nullopt}, 5'000, clock);
  CHECK(r.status == proc::CommandResult::Status::spawn_failed);
  CHECK_FALSE(r.error.empty());
  const auto s = proc::spawn({"/no/such/program", {}, std::nullopt});
  REQUIRE_FALSE(s);
  CHECK(s.error().code == ENOENT);
}

TEST_CASE("a timeout ends the whole group, grandchildren too", "[child]") {
  TempDir dir;
  util::SystemClock clock;
  const auto pid_file = dir.path() / "grandchild";
  const proc::CommandResult r =
      proc::run_to_completion(sh("sleep 600 & echo $! > '" + pid_file.string() + "'; wait"), 300, clock);
  CHECK(r.status == proc::CommandResult::Status::timed_out);
  const pid_t grandchild = read_pid(pid_file, clock);
  REQUIRE(grandchild > 0);
  for (int i = 0; i < 100 && alive(grandchild); ++i) clock.sleep_ms(10);
  CHECK_FALSE(alive(grandchild));
}

TEST_CASE("destroying a child ends its group: a released one is left running", "[child]") {
  TempDir dir;
  util::SystemClock clock;
  const auto pid_file = dir.path() / "grandchild";
  {
    auto s = proc::spawn(sh("sleep 600 & echo $! > '" + pid_file.string() + "'; wait"));
    REQUIRE(s.ok());
    CHECK_FALSE((*s)->poll_exit().has_value());
    REQUIRE(read_pid(pid_file, clock) > 0);
  }
  const pid_t grandchild = read_pid(pid_file, clock);
  for (int i = 0; i < 100 && alive(grandchild); ++i) clock.sleep_ms(10);
  CHECK_FALSE(alive(grandchild));

  std::filesystem::remove(pid_file);
  pid_t kept = 0;
  {
    auto s = proc::spawn(sh("sleep 600 & echo $! > '" + pid_file.string() + "'; wait"));
    REQUIRE(s.ok());
    kept = read_pid(pid_file, clock);
    REQUIRE(kept > 0);
    (*s)->release();
  }
  clock.sleep_ms(50);
  CHECK(alive(kept));
  ::kill(kept, SIGKILL);
}

TEST_CASE("a signal is named", "[child]") {
  CHECK(proc::signal_name(SIGTERM) == "SIGTERM");
  CHECK(proc::signal_name(SIGKILL) == "SIGKILL");
  util::SystemClock clock;
  const proc::CommandResult r = proc::run_to_completion(sh("kill -SEGV $$"), 5'000, clock);
  CHECK(r.exit.signal == SIGSEGV);
  CHECK(r.exit.describe() == "SIGSEGV");
}

} // namespace test_child
