// The real disk (util::DiskReader), declared with its seam in util/files.hpp and defined here, above the platform
// seam it reads a file's times through: util stays the ground floor, and includes nothing of platform/.
#include <mcphealth/util/files.hpp>

#include <mcphealth/platform/platform.hpp>
#include <mcphealth/util/fs.hpp>

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

} // namespace mcphealth::util
