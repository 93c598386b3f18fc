// The platform seam on macOS (platform.hpp), written to Apple's documented interfaces: _NSGetExecutablePath,
// sysctl(KERN_PROCARGS2), libproc (proc_pidinfo, proc_pidpath, proc_listallpids, proc_listpgrppids,
// proc_pid_rusage) and kqueue. Compiled only on macOS and NOT YET TESTED there (README, "Platforms"): no Mac was
// available. A child's death with its parent has no kernel request on macOS; the group's guardian, which waits on a
// pipe only the parent holds (proc/child.cpp), ends the group when the parent dies, on every platform.
#include <mcphealth/platform/posix.hpp>
#include <mcphealth/platform/wait4.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <libproc.h>
#include <mach-o/dyld.h>
#include <mach/mach_time.h>
#include <sys/event.h>
#include <sys/proc_info.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mcphealth::platform {

namespace fs = std::filesystem;

namespace {

/// Mach absolute time units (what rusage_info's times count on Apple silicon) to milliseconds.
std::int64_t mach_to_ms(std::uint64_t ticks) {
  static const mach_timebase_info_data_t base = [] {
    mach_timebase_info_data_t b{};
    if (::mach_timebase_info(&b) != KERN_SUCCESS || b.denom == 0) b = {1, 1};
    return b;
  }();
  return static_cast<std::int64_t>(static_cast<double>(ticks) * base.numer / base.denom / 1e6);
}

/// The pids of every process (proc_listallpids), or of one group (proc_listpgrppids).
template <class List>
std::vector<pid_t> list_pids(List&& list) {
  std::vector<pid_t> pids(1024);
  for (int tries = 0; tries < 4; ++tries) {
    const int n = list(pids.data(), static_cast<int>(pids.size() * sizeof(pid_t)));
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) < pids.size()) {
      pids.resize(static_cast<std::size_t>(n));
      return pids;
    }
    pids.resize(pids.size() * 4); // full: there may be more
  }
  return pids;
}

bool bsd_info(pid_t pid, proc_bsdinfo& info) {
  return ::proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, sizeof info) == static_cast<int>(sizeof info);
}

/// argv from sysctl(KERN_PROCARGS2): an int argc, the executable's path, NUL padding, then argc NUL-ended strings.
std::optional<std::vector<std::string>> arguments_of(pid_t pid) {
  int max_args = 0;
  std::size_t size = sizeof max_args;
  int mib_max[2] = {CTL_KERN, KERN_ARGMAX};
  if (::sysctl(mib_max, 2, &max_args, &size, nullptr, 0) != 0 || max_args <= 0) return std::nullopt;
  std::string buf(static_cast<std::size_t>(max_args), '\0');
  size = buf.size();
  int mib[3] = {CTL_KERN, KERN_PROCARGS2, static_cast<int>(pid)};
  if (::sysctl(mib, 3, buf.data(), &size, nullptr, 0) != 0 || size < sizeof(int)) return std::nullopt;
  int argc = 0;
  std::memcpy(&argc, buf.data(), sizeof argc);
  std::size_t at = buf.find('\0', sizeof argc); // past the executable's path
  if (at == std::string::npos) return std::nullopt;
  while (at < size && buf[at] == '\0') ++at;
  std::vector<std::string> argv;
  while (static_cast<int>(argv.size()) < argc && at < size) {
    const std::size_t end = std::min(buf.find('\0', at), size);
    argv.emplace_back(buf, at, end - at);
    at = end + 1;
  }
  return argv;
}

} // namespace

std::string_view name() { return "macos"; }

fs::path own_executable() {
  char buf[PATH_MAX];
  std::uint32_t size = sizeof buf;
  if (::_NSGetExecutablePath(buf, &size) != 0) return {};
  std::error_code ec;
  fs::path real = fs::canonical(buf, ec);
  return ec ? fs::path() : real;
}

std::optional<ProcessInfo> process_info(pid_t pid) {
  proc_bsdinfo bsd{};
  if (!bsd_info(pid, bsd)) return std::nullopt;
  std::optional<std::vector<std::string>> argv = arguments_of(pid);
  if (!argv) return std::nullopt;
  ProcessInfo p;
  p.argv = std::move(*argv);
  p.parent = static_cast<pid_t>(bsd.pbi_ppid);
  proc_vnodepathinfo paths{};
  if (::proc_pidinfo(pid, PROC_PIDVNODEPATHINFO, 0, &paths, sizeof paths) == static_cast<int>(sizeof paths)) {
    p.cwd = paths.pvi_cdir.vip_path;
  }
  char exe[PROC_PIDPATHINFO_MAXSIZE];
  if (::proc_pidpath(pid, exe, sizeof exe) > 0) p.executable = exe;
  return p;
}

std::vector<ProcessLink> process_table() {
  std::vector<ProcessLink> all;
  for (pid_t pid : list_pids([](void*buf, int size) { return ::proc_listallpids(buf, size); })) {
    proc_bsdinfo bsd{};
    if (pid > 0 && bsd_info(pid, bsd))
      all.push_back({pid, static_cast<pid_t>(bsd.pbi_ppid), static_cast<pid_t>(bsd.pbi_pgid)});
  }
  return all;
}

std::optional<GroupCpu> group_cpu(pid_t group) {
  std::optional<GroupCpu> out;
  for (pid_t pid : list_pids([group](void*buf, int size) { return ::proc_listpgrppids(group, buf, size); })) {
    rusage_info_v4 usage{};
    if (::proc_pid_rusage(pid, RUSAGE_INFO_V4, reinterpret_cast<rusage_info_t*>(&usage)) != 0) continue;
    GroupCpu& g = out ? *out : out.emplace();
    // ri_runnable_time: time runnable but not running, Linux's schedstat wait.
    g.longest_wait_ms = std::max(g.longest_wait_ms, mach_to_ms(usage.ri_runnable_time));
    g.on_cpu_ms += mach_to_ms(usage.ri_user_time + usage.ri_system_time);
  }
  return out;
}

std::map<pid_t, GroupCpu> groups_cpu(const std::vector<pid_t>& groups) {
  // libproc lists a group's members directly: a group at a time costs no scan of the others.
  std::map<pid_t, GroupCpu> out;
  for (pid_t group : groups) {
    if (auto cpu = group_cpu(group)) out[group] = *cpu;
  }
  return out;
}

void die_with_parent(pid_t) {}

pid_t reap(pid_t pid, int options, int& status, std::optional<std::int64_t>& cpu_ms) {
  return bsd::reap_with_cpu(pid, options, status, cpu_ms);
}

int pipe_cloexec(int fds[2]) { return posix::pipe_cloexec(fds); }

void close_from(int lowest) { posix::close_from(lowest); }

int socket_cloexec(int family, int type, int protocol) {
  const int fd = posix::socket_cloexec(family, type, protocol);
  // No MSG_NOSIGNAL on macOS: a write to a closed peer fails as EPIPE instead of raising SIGPIPE.
  if (fd >= 0) {
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
  }
  return fd;
}

util::Result<util::UniqueFd> file_holding(std::initializer_list<std::string_view> parts) {
  return posix::file_holding(parts);
}

util::UniqueFd watch_folder(const fs::path& dir) {
  // A kqueue is itself a descriptor poll(2) waits on; it holds the folder open for EVFILT_VNODE.
  util::UniqueFd queue(::kqueue());
  const int folder = ::open(dir.c_str(), O_EVTONLY | O_CLOEXEC);
  if (!queue.valid() || folder < 0) {
    if (folder >= 0) ::close(folder);
    return {};
  }
  ::fcntl(queue.get(), F_SETFD, FD_CLOEXEC);
  struct kevent change {};
  EV_SET(&change, folder, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE | NOTE_DELETE | NOTE_RENAME | NOTE_EXTEND, 0,
         nullptr);
  if (::kevent(queue.get(), &change, 1, nullptr, 0, nullptr) != 0) {
    ::close(folder);
    return {};
  }
  return queue; // the folder's descriptor stays open for the watch's life: one per watch, never closed
}

void drain_folder_watch(int watch) {
  struct kevent events[16];
  const timespec now{0, 0};
  while (::kevent(watch, nullptr, 0, events, 16, &now) > 0) {
  }
}

std::int64_t modified_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtimespec.tv_sec) * 1'000'000'000 +
         static_cast<std::int64_t>(st.st_mtimespec.tv_nsec);
}

fs::path claude_managed_dir() { return "/Library/Application Support/ClaudeCode"; }

} // namespace mcphealth::platform
