#include <mcphealth/util/lockfile.hpp>

#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/text.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace mcphealth::util {

namespace fs = std::filesystem;

namespace {

constexpr std::int64_t k_lock_poll_ms = 10;

// Record locks owned by the open file description (Linux 3.15+), not by the process: a second holder in this
// process (a thread) is excluded like another process, and closing one lock's descriptor never drops another's,
// as closing any descriptor of the file does to classic POSIX locks.
#ifdef F_OFD_SETLK
constexpr int k_set_record_lock = F_OFD_SETLK;
#else
constexpr int k_set_record_lock = F_SETLK;
#endif


Result<UniqueFd, LockError> open_lock_file(const fs::path& path) {
  if (path.has_parent_path()) {
    if (auto made = make_private_dirs(path.parent_path()); !made) {
      return fail(LockError{LockFailure::failed, made.error().message});
    }
  }
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return fail(LockError{LockFailure::failed, describe_errno("cannot open lock file " + path.string(), errno)});
  return fd;
}

/// Tries `try_lock` on `fd` until it succeeds, fails for a reason other than contention, or `wait_ms` runs out.
/// Returns whether it had to wait.
template <class TryLock>
Result<bool, LockError> take(int fd, TryLock try_lock, const fs::path& path, std::int64_t wait_ms, Clock& clock) {
  const EpochMs deadline = clock.now_ms() + wait_ms;
  bool waited = false;
  for (;;) {
    if (try_lock(fd) == 0) return waited;
    if (errno != EWOULDBLOCK && errno != EAGAIN && errno != EACCES && errno != EINTR) {
      return fail(LockError{LockFailure::failed, describe_errno("cannot lock " + path.string(), errno)});
    }
    if (clock.now_ms() >= deadline) return fail(LockError{LockFailure::timed_out, {}});
    waited = true;
    clock.sleep_ms(k_lock_poll_ms);
  }
}
} // namespace

Result<FileLock, LockError> FileLock::acquire(const fs::path& path, std::int64_t wait_ms, Clock& clock) {
  auto fd = open_lock_file(path);
  if (!fd) return fail(fd.error());
  auto taken = take(fd->get(), [](int f) { return ::flock(f, LOCK_EX | LOCK_NB); }, path, wait_ms, clock);
  if (!taken) return fail(taken.error());
  FileLock lock;
  lock.m_fd = std::move(*fd);
  return lock;
}

Result<RecordLock, LockError> RecordLock::acquire(const fs::path& path, std::string_view key, std::int64_t wait_ms,
                                                  Clock& clock) {
  auto fd = open_lock_file(path);
  if (!fd) return fail(fd.error());
  const std::uint64_t h = fnv1a(key);
  struct flock rec {};
  rec.l_type = F_WRLCK;
  rec.l_whence = SEEK_SET;
  rec.l_start = static_cast<off_t>(h % (1ull << 30));
  rec.l_len = 1;
  auto taken = take(fd->get(), [&rec](int f) { return ::fcntl(f, k_set_record_lock, &rec); }, path, wait_ms, clock);
  if (!taken) return fail(taken.error());
  RecordLock lock;
  lock.m_fd = std::move(*fd);
  lock.m_waited = *taken;
  return lock;
}

} // namespace mcphealth::util
