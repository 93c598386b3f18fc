// The platform seam on Linux (platform.hpp): /proc for processes, memfd for the payload, prctl for a child's
// death with its parent, inotify for watch, close_range. Built and tested here.
#include <mcphealth/platform/posix.hpp>
#include <mcphealth/platform/wait4.hpp>
#include <mcphealth/util/fs.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mcphealth::platform {

namespace fs = std::filesystem;

namespace {

/// The symlink /proc/`pid`/`name` points at; empty when it does not read.
fs::path proc_link(pid_t pid, const char* name) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/%s", static_cast<long>(pid), name);
  char buf[PATH_MAX];
  const ssize_t n = ::readlink(path, buf, sizeof buf - 1);
  return n > 0 ? fs::path(std::string(buf, static_cast<std::size_t>(n))) : fs::path();
}

/// Up to `size - 1` bytes of /proc/`pid`/`name`, NUL-ended; the count read, or -1. Async-signal-safe enough for a
/// scan: no allocation.
ssize_t read_proc(long pid, const char* name, char* buf, std::size_t size) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/%s", pid, name);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n > 0) buf[n] = '\0';
  return n;
}

/// Parent and group from a /proc/<pid>/stat line, "pid (comm) state ppid pgrp ...": comm may hold anything, spaces
/// and parentheses too, so read after its last ')'.
bool parse_stat(const char* stat, long& parent, long& group) {
  const char* close = std::strrchr(stat, ')');
  char state = 0;
  return close != nullptr && std::sscanf(close + 1, " %c %ld %ld", &state, &parent, &group) == 3;
}

/// Calls `each(pid)` for every process in /proc.
template <class Each>
void each_process(Each&& each) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return;
  while (const dirent* d = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(d->d_name, &end, 10);
    if (pid > 0 && *end == '\0') each(pid);
  }
  ::closedir(proc);
}

} // namespace

std::string_view name() { return "linux"; }

fs::path own_executable() { return proc_link(::getpid(), "exe"); }

std::optional<ProcessInfo> process_info(pid_t pid) {
  const fs::path dir = "/proc/" + std::to_string(pid);
  auto cmdline = util::read_file(dir / "cmdline", 256 * 1024);
  auto stat = util::read_file(dir / "stat", 4096);
  if (!cmdline || !stat) return std::nullopt;
  ProcessInfo p;
  std::string arg;
  for (char ch : *cmdline) {
    if (ch != '\0') {
      arg += ch;
      continue;
    }
    p.argv.push_back(std::move(arg));
    arg.clear();
  }
  if (!arg.empty()) p.argv.push_back(std::move(arg));
  long parent = 0, group = 0;
  if (!parse_stat(stat->c_str(), parent, group)) return std::nullopt;
  p.parent = static_cast<pid_t>(parent);
  p.cwd = proc_link(pid, "cwd");
  p.executable = proc_link(pid, "exe");
  return p;
}

std::vector<ProcessLink> process_table() {
  std::vector<ProcessLink> all;
  each_process([&](long pid) {
    char buf[512];
    long parent = 0, group = 0;
    if (read_proc(pid, "stat", buf, sizeof buf) > 0 && parse_stat(buf, parent, group)) {
      all.push_back({static_cast<pid_t>(pid), static_cast<pid_t>(parent), static_cast<pid_t>(group)});
    }
  });
  return all;
}

std::map<pid_t, GroupCpu> groups_cpu(const std::vector<pid_t>& groups) {
  std::map<pid_t, GroupCpu> out;
  if (groups.empty()) return out;
  each_process([&](long pid) {
    char buf[512];
    long parent = 0, in_group = 0;
    if (read_proc(pid, "stat", buf, sizeof buf) <= 0 || !parse_stat(buf, parent, in_group)) return;
    if (std::find(groups.begin(), groups.end(), static_cast<pid_t>(in_group)) == groups.end()) return;
    // schedstat: time on a CPU, time waiting for one while runnable (ns), timeslices.
    unsigned long long on_cpu = 0, waited = 0;
    if (read_proc(pid, "schedstat", buf, sizeof buf) <= 0 || std::sscanf(buf, "%llu %llu", &on_cpu, &waited) != 2)
      return;
    GroupCpu& g = out[static_cast<pid_t>(in_group)];
    g.longest_wait_ms = std::max(g.longest_wait_ms, static_cast<std::int64_t>(waited / 1'000'000ULL));
    g.on_cpu_ms += static_cast<std::int64_t>(on_cpu / 1'000'000ULL);
  });
  return out;
}

std::optional<GroupCpu> group_cpu(pid_t group) {
  std::map<pid_t, GroupCpu> one = groups_cpu({group});
  if (one.empty()) return std::nullopt;
  return one.begin()->second;
}

void die_with_parent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127); // the parent died before the line above took effect
}

pid_t reap(pid_t pid, int options, int& status, std::optional<std::int64_t>& cpu_ms) {
  return bsd::reap_with_cpu(pid, options, status, cpu_ms);
}

int pipe_cloexec(int fds[2]) { return ::pipe2(fds, O_CLOEXEC); }

void close_from(int lowest) {
  // close_range(2) needs Linux 5.9: on an older kernel, one close per possible descriptor.
  if (::close_range(static_cast<unsigned>(lowest), ~0U, 0) != 0) posix::close_from(lowest);
}

int socket_cloexec(int family, int type, int protocol) { return ::socket(family, type | SOCK_CLOEXEC, protocol); }

util::Result<util::UniqueFd> file_holding(std::initializer_list<std::string_view> parts) {
  util::UniqueFd fd(::memfd_create("mcphealth-hook-payload", MFD_CLOEXEC));
  if (!fd.valid()) return posix::file_holding(parts); // a sandbox that forbids memfd: a temporary file
  if (std::string why = posix::write_and_rewind(fd.get(), parts); !why.empty()) return util::fail(why);
  return fd;
}

util::UniqueFd watch_folder(const fs::path& dir) {
  util::UniqueFd fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (fd.valid() &&
      ::inotify_add_watch(fd.get(), dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_CREATE) < 0)
    fd.reset();
  return fd;
}

void drain_folder_watch(int watch) {
  char buf[4096];
  while (::read(watch, buf, sizeof buf) > 0) {
  }
}

std::int64_t modified_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(st.st_mtim.tv_nsec);
}

fs::path claude_managed_dir() { return "/etc/claude-code"; }

} // namespace mcphealth::platform
