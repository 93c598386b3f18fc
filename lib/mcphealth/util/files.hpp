#pragma once
// Reads of configuration files behind a seam that can record them: every path stat'ed or read, misses included.
// The record is what a resolution depends on, so the hook's hot path re-checks exactly those paths (a stat each)
// instead of a hand-kept list, and a test can assert what a decision read.
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
};

/// The file system as configuration readers see it.
class FileReader {
public:
  virtual ~FileReader() = default;
  /// All of `path` (read_file's rules and errors).
  virtual Result<std::string, ReadError> read(const std::filesystem::path& path, std::size_t max_bytes = k_max_read_bytes) = 0;
  /// What is at `path`; nothing when nothing is.
  virtual std::optional<FileStamp> stat(const std::filesystem::path& path) = 0;
};

/// The real disk.
class DiskReader final : public FileReader {
public:
  Result<std::string, ReadError> read(const std::filesystem::path& path, std::size_t max_bytes = k_max_read_bytes) override;
  std::optional<FileStamp> stat(const std::filesystem::path& path) override;
};

/// The process's disk reader.
FileReader& disk();

/// Passes every call on to another reader and keeps the paths, in first-seen order, each once.
class RecordingReader final : public FileReader {
public:
  explicit RecordingReader(FileReader& inner) : m_inner(inner) {}
  Result<std::string, ReadError> read(const std::filesystem::path& path, std::size_t max_bytes = k_max_read_bytes) override;
  std::optional<FileStamp> stat(const std::filesystem::path& path) override;
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
