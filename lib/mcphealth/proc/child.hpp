#pragma once
// Child processes for probes and reconnect commands, started through Boost.Process v2 in a process group of their
// own so that everything they start (npx starts grandchildren) can be ended together.
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/result.hpp>

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::proc {

/// What to start.
struct SpawnSpec {
  std::filesystem::path executable;
  std::vector<std::string> args;
  /// `NAME=value` entries; nothing = inherit this process's environment.
  std::optional<std::vector<std::string>> environment;
  /// The folder it starts in; empty: this process's.
  std::filesystem::path cwd = {};
};

/// How a process ended.
struct ExitStatus {
  std::optional<int> code;
  std::optional<int> signal;
  /// `1` for an exit code, `SIGKILL` for a signal.
  std::string describe() const;
};

/// A running child with pipes on its stdin, stdout and stderr (our ends non-blocking). Destroying it ends its
/// whole process group.
class Child {
public:
  struct Impl;
  explicit Child(std::unique_ptr<Impl> impl);
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  pid_t pid() const;
  /// Our end of the child's stdin, or -1 once closed.
  int stdin_fd() const;
  /// Our end of the child's stdout, or -1 once closed.
  int stdout_fd() const;
  /// Our end of the child's stderr, or -1 once closed.
  int stderr_fd() const;
  /// Closes our end of stdin (the child sees end of input).
  void close_stdin();
  /// Closes our end of stdout or stderr after end of file.
  void close_output(int fd);
  /// Checks without waiting whether the child has exited; returns its status once it has.
  std::optional<ExitStatus> poll_exit();
  /// The CPU time (user and system, ms) the child itself used, once it is reaped; nothing before, or where the OS
  /// does not say (the portable build). What a start of a server costs (issue 52 item 2: looks paid for in CPU).
  std::optional<std::int64_t> cpu_ms() const;
  /// Forgets the process group, so that destroying this object leaves whatever the child started running.
  void release();
  /// Ends the process group: SIGTERM, up to `grace_ms` for it to go, then SIGKILL; reaps the child. Descendants
  /// the child moved out of its group (a session of their own) are ended too: those found now, and those noted by
  /// note_strays while the child still ran (once it exits they are PID 1's, and nothing ties them to it).
  void terminate_group(std::int64_t grace_ms, util::Clock& clock);
  /// Notes the descendants outside the child's group, to end with it: before asking it to leave.
  void note_strays();
  /// Ends the process group at once with SIGKILL and reaps the child (what destruction does: no clock needed).
  void kill_group();

private:
  std::unique_ptr<Impl> m_impl;
};

/// Why a child did not start.
struct SpawnError {
  /// The errno (ENOENT, EACCES, ...).
  int code = 0;
  std::string message;
};

/// Starts `spec` in a new process group with all three standard streams on pipes; the group is tracked for
/// `end_groups_on_signals` until it is ended or released. Writing to a child that closed its stdin raises SIGPIPE:
/// a program that spawns must ignore it (the front end does, once).
util::Result<std::unique_ptr<Child>, SpawnError> spawn(const SpawnSpec& spec);

/// Starts `program` with `argv` (argv[0] included) and this process's environment, detached: a session of its own
/// (no controlling terminal, untouched by a signal to ours), stdin, stdout and stderr on /dev/null, the signals a
/// caller may block or ignore reset. Nothing waits for it. True when it started.
bool spawn_detached(const std::string& program, const std::vector<std::string>& argv);

/// The result of running a command to completion.
struct CommandResult {
  enum class Status { exited, timed_out, spawn_failed };
  Status status = Status::spawn_failed;
  ExitStatus exit;
  std::string out;
  std::string err;
  /// For spawn_failed: why.
  std::string error;
  bool succeeded() const { return status == Status::exited && exit.code == 0; }
};

/// Runs `spec` with `input` on its stdin (then end of input), collecting stdout and stderr (each capped at
/// `max_output` bytes), and ends the process group after `timeout_ms`.
CommandResult run_to_completion(const SpawnSpec& spec, std::int64_t timeout_ms, util::Clock& clock,
                                std::size_t max_output = 64 * 1024, std::string_view input = {});

/// Reads what is available on a non-blocking fd into `sink` (up to `cap` bytes kept); returns false on EOF or error.
bool drain_fd(int fd, std::string& sink, std::size_t cap);

/// Returns the name of a signal: `SIGTERM`, or `signal 42`.
std::string signal_name(int sig);

} // namespace mcphealth::proc
