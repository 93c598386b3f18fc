#pragma once
// The disk as configuration readers see it, behind one seam: files read and stat'ed (which a recording reader
// keeps, misses included: the record is what a resolution depends on, so the hook's hot path re-checks exactly
// those paths, a stat each, instead of a hand-kept list), and the two questions a resolution asks of the file
// system that it does not depend on in that way (a PATH lookup, a folder's real path). A test hands one in memory.
#include <mcphealth/util/fs.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::util {

/// What a stat says of a file: enough to tell that it changed.
struct FileStamp {
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool regular = false;
  /// The file's inode: a file replaced by another (a deploy's rename) has another, whatever its dates say.
  std::uint64_t inode = 0;
};

/// The file system as configuration readers see it.
class FileReader {
public:
  virtual ~FileReader() = default;
  /// All of `path` (read_file's rules and errors).
  virtual Result<std::string, ReadError> read(const std::filesystem::path& path, std::size_t max_bytes = k_max_read_bytes) = 0;
  /// What is at `path`; nothing when nothing is.
  virtual std::optional<FileStamp> stat(const std::filesystem::path& path) = 0;
  /// Whether `path` is a regular file this process may execute: the test of a PATH lookup (config::find_on_path).
  virtual bool executable(const std::filesystem::path& path) = 0;
  /// `path` with its symbolic links resolved as far as it exists (`std::filesystem::weakly_canonical`); `path`
  /// itself when that fails.
  virtual std::filesystem::path real_path(const std::filesystem::path& path) = 0;
};

/// The real disk.
class DiskReader final : public FileReader {
public:
  Result<std::string, ReadError> read(const std::filesystem::path& path, std::size_t max_bytes = k_max_read_bytes) override;
  std::optional<FileStamp> stat(const std::filesystem::path& path) override;
  bool executable(const std::filesystem::path& path) override;
  std::filesystem::path real_path(const std::filesystem::path& path) override;
};

/// The process's disk reader.
FileReader& disk();

/// Passes every call on to another reader and keeps the paths read or stat'ed, in first-seen order, each once. A
/// PATH lookup's tests and a real path are passed on unkept: a hit re-checks what the files said, not every folder
/// of PATH.
class RecordingReader final : public FileReader {
public:
  explicit RecordingReader(FileReader& inner) : m_inner(inner) {}
  Result<std::string, ReadError> read(const std::filesystem::path& path, std::size_t max_bytes = k_max_read_bytes) override;
  std::optional<FileStamp> stat(const std::filesystem::path& path) override;
  bool executable(const std::filesystem::path& path) override { return m_inner.executable(path); }
  std::filesystem::path real_path(const std::filesystem::path& path) override { return m_inner.real_path(path); }
  /// Every path read or stat'ed.
  const std::vector<std::filesystem::path>& paths() const { return m_paths; }
  /// The paths read (not only stat'ed).
  const std::vector<std::filesystem::path>& reads() const { return m_reads; }

private:
  void note(std::vector<std::filesystem::path>& list, const std::filesystem::path& path);
  FileReader& m_inner;
  std::vector<std::filesystem::path> m_paths;
  std::vector<std::filesystem::path> m_reads;
};

/// A short stamp of `files` as `reader` sees them now (path, size, modification time; a missing one as such).
std::string stamp_of(const std::vector<std::filesystem::path>& files, FileReader& reader);

} // namespace mcphealth::util
