#pragma once
// File-system primitives the state store and discovery share: whole-file reads, folders created private,
// atomic replacement (locks are in util/lockfile.hpp).
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/result.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::util {

/// Why a whole file was not read: it does not exist (a normal case for most callers), or it could not be read
/// (`Permission denied`, `it is a FIFO, not a regular file`).
enum class ReadFailure { missing, unreadable };
using ReadError = KindedError<ReadFailure>;

/// The most `read_file` reads of one file: a config or state file larger than this is refused.
inline constexpr std::size_t k_max_read_bytes = 64 * 1024 * 1024;

/// Reads all of `path`, which must be a regular file of at most `max_bytes`. Opened without blocking, so a FIFO
/// or a device is refused at once (an error naming what it is) instead of hanging or reading without end.
Result<std::string, ReadError> read_file(const std::filesystem::path& path, std::size_t max_bytes = k_max_read_bytes);


/// `what: <strerror(err)>`, the form of every file-system error message here.
std::string describe_errno(const std::string& what, int err);

/// True when `path` is `folder` or lies under it, by their components as written (both absolute and normal).
bool is_within(const std::filesystem::path& path, const std::filesystem::path& folder);

/// Creates `dir` and its missing parents with mode 0700.
Result<void> make_private_dirs(const std::filesystem::path& dir);

/// Why `path` (a folder, or a regular file with `OwnKind::file`) may not be written in as this user's own: a symlink
/// or not a folder (a folder's), owned by another user, or writable by others. Nothing when it is fine, absent (it
/// will be made so), or a file that is not a regular one (its writer refuses that in its own words).
enum class OwnKind { folder, file };
std::optional<std::string> not_ones_own(const std::filesystem::path& path, OwnKind kind);

/// Replaces `path` with `bytes` atomically: a temp file in the same folder (mode `mode`, 0600 unless said), fsync,
/// rename. Refuses a `path` that is a symlink or anything but a regular file. A missing folder is created (0700)
/// with `Folders::create`, an error with `Folders::must_exist`. `Sync::no` skips the two fsyncs, for a file that
/// is a cache of what can be read again (a crash may leave it empty or old, never half written and visible).
enum class Folders { create, must_exist };
enum class Sync { yes, no };
Result<void> atomic_replace(const std::filesystem::path& path, std::string_view bytes, unsigned mode = 0600,
                            Folders folders = Folders::create, Sync sync = Sync::yes);

} // namespace mcphealth::util
