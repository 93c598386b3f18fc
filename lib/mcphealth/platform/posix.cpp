#include <mcphealth/platform/posix.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mcphealth::platform::posix {

namespace fs = std::filesystem;

namespace {
std::string& kept_program_name() {
  static std::string name;
  return name;
}

/// `path` with its symlinks resolved, when it names an executable regular file.
fs::path executable_at(const fs::path& path) {
  std::error_code ec;
  if (::access(path.c_str(), X_OK) != 0 || !fs::is_regular_file(path, ec)) return {};
  fs::path real = fs::canonical(path, ec);
  return ec ? fs::path() : real;
}

bool set_cloexec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}
} // namespace

const std::string& program_name() { return kept_program_name(); }

fs::path executable_from(std::string_view argv0, std::string_view path_variable) {
  if (argv0.empty()) return {};
  if (argv0.find('/') != std::string_view::npos) return executable_at(fs::path(argv0));
  while (true) {
    const std::size_t colon = path_variable.find(':');
    const std::string_view dir = path_variable.substr(0, colon);
    // An empty entry is the working folder, as for a shell.
    if (fs::path found = executable_at(fs::path(dir.empty() ? "." : dir) / argv0); !found.empty()) return found;
    if (colon == std::string_view::npos) return {};
    path_variable.remove_prefix(colon + 1);
  }
}

int pipe_cloexec(int fds[2]) {
  if (::pipe(fds) != 0) return -1;
  for (int i : {0, 1}) set_cloexec(fds[i]);
  return 0;
}

void close_from(int lowest) {
  // getrlimit is a bare system call everywhere this builds: safe between fork and exec in practice.
  struct rlimit limit {};
  rlim_t top = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) top = limit.rlim_cur;
  top = std::min<rlim_t>(top, 65536);
  for (rlim_t fd = static_cast<rlim_t>(std::max(lowest, 0)); fd < top; ++fd) ::close(static_cast<int>(fd));
}

int socket_cloexec(int family, int type, int protocol) {
  const int fd = ::socket(family, type, protocol);
  if (fd >= 0) set_cloexec(fd);
  return fd;
}

std::string write_and_rewind(int fd, std::initializer_list<std::string_view> parts) {
  for (std::string_view part : parts) {
    while (!part.empty()) {
      const ssize_t n = ::write(fd, part.data(), part.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::string("write: ") + std::strerror(errno);
      part.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) return std::string("lseek: ") + std::strerror(errno);
  return {};
}

util::Result<util::UniqueFd> file_holding(std::initializer_list<std::string_view> parts) {
  const char* tmp = std::getenv("TMPDIR");
  std::string name =
      (tmp != nullptr && *tmp != '\0' ? std::string(tmp) : std::string("/tmp")) + "/mcphealth-payload-XXXXXX";
  util::UniqueFd fd(::mkstemp(name.data()));
  if (!fd.valid())
    return util::fail(std::string("mkstemp in ") + name.substr(0, name.rfind('/')) + ": " + std::strerror(errno));
  ::unlink(name.c_str()); // no name: nothing to clean up, whatever ends this process
  if (!set_cloexec(fd.get())) return util::fail(std::string("fcntl: ") + std::strerror(errno));
  if (std::string why = write_and_rewind(fd.get(), parts); !why.empty()) return util::fail(why);
  return fd;
}

} // namespace mcphealth::platform::posix

namespace mcphealth::platform {
void set_program_name(const char* argv0) { posix::kept_program_name() = argv0 != nullptr ? argv0 : ""; }
} // namespace mcphealth::platform
