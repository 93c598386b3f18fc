#include <mcphealth/util/files.hpp>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::util {

namespace fs = std::filesystem;

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
