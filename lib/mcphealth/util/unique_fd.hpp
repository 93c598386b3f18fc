#pragma once
// The one owner of a POSIX file descriptor: the locks, whole-file reads and a child's pipes all hold theirs here,
// so no path forgets a close().

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
  ~UniqueFd() { reset(); }

  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  /// Closes the descriptor now (if any); the owner then holds none.
  void reset();
  /// Gives the descriptor up without closing it.
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }

private:
  int m_fd = -1;
};

} // namespace mcphealth::util
