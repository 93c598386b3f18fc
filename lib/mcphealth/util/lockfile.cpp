#include <mcphealth/util/lockfile.hpp>

#include <mcphealth/util/fs.hpp>

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

std::string describe_errno(const std::string& what, int err) { return what + ": " + std::strerror(err); }

int open_lock_file(const fs::path& path, std::string& error) {
  if (path.has_parent_path()) {
    if (auto err = make_private_dirs(path.parent_path()); !err.empty()) {
      error = err;
      return -1;
    }
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) error = describe_errno("cannot open lock file " + path.string(), errno);
  return fd;
}
} // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (m_fd >= 0) ::close(m_fd);
}

FileLock FileLock::acquire(const fs::path& path, std::int64_t wait_ms, Clock& clock, std::string& error) {
  FileLock lock;
  int fd = open_lock_file(path, error);
  if (fd < 0) return lock;
  const EpochMs deadline = clock.now_ms() + wait_ms;
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      lock.m_fd = UniqueFd(fd);
      return lock;
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {
      error = describe_errno("cannot lock " + path.string(), errno);
      ::close(fd);
      return lock;
    }
    if (clock.now_ms() >= deadline) {
      ::close(fd);
      return lock;
    }
    clock.sleep_ms(k_lock_poll_ms);
  }
}


RecordLock RecordLock::acquire(const fs::path& path, std::string_view key, std::int64_t wait_ms, Clock& clock,
                               Outcome& outcome) {
  RecordLock lock;
  std::string error;
  int fd = open_lock_file(path, error);
  if (fd < 0) {
    outcome = Outcome::failed;
    return lock;
  }
  // FNV-1a: stable across runs and platforms, unlike std::hash.
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  struct flock rec {};
  rec.l_type = F_WRLCK;
  rec.l_whence = SEEK_SET;
  rec.l_start = static_cast<off_t>(h % (1ull << 30));
  rec.l_len = 1;
  const EpochMs deadline = clock.now_ms() + wait_ms;
  bool waited = false;
  for (;;) {
    if (::fcntl(fd, k_set_record_lock, &rec) == 0) {
      lock.m_fd = UniqueFd(fd);
      outcome = waited ? Outcome::taken_after_wait : Outcome::taken;
      return lock;
    }
    if (errno != EACCES && errno != EAGAIN && errno != EINTR) {
      ::close(fd);
      outcome = Outcome::failed;
      return lock;
    }
    if (clock.now_ms() >= deadline) {
      ::close(fd);
      outcome = Outcome::timed_out;
      return lock;
    }
    waited = true;
    clock.sleep_ms(k_lock_poll_ms);
  }
}

} // namespace mcphealth::util
