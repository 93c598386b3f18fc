// The probe lock: one holder per key, whoever asks (this process, a thread of it, another process), and releasing
// one key's lock never releases another's.
#include "fakes.hpp"

#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/lockfile.hpp>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

using namespace mcphealth;
using testing::TempDir;
using Outcome = util::RecordLock::Outcome;

namespace {

/// What another process gets when it asks for `key` without waiting.
Outcome in_another_process(const std::filesystem::path& file, const std::string& key) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    util::SystemClock clock;
    Outcome outcome = Outcome::failed;
    util::RecordLock lock = util::RecordLock::acquire(file, key, 0, clock, outcome);
    ::_exit(static_cast<int>(outcome));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return static_cast<Outcome>(WEXITSTATUS(status));
}

/// A scratch lock file, and a way to ask for a key in this process.
struct LockFile {
  TempDir dir;
  std::filesystem::path file = dir.path() / "probe.lock";
  util::SystemClock clock;
  util::RecordLock take(const std::string& key, std::int64_t wait_ms, Outcome& outcome) {
    return util::RecordLock::acquire(file, key, wait_ms, clock, outcome);
  }
};

} // namespace

TEST_CASE("a record lock has one holder per key, in this process as in another", "[lock]") {
  LockFile locks;
  const auto& file = locks.file;
  Outcome outcome = Outcome::failed;
  util::RecordLock a = locks.take("a", 0, outcome);
  REQUIRE(outcome == Outcome::taken);
  CHECK(a.held());
  // A second holder in the same process (probes run on threads) waits, then gives up.
  util::RecordLock again = locks.take("a", 30, outcome);
  CHECK(outcome == Outcome::timed_out);
  CHECK_FALSE(again.held());
  CHECK(in_another_process(file, "a") == Outcome::timed_out);
  CHECK(in_another_process(file, "b") == Outcome::taken);
  a = util::RecordLock();
  CHECK(in_another_process(file, "a") == Outcome::taken);
}

TEST_CASE("releasing one key's lock leaves the others held", "[lock]") {
  // Classic POSIX record locks belong to the process: closing any descriptor of the file drops them all.
  LockFile locks;
  const auto& file = locks.file;
  Outcome outcome = Outcome::failed;
  util::RecordLock a = locks.take("a", 0, outcome);
  REQUIRE(outcome == Outcome::taken);
  { util::RecordLock b = locks.take("b", 0, outcome); }
  CHECK(in_another_process(file, "a") == Outcome::timed_out);
}

TEST_CASE("a holder that waits gets the lock once it is released", "[lock]") {
  TempDir dir;
  const auto file = dir.path() / "probe.lock";
  int held[2];
  REQUIRE(::pipe(held) == 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    util::SystemClock clock;
    Outcome outcome = Outcome::failed;
    util::RecordLock lock = util::RecordLock::acquire(file, "k", 0, clock, outcome);
    const char byte = outcome == Outcome::taken ? 'y' : 'n';
    (void)::write(held[1], &byte, 1);
    ::usleep(150'000);
    ::_exit(0); // exiting releases it
  }
  char byte = 0;
  REQUIRE(::read(held[0], &byte, 1) == 1); // the child holds it now
  REQUIRE(byte == 'y');
  ::close(held[0]);
  ::close(held[1]);
  util::SystemClock clock;
  Outcome outcome = Outcome::failed;
  util::RecordLock lock = util::RecordLock::acquire(file, "k", 5'000, clock, outcome);
  CHECK(outcome == Outcome::taken_after_wait);
  CHECK(lock.held());
  ::waitpid(pid, nullptr, 0);
}
