#include <mcphealth/util/fs.hpp>

#include <mcphealth/util/unique_fd.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::util {

namespace fs = std::filesystem;

std::string describe_errno(const std::string& what, int err) { return what + ": " + std::strerror(err); }

bool is_within(const std::filesystem::path& path, const std::filesystem::path& folder) {
  auto p = path.begin();
  for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
    if (f->empty() && std::next(f) == folder.end()) return true; // a trailing separator
    if (p == path.end() || *p != *f) return false;
  }
  return true;
}

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

Result<std::string, ReadError> read_file(const fs::path& path, std::size_t max_bytes) {
  auto unreadable = [](std::string why) { return fail(ReadError{ReadFailure::unreadable, std::move(why)}); };
  // Made only for a file over the limit: every hook call reads the state file.
  auto too_large = [&] { return unreadable("it is larger than " + std::to_string(max_bytes / (1024 * 1024)) + " MiB"); };
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one forever.
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd.valid()) {
    if (errno == ENOENT || errno == ENOTDIR) return fail(ReadError{ReadFailure::missing, {}});
    return unreadable(std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return unreadable(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return unreadable("it is " + kind_of_mode(st.st_mode) + ", not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) return too_large();
  std::string bytes;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      if (bytes.size() + static_cast<std::size_t>(n) > max_bytes) return too_large(); // it grew while read
      bytes.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      return unreadable(std::strerror(errno));
    }
  }
  return bytes;
}

Result<void> make_private_dirs(const fs::path& dir) {
  if (dir.empty()) return ok();
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return ok();
    return fail(dir.string() + " exists and is not a folder");
  }
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto made = make_private_dirs(dir.parent_path()); !made) return made;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return fail(describe_errno("cannot create " + dir.string(), errno));
  return ok();
}

std::optional<std::string> not_ones_own(const fs::path& path, OwnKind kind) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
  // A file that is not a regular one is its readers' and writers' to refuse, in their own words.
  if (kind == OwnKind::file && !S_ISREG(st.st_mode)) return std::nullopt;
  if (S_ISLNK(st.st_mode)) return path.string() + " is a symlink";
  if (kind == OwnKind::folder && !S_ISDIR(st.st_mode)) return path.string() + " is not a folder";
  if (st.st_uid != ::geteuid()) return path.string() + " is owned by uid " + std::to_string(st.st_uid) + ", not this user";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return path.string() + " is writable by others";
  return std::nullopt;
}

Result<void> atomic_replace(const fs::path& path, std::string_view bytes, unsigned mode, Folders folders, Sync sync) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) return fail(path.string() + " is a symlink; refusing to write through it");
    if (!S_ISREG(st.st_mode)) return fail(path.string() + " is " + kind_of_mode(st.st_mode) + "; refusing to replace it");
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (folders == Folders::must_exist) {
    struct stat dst {};
    if (::stat(dir.c_str(), &dst) != 0) return fail(describe_errno("folder " + dir.string(), errno));
    if (!S_ISDIR(dst.st_mode)) return fail(dir.string() + " is not a folder");
  } else if (auto made = make_private_dirs(dir); !made) {
    return made;
  }

  std::random_device rd;
  std::string tmp_name = path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  const fs::path tmp = dir / tmp_name;
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return fail(describe_errno("cannot create " + tmp.string(), errno));

  // Any step that fails leaves nothing behind: the temp file goes (its descriptor closes with `fd`).
  auto abandon = [&](const std::string& what) {
    const int err = errno;
    fd.reset();
    ::unlink(tmp.c_str());
    return fail(describe_errno(what, err));
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return abandon("cannot write " + tmp.string());
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd.get(), static_cast<mode_t>(mode)) != 0) return abandon("cannot chmod " + tmp.string());
  if (sync == Sync::yes && ::fsync(fd.get()) != 0) return abandon("cannot fsync " + tmp.string());
  if (::close(fd.release()) != 0) return abandon("cannot close " + tmp.string());
  if (::rename(tmp.c_str(), path.c_str()) != 0) return abandon("cannot rename onto " + path.string());
  // Make the rename itself durable; a failure here loses nothing already visible, so it is not reported.
  if (sync == Sync::no) return ok();
  if (const UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); dir_fd.valid()) ::fsync(dir_fd.get());
  return ok();
}

} // namespace mcphealth::util
