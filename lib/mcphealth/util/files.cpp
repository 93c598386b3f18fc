#include <mcphealth/util/files.hpp>

#include <mcphealth/platform/platform.hpp>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::util {

namespace fs = std::filesystem;

Result<std::string, ReadError> DiskReader::read(const fs::path& path, std::size_t max_bytes) { return read_file(path, max_bytes); }

std::optional<FileStamp> DiskReader::stat(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{static_cast<std::int64_t>(st.st_size), platform::modified_ns(st), S_ISREG(st.st_mode),
                   static_cast<std::uint64_t>(st.st_ino)};
}

bool DiskReader::executable(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

fs::path DiskReader::real_path(const fs::path& path) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(path, ec);
  return ec ? path : real;
}

FileReader& disk() {
  static DiskReader reader;
  return reader;
}

void RecordingReader::note(std::vector<fs::path>& list, const fs::path& path) {
  if (std::find(list.begin(), list.end(), path) == list.end()) list.push_back(path);
}

Result<std::string, ReadError> RecordingReader::read(const fs::path& path, std::size_t max_bytes) {
  note(m_paths, path);
  note(m_reads, path);
  return m_inner.read(path, max_bytes);
}

std::optional<FileStamp> RecordingReader::stat(const fs::path& path) {
  note(m_paths, path);
  return m_inner.stat(path);
}

std::string stamp_of(const std::vector<fs::path>& files, FileReader& reader) {
  std::string out;
  for (const auto& f : files) {
    out += f.string();
    if (const std::optional<FileStamp> st = reader.stat(f)) {
      out += '@' + std::to_string(st->mtime_ns) + '/' + std::to_string(st->size);
    } else {
      out += "@-";
    }
    out += '\n';
  }
  return out;
}

} // namespace mcphealth::util
