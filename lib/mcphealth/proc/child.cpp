// Starting children with Boost.Process v2's launcher (header-only in 1.81, on std::filesystem: Boost.Filesystem
// would be one more shared library to load), with our own initializers for the process group and the
// environment. Pipes, waiting with a deadline and ending the group are plain POSIX here: v2 waits through an
// io_context, which the probes' poll loop over the child's stdout and stderr does not need.
#include <boost/optional.hpp>
#include <boost/type_traits.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>

#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/proc/errno_name.hpp>
#include <mcphealth/proc/groups.hpp>
#include <mcphealth/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mcphealth::proc {

namespace bp = boost::process::v2;

namespace {

/// Puts the child in a process group of its own before exec, has it killed when we die where the kernel can (Linux:
/// even by SIGKILL, which no handler sees; platform::die_with_parent), and makes a failed exec leave with `_exit`:
/// the launcher's own `exit()` would flush stdio buffers the child copied from us, printing our output twice.
struct OwnGroupInit {
  pid_t parent = ::getpid();

  template <typename Launcher>
  bp::error_code on_exec_setup(Launcher&, const std::filesystem::path&, const char* const*) {
    if (::setpgid(0, 0) != 0) return bp::error_code(errno, boost::system::system_category());
    platform::die_with_parent(parent);
    return {};
  }
  // Variadic: Boost 1.81 probes this hook with one signature and calls it with another.
  template <typename... Args>
  void on_exec_error(Args&&...) {
    ::_exit(127);
  }
};

/// Gives the child exactly `entries` as its environment: the launcher's `envp` is pointed at them before the fork.
/// (Boost 1.81's own process_environment defines its setup hook only in a non-header .ipp file.)
struct ExactEnvironment {
  std::vector<const char*> pointers;

  explicit ExactEnvironment(const std::vector<std::string>& entries) {
    for (const auto& e : entries) pointers.push_back(e.c_str());
    pointers.push_back(nullptr);
  }
  template <typename Launcher>
  bp::error_code on_setup(Launcher& launcher, const std::filesystem::path&, const char* const*) {
    launcher.env = pointers.data();
    return {};
  }
};

/// The two ends of a pipe, closed on exec (the child gets its end through dup2).
struct Pipe {
  util::UniqueFd read;
  util::UniqueFd write;
};

util::Result<Pipe, SpawnError> make_pipe() {
  int fds[2];
  if (::pipe(fds) != 0) return util::fail(SpawnError{errno, std::strerror(errno)});
  for (int fd : fds) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return Pipe{util::UniqueFd(fds[0]), util::UniqueFd(fds[1])};
}

/// Starts the group's guardian: a small process of ours that ends the whole group (the child's own children too)
/// when this process dies, however it dies. The kernel's parent-death signal (Linux alone) reaches the child alone,
/// so `sh script -> sleep` would leave the sleep behind. The guardian waits on a pipe only we hold the writing end of; end of file
/// without the all-clear byte means we are gone. It holds nothing else open (our stdout is the agent's pipe),
/// and ignores the signals a terminal or an agent sends to a whole group, so it outlives them to do its one job.
/// Nothing when it cannot start: the child still dies with us where the kernel sees to it, its children may not.
/// The pipe works on every platform, so this is also how a child ends with us on macOS.
struct Guardian {
  pid_t pid = -1;
  util::UniqueFd all_clear;
};

std::optional<Guardian> start_guardian(pid_t group) {
  int fds[2];
  if (platform::pipe_cloexec(fds) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) { // async-signal-safe calls only from here: we may have been forked from a threaded process
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) ::signal(sig, SIG_IGN);
    if (fds[0] != 0) ::dup2(fds[0], 0);
    platform::close_from(1);
    char byte = 0;
    ssize_t n;
    do n = ::read(0, &byte, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) ::kill(-group, SIGKILL);
    ::_exit(0);
  }
  ::close(fds[0]);
  return Guardian{pid, util::UniqueFd(fds[1])};
}

/// Tells the guardian its group needs no more watching, and reaps it.
void dismiss(pid_t& guardian, util::UniqueFd& all_clear) {
  if (guardian <= 0) return;
  const char byte = 1;
  (void)!::write(all_clear.get(), &byte, 1);
  all_clear.reset();
  int status = 0;
  while (::waitpid(guardian, &status, 0) < 0 && errno == EINTR) {
  }
  guardian = -1;
}

/// Makes `fd` non-blocking and hands it over.
util::UniqueFd nonblocking(util::UniqueFd fd) {
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
  return fd;
}

ExitStatus decode(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) s.code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) s.signal = WTERMSIG(status);
  return s;
}

} // namespace

std::string signal_name(int sig) {
  switch (sig) {
  case SIGTERM: return "SIGTERM";
  case SIGKILL: return "SIGKILL";
  case SIGINT: return "SIGINT";
  case SIGHUP: return "SIGHUP";
  case SIGSEGV: return "SIGSEGV";
  case SIGABRT: return "SIGABRT";
  case SIGPIPE: return "SIGPIPE";
  case SIGBUS: return "SIGBUS";
  case SIGFPE: return "SIGFPE";
  case SIGQUIT: return "SIGQUIT";
  case SIGUSR1: return "SIGUSR1";
  case SIGUSR2: return "SIGUSR2";
  default: return "signal " + std::to_string(sig);
  }
}

std::string ExitStatus::describe() const {
  if (code) return std::to_string(*code);
  if (signal) return signal_name(*signal);
  return "unknown";
}

struct Child::Impl {
  pid_t pid = -1;
  util::UniqueFd in;
  util::UniqueFd out;
  util::UniqueFd err;
  std::optional<ExitStatus> exit;
  /// The CPU time the child used, once reaped (platform::reap; not known on the portable build).
  std::optional<std::int64_t> cpu_ms;
  /// The group's guardian (start_guardian), and our end of its pipe.
  pid_t guardian = -1;
  util::UniqueFd all_clear;
  /// Descendants outside the group, noted while the child ran (note_strays).
  std::vector<pid_t> strays;
};

void Child::note_strays() {
  if (m_impl->pid <= 0) return;
  for (pid_t pid : descendants_outside_group(m_impl->pid)) {
    if (std::find(m_impl->strays.begin(), m_impl->strays.end(), pid) == m_impl->strays.end()) m_impl->strays.push_back(pid);
  }
}

Child::Child(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Child::~Child() { kill_group(); } // the pipes close with Impl

pid_t Child::pid() const { return m_impl->pid; }
int Child::stdin_fd() const { return m_impl->in.get(); }
int Child::stdout_fd() const { return m_impl->out.get(); }
int Child::stderr_fd() const { return m_impl->err.get(); }
std::optional<std::int64_t> Child::cpu_ms() const { return m_impl->cpu_ms; }
void Child::close_stdin() { m_impl->in.reset(); }
void Child::release() {
  if (m_impl->pid > 0) untrack_group(m_impl->pid);
  m_impl->pid = -1;
  dismiss(m_impl->guardian, m_impl->all_clear);
}

void Child::close_output(int fd) {
  if (fd == m_impl->out.get()) m_impl->out.reset();
  if (fd == m_impl->err.get()) m_impl->err.reset();
}

std::optional<ExitStatus> Child::poll_exit() {
  if (m_impl->exit || m_impl->pid <= 0) return m_impl->exit;
  int status = 0;
  pid_t r = platform::reap(m_impl->pid, WNOHANG, status, m_impl->cpu_ms);
  if (r == m_impl->pid) m_impl->exit = decode(status);
  else if (r < 0 && errno == ECHILD) m_impl->exit = ExitStatus{};
  return m_impl->exit;
}

void Child::terminate_group(std::int64_t grace_ms, util::Clock& clock) {
  if (m_impl->pid <= 0) return;
  const pid_t group = m_impl->pid;
  // Children the server moved out of its group (a session of their own) are found now, while they are still its
  // descendants, and ended with it: a signal to the group would miss them.
  note_strays();
  const std::vector<pid_t> strays = m_impl->strays;
  const auto end_strays = [&] {
    for (pid_t pid : strays) ::kill(pid, SIGKILL);
  };
  // Orphaned grandchildren linger as zombies until init reaps them, and a zombie still answers kill(-group, 0);
  // so the grace period waits for our own child only, and then SIGKILL goes to the group whatever it holds.
  if (::kill(-group, SIGTERM) != 0 && errno == ESRCH) {
    end_strays();
    poll_exit();
    untrack_group(group);
    m_impl->pid = -1;
    dismiss(m_impl->guardian, m_impl->all_clear);
    return;
  }
  const util::EpochMs deadline = clock.now_ms() + grace_ms;
  while (!poll_exit() && clock.now_ms() < deadline) clock.sleep_ms(5);
  kill_group();
  end_strays();
}

void Child::kill_group() {
  if (m_impl->pid <= 0) return;
  const pid_t group = m_impl->pid;
  note_strays();
  for (pid_t pid : m_impl->strays) ::kill(pid, SIGKILL); // as terminate_group says
  ::kill(-group, SIGKILL);
  int status = 0;
  if (!m_impl->exit && platform::reap(m_impl->pid, 0, status, m_impl->cpu_ms) == m_impl->pid) m_impl->exit = decode(status);
  untrack_group(group);
  m_impl->pid = -1;
  dismiss(m_impl->guardian, m_impl->all_clear); // the group is gone: nothing left to guard
}

util::Result<std::unique_ptr<Child>, SpawnError> spawn(const SpawnSpec& spec) {
  auto in = make_pipe();
  if (!in) return util::fail(in.error());
  auto out = make_pipe();
  if (!out) return util::fail(out.error());
  auto err = make_pipe();
  if (!err) return util::fail(err.error());
  // The io_context the launcher wants opens an epoll and an eventfd on first use: with no descriptors left that
  // throws, and it must throw here, before the fork (from the launched process's handle, the child would run on
  // untracked). A descriptor object makes the reactor now. Declared before the process handle, which must go
  // first (it holds a descriptor of this context).
  std::optional<boost::asio::io_context> io;
  bp::error_code ec;
  std::optional<bp::process> proc;
  try {
    io.emplace();
    boost::asio::posix::stream_descriptor reactor_now(*io);
  } catch (const std::system_error& e) {
    return util::fail(SpawnError{e.code().value(), e.what()});
  } catch (const boost::system::system_error& e) {
    return util::fail(SpawnError{e.code().value(), e.what()});
  }
  boost::asio::io_context& ctx = *io;
  {
    bp::process_stdio stdio{in->read.get(), out->write.get(), err->write.get()};
    bp::process_start_dir start_dir{spec.cwd.empty() ? std::filesystem::path(".") : spec.cwd}; // "." stays in ours
    if (spec.environment) {
      proc.emplace(bp::default_process_launcher()(ctx.get_executor(), ec, spec.executable, spec.args, stdio,
                                                  ExactEnvironment(*spec.environment), start_dir, OwnGroupInit{}));
    } else {
      proc.emplace(bp::default_process_launcher()(ctx.get_executor(), ec, spec.executable, spec.args, stdio,
                                                  start_dir, OwnGroupInit{}));
    }
  }
  // The child's ends are its own now.
  in->read.reset();
  out->write.reset();
  err->write.reset();
  if (ec || !proc || proc->id() <= 0) {
    return util::fail(SpawnError{ec ? ec.value() : EINVAL, ec ? ec.message() : "spawn failed"});
  }
  auto impl = std::make_unique<Child::Impl>();
  impl->pid = proc->id();
  ::setpgid(impl->pid, impl->pid); // also from the parent, so a kill right after spawn reaches the group
  track_group(impl->pid);
  proc->detach();                   // we reap it ourselves (waitpid) and end its group ourselves
  if (std::optional<Guardian> g = start_guardian(impl->pid)) {
    impl->guardian = g->pid;
    impl->all_clear = std::move(g->all_clear);
  }
  impl->in = nonblocking(std::move(in->write));
  impl->out = nonblocking(std::move(out->read));
  impl->err = nonblocking(std::move(err->read));
  return std::make_unique<Child>(std::move(impl));
}

bool drain_fd(int fd, std::string& sink, std::size_t cap) {
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
      sink.append(buf, std::min(room, static_cast<std::size_t>(n)));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

CommandResult run_to_completion(const SpawnSpec& spec, std::int64_t timeout_ms, util::Clock& clock,
                                std::size_t max_output, std::string_view input) {
  CommandResult result;
  auto spawned = spawn(spec);
  if (!spawned) {
    result.status = CommandResult::Status::spawn_failed;
    result.error = "spawn " + spec.executable.string() + " " + errno_name(spawned.error().code);
    return result;
  }
  Child& child = **spawned;
  const util::EpochMs deadline = clock.now_ms() + timeout_ms;
  // The input first (a few KB at most: an event), bounded by the same deadline; then end of input.
  while (!input.empty() && clock.now_ms() < deadline) {
    const ssize_t n = ::write(child.stdin_fd(), input.data(), input.size());
    if (n > 0) input.remove_prefix(static_cast<std::size_t>(n));
    else if (n < 0 && errno != EAGAIN && errno != EINTR) break; // it closed its stdin: it does not want the rest
    else clock.sleep_ms(2);
  }
  child.close_stdin();
  for (;;) {
    pollfd fds[2];
    nfds_t n = 0;
    for (int fd : {child.stdout_fd(), child.stderr_fd()}) {
      if (fd >= 0) fds[n++] = {fd, POLLIN, 0};
    }
    const std::int64_t left = deadline - clock.now_ms();
    if (left <= 0) break;
    // Poll the pipes, but wake up regularly: a child may exit while a grandchild keeps the pipes open.
    ::poll(fds, n, static_cast<int>(std::min<std::int64_t>(left, 20)));
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      std::string& sink = fds[i].fd == child.stdout_fd() ? result.out : result.err;
      if (!drain_fd(fds[i].fd, sink, max_output)) child.close_output(fds[i].fd);
    }
    if (auto status = child.poll_exit()) {
      for (int fd : {child.stdout_fd(), child.stderr_fd()}) {
        if (fd >= 0) drain_fd(fd, fd == child.stdout_fd() ? result.out : result.err, max_output);
      }
      result.status = CommandResult::Status::exited;
      result.exit = *status;
      // A reconnect command may rightly leave a server running in the background: only a timeout ends the group.
      child.release();
      return result;
    }
  }
  result.status = CommandResult::Status::timed_out;
  child.terminate_group(500, clock);
  return result;
}

bool spawn_detached(const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&files);
  for (int fd : {0, 1, 2}) ::posix_spawn_file_actions_addopen(&files, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  ::posix_spawnattr_init(&attr);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
#ifdef POSIX_SPAWN_SETSID
  flags |= POSIX_SPAWN_SETSID;
#else
  flags |= POSIX_SPAWN_SETPGROUP;
#endif
  ::posix_spawnattr_setflags(&attr, flags);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGHUP, SIGINT, SIGPIPE, SIGQUIT, SIGXFSZ}) sigaddset(&defaults, sig);
  ::posix_spawnattr_setsigmask(&attr, &none);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &files, &attr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&files);
  ::posix_spawnattr_destroy(&attr);
  return rc == 0;
}

} // namespace mcphealth::proc
