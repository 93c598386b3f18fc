#pragma once
// Locks on files: one exclusive lock on a whole file (the state file's writer), and one-byte record locks keyed by
// a string in a shared file (one probe per definition at a time).
#include <mcphealth/util/clock.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mcphealth::util {

/// A file descriptor that is closed when its owner goes: movable, not copyable; -1 when it owns none.
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : m_fd(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  ~UniqueFd();

  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  /// Gives the descriptor up without closing it.
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }

private:
  int m_fd = -1;
};

/// An exclusive `flock` on a lock file, released when destroyed (closing the descriptor releases it).
class FileLock {
public:
  /// Takes an exclusive lock on `path` (created 0600 if missing), waiting at most `wait_ms`. On failure returns a
  /// lock that is not held and sets `error` (empty when the wait ran out).
  static FileLock acquire(const std::filesystem::path& path, std::int64_t wait_ms, Clock& clock, std::string& error);
  /// True when the lock is held.
  bool held() const { return m_fd.valid(); }

private:
  UniqueFd m_fd;
};

/// An exclusive one-byte `fcntl` record lock at an offset of a shared lock file: one lock per key without one file
/// per key. Two keys that hash alike only serialize each other, which is safe. On Linux the lock belongs to its own
/// open file description: it excludes a second holder in the same process too, and releasing it releases nothing
/// else.
class RecordLock {
public:
  /// The outcome of an attempt: taken at once, taken after waiting for another holder, or not taken.
  enum class Outcome { taken, taken_after_wait, timed_out, failed };

  /// Locks the record for `key` in `path`, waiting at most `wait_ms`.
  static RecordLock acquire(const std::filesystem::path& path, std::string_view key, std::int64_t wait_ms, Clock& clock,
                            Outcome& outcome);
  /// True when the lock is held.
  bool held() const { return m_fd.valid(); }

private:
  UniqueFd m_fd; // an open-file-description lock goes with its own descriptor, and only it
};

} // namespace mcphealth::util
