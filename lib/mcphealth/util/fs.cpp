#include <mcphealth/util/fs.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::util {

namespace fs = std::filesystem;

namespace {

std::string describe_errno(const std::string& what, int err) {
  return what + ": " + std::strerror(err);
}
} // namespace

namespace {
std::string kind_of_mode(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}
} // namespace

std::string non_regular_kind(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return kind_of_mode(st.st_mode);
}

FileRead read_file(const fs::path& path, std::size_t max_bytes) {
  FileRead out;
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      out.status = FileRead::Status::missing;
    } else {
      out.status = FileRead::Status::error;
      out.error = std::strerror(errno);
    }
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.status = FileRead::Status::error;
    out.error = std::strerror(errno);
    ::close(fd);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.status = FileRead::Status::error;
    out.error = "it is " + kind_of_mode(st.st_mode) + ", not a regular file";
    ::close(fd);
    return out;
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    out.status = FileRead::Status::error;
    out.error = "it is larger than " + std::to_string(max_bytes / (1024 * 1024)) + " MiB";
    ::close(fd);
    return out;
  }
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      if (out.bytes.size() + static_cast<std::size_t>(n) > max_bytes) { // it grew while we read
        out.status = FileRead::Status::error;
        out.error = "it is larger than " + std::to_string(max_bytes / (1024 * 1024)) + " MiB";
        out.bytes.clear();
        ::close(fd);
        return out;
      }
      out.bytes.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      out.status = FileRead::Status::error;
      out.error = std::strerror(errno);
      ::close(fd);
      return out;
    }
  }
  ::close(fd);
  out.status = FileRead::Status::ok;
  return out;
}

std::string make_private_dirs(const fs::path& dir) {
  if (dir.empty()) return {};
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    return S_ISDIR(st.st_mode) ? std::string{} : dir.string() + " exists and is not a folder";
  }
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto err = make_private_dirs(dir.parent_path()); !err.empty()) return err;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return describe_errno("cannot create " + dir.string(), errno);
  return {};
}

std::string atomic_replace(const fs::path& path, std::string_view bytes, unsigned mode, Folders folders) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) return path.string() + " is a symlink; refusing to write through it";
    if (!S_ISREG(st.st_mode)) return path.string() + " is " + kind_of_mode(st.st_mode) + "; refusing to replace it";
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (folders == Folders::must_exist) {
    struct stat dst {};
    if (::stat(dir.c_str(), &dst) != 0) return describe_errno("folder " + dir.string(), errno);
    if (!S_ISDIR(dst.st_mode)) return dir.string() + " is not a folder";
  } else if (auto err = make_private_dirs(dir); !err.empty()) {
    return err;
  }

  std::random_device rd;
  std::string tmp_name = path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  const fs::path tmp = dir / tmp_name;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return describe_errno("cannot create " + tmp.string(), errno);

  auto fail = [&](const std::string& what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return describe_errno(what, err);
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write " + tmp.string());
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) return fail("cannot chmod " + tmp.string());
  if (::fsync(fd) != 0) return fail("cannot fsync " + tmp.string());
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return describe_errno("cannot close " + tmp.string(), err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return describe_errno("cannot rename onto " + path.string(), err);
  }
  // Make the rename itself durable; a failure here loses nothing already visible, so it is not reported.
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

} // namespace mcphealth::util
