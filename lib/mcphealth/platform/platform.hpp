#pragma once
// Everything mcphealth asks of the OS beyond POSIX, in one place: no file outside this folder names /proc, memfd,
// prctl, inotify or a platform macro (tests/cli/test_platform.sh holds that). One implementation is built, chosen
// by CMake's MCPHEALTH_PLATFORM (docs/developing.md, "Platforms"):
//   linux.cpp     /proc, memfd, prctl(PR_SET_PDEATHSIG), inotify, close_range. Built and tested here.
//   portable.cpp  POSIX alone: what any other Unix gets. Built and tested on Linux (scripts/test --portable).
//   macos.cpp     libproc, sysctl(KERN_PROCARGS2), kqueue. Compiled only on macOS; not yet tested.
// Where a platform cannot answer, the answer is "not known" (an empty path, nothing, an invalid descriptor), and
// each caller says what it does without it. posix.hpp holds the parts every implementation shares.
#include <mcphealth/util/result.hpp>
#include <mcphealth/util/unique_fd.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <sys/types.h>
#include <vector>

namespace mcphealth::platform {

/// The implementation built: "linux", "macos" or "portable" (in `--version` and `doctor`).
std::string_view name();

/// Remembers argv[0], which is how the portable build finds its own file. First thing in main.
void set_program_name(const char* argv0);

/// This program's own file, symlinks resolved; empty when it cannot be told.
std::filesystem::path own_executable();

/// What a running process says of itself: the Claude Code a hook runs under (agent/claude_code_args.cpp).
struct ProcessInfo {
  /// Its arguments, argv[0] first.
  std::vector<std::string> argv;
  pid_t parent = 0;
  /// Its working folder; empty when not known.
  std::filesystem::path cwd;
  /// Its program file; empty when not known.
  std::filesystem::path executable;
};

/// What `pid` says of itself; nothing when it is gone or processes cannot be looked into (the portable build).
std::optional<ProcessInfo> process_info(pid_t pid);

/// One process's place in the process tree.
struct ProcessLink {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
};

/// Every process's parent and group, one snapshot; empty where that is not known (the portable build).
std::vector<ProcessLink> process_table();

/// What a process group did with the CPU, for a probe's deadline (probe/pacer.cpp).
struct GroupCpu {
  /// The longest time (ms) any of its processes spent waiting for a CPU while runnable: how much of a probe's
  /// window the machine took from it.
  std::int64_t longest_wait_ms = 0;
  /// The time (ms) all its processes spent on a CPU: a group that burned much of its window was not starved, it
  /// was busy itself (its own processes compete for the CPU).
  std::int64_t on_cpu_ms = 0;
};

/// waitpid(2) for a child of ours, with the CPU time (user and system, ms) the reaped child used, where the OS says
/// it as it reaps (wait4: Linux, macOS); `cpu_ms` is left alone otherwise (the portable build: not known).
pid_t reap(pid_t pid, int options, int& status, std::optional<std::int64_t>& cpu_ms);

/// `group`'s use of the CPU, or nothing where that is not known. A scan of every process: not for a hot path.
std::optional<GroupCpu> group_cpu(pid_t group);
/// The same for several groups at once, in one scan where a scan is what it takes (a batch's pacer asks for every
/// server starting, each tick); a group not known is left out.
std::map<pid_t, GroupCpu> groups_cpu(const std::vector<pid_t>& groups);

/// In a child between fork and exec (async-signal-safe only): has the kernel SIGKILL it when `parent` dies, even by
/// SIGKILL, and `_exit`s at once if `parent` is gone already. Nothing where the kernel has no such request: the
/// group's guardian (proc/child.cpp) still ends the group when its parent dies.
void die_with_parent(pid_t parent);

/// A pipe whose two ends close on exec; -1 and errno as pipe(2).
int pipe_cloexec(int fds[2]);

/// Closes every descriptor from `lowest` up. Async-signal-safe.
void close_from(int lowest);

/// A socket that closes on exec; -1 and errno as socket(2).
int socket_cloexec(int family, int type, int protocol);

/// A file no other process can open, holding `parts` one after another, read from its start, closed on exec: how
/// the front hands a payload it read to the full binary, on its stdin (a pipe would hold only 64 KiB before the
/// reader starts). The error's words when there is none.
util::Result<util::UniqueFd> file_holding(std::initializer_list<std::string_view> parts);

/// A descriptor that becomes readable when an entry of `dir` is written, replaced or removed (watch's redraw);
/// invalid where there is none, and then the caller looks again on a timer.
util::UniqueFd watch_folder(const std::filesystem::path& dir);

/// Takes what made a watch_folder descriptor readable, so that it waits again.
void drain_folder_watch(int watch);

/// A file's last modification, in nanoseconds since the epoch.
std::int64_t modified_ns(const struct stat& st);

/// Where Claude Code reads its managed (administrator's) settings and servers on this OS.
std::filesystem::path claude_managed_dir();

} // namespace mcphealth::platform
