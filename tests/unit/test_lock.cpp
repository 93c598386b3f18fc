// The probe lock: one holder per key, whoever asks (this process, a thread of it, another process), and releasing
// one key's lock never releases another's.
#include "fakes.hpp"

#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/lockfile.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <optional>
#include <sys/wait.h>
#include <unistd.h>

using namespace mcphealth;
using testing::TempDir;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_lock {
namespace {

/// What an attempt came to, in one word (and as an exit code, from another process).
enum class Got { taken, taken_after_wait, timed_out, failed };

Got got(const util::Result<util::RecordLock, util::LockError>& attempt) {
  if (attempt) return attempt->waited() ? Got::taken_after_wait : Got::taken;
  return attempt.error().is(util::LockFailure::timed_out) ? Got::timed_out : Got::failed;
}

/// A scratch lock file, and ways to ask for a key in this process and in another one.
struct LockFile {
  TempDir dir;
  std::filesystem::path file = dir.path() / "probe.lock";
  util::SystemClock clock;

  util::Result<util::RecordLock, util::LockError> take(const std::string& key, std::int64_t wait_ms = 0) {
    return util::RecordLock::acquire(file, key, wait_ms, clock);
  }

  /// What another process gets when it asks for `key` without waiting.
  Got in_another_process(const std::string& key) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(static_cast<int>(got(take(key))));
    int status = 0;
    ::waitpid(pid, &status, 0);
    return static_cast<Got>(WEXITSTATUS(status));
  }
};

} // namespace

TEST_CASE("a record lock has one holder per key, in this process as in another", "[lock]") {
  LockFile locks;
  std::optional<util::Result<util::RecordLock, util::LockError>> a = locks.take("a");
  REQUIRE(got(*a) == Got::taken);
  // A second holder in the same process (probes run on threads) waits, then gives up.
  CHECK(got(locks.take("a", 30)) == Got::timed_out);
  CHECK(locks.in_another_process("a") == Got::timed_out);
  CHECK(locks.in_another_process("b") == Got::taken);
  a.reset();
  CHECK(locks.in_another_process("a") == Got::taken);
}

TEST_CASE("releasing one key's lock leaves the others held", "[lock]") {
  // Classic POSIX record locks belong to the process: closing any descriptor of the file drops them all.
  LockFile locks;
  const auto a = locks.take("a");
  REQUIRE(got(a) == Got::taken);
  { const auto b = locks.take("b"); }
  CHECK(locks.in_another_process("a") == Got::timed_out);
}

TEST_CASE("a holder that waits gets the lock once it is released", "[lock]") {
  LockFile locks;
  int held[2];
  REQUIRE(::pipe(held) == 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const auto lock = locks.take("k");
    const char byte = got(lock) == Got::taken ? 'y' : 'n';
    (void)::write(held[1], &byte, 1);
    ::usleep(150'000);
    ::_exit(0); // exiting releases it
  }
  char byte = 0;
  REQUIRE(::read(held[0], &byte, 1) == 1); // the child holds it now
  REQUIRE(byte == 'y');
  ::close(held[0]);
  ::close(held[1]);
  CHECK(got(locks.take("k", 5'000)) == Got::taken_after_wait);
  ::waitpid(pid, nullptr, 0);
}

TEST_CASE("a lock file that cannot be created is a failure with the reason, not a timeout", "[lock]") {
  LockFile locks;
  locks.file = locks.dir.path() / "not-a-folder" / "probe.lock";
  std::ofstream(locks.dir.path() / "not-a-folder") << "x";
  const auto attempt = locks.take("k", 1'000);
  REQUIRE(got(attempt) == Got::failed);
  CHECK(attempt.error().message.find("not-a-folder exists and is not a folder") != std::string::npos);
}

} // namespace test_lock
