#pragma once
// Locks on files: one exclusive lock on a whole file (the state file's writer), and one-byte record locks keyed by
// a string in a shared file (one probe per definition at a time).
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/result.hpp>
#include <mcphealth/util/unique_fd.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mcphealth::util {

/// Why a lock was not taken: another holder kept it past the wait, or the lock file could not be used
/// (`cannot open lock file ...: Permission denied`).
enum class LockFailure { timed_out, failed };
using LockError = KindedError<LockFailure>;

/// An exclusive `flock` on a lock file, released when destroyed (closing the descriptor releases it).
class FileLock {
public:
  /// Takes an exclusive lock on `path` (created 0600 if missing), waiting at most `wait_ms`.
  static Result<FileLock, LockError> acquire(const std::filesystem::path& path, std::int64_t wait_ms, Clock& clock);

private:
  UniqueFd m_fd;
};

/// An exclusive one-byte `fcntl` record lock at an offset of a shared lock file: one lock per key without one file
/// per key. Two keys that hash alike only serialize each other, which is safe. On Linux the lock belongs to its own
/// open file description: it excludes a second holder in the same process too, and releasing it releases nothing
/// else.
class RecordLock {
public:
  /// Locks the record for `key` in `path`, waiting at most `wait_ms`.
  static Result<RecordLock, LockError> acquire(const std::filesystem::path& path, std::string_view key,
                                               std::int64_t wait_ms, Clock& clock);
  /// True when another holder had it first, so this one waited for it (and what it guarded may have changed).
  bool waited() const { return m_waited; }

private:
  UniqueFd m_fd; // an open-file-description lock goes with its own descriptor, and only it
  bool m_waited = false;
};

} // namespace mcphealth::util
