#pragma once
// The process groups this process started and has not ended yet, so that a signal that ends us (Claude Code killing
// a hook past its timeout, Ctrl-C, a closed terminal) ends them too instead of leaving them under PID 1.
#include <sys/types.h>

#include <vector>

namespace mcphealth::proc {

/// Remembers a process group to end if we are ended by a signal. Safe from any thread.
void track_group(pid_t group);

/// Forgets a group that was ended (or released on purpose). Safe from any thread.
void untrack_group(pid_t group);

/// SIGKILLs every tracked group. Async-signal-safe: for a handler that ends a loop instead of the process.
void kill_tracked_groups();

/// The descendants of `root` that are not in its process group: children a server moved to a session (or group)
/// of their own, which a signal to the group misses, for a probe to end them with the group (platform::process_table:
/// none are found where the process tree cannot be read). A snapshot: call it before the group is ended, while they are still its children.
std::vector<pid_t> descendants_outside_group(pid_t root);

/// The exit code after a handled signal: 128 + the signal's number, as shells report it.
constexpr int exit_code_for_signal(int sig) { return 128 + sig; }

/// Installs handlers for SIGTERM, SIGHUP and SIGINT that SIGKILL every tracked group and then `_exit` with
/// `exit_code_for_signal`. Nothing is flushed and no destructor runs: a state write in progress is a temp file that
/// is never renamed, so the state file stays whole.
void end_groups_on_signals();

/// For the hook, which must never block a call by dying: every signal that would end the process (SIGTERM, SIGHUP,
/// SIGINT, SIGQUIT, and the faults SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, on a stack of their own so a stack
/// overflow is caught too) ends the tracked groups, writes `[MCPHealthCheck] ended by signal N; allowing the call`
/// to stderr and `_exit`s with `allow_code`; SIGXFSZ (`ulimit -f`) and SIGPIPE are ignored, so a write fails as a
/// value instead. Agents that block on any other exit code (Gemini CLI, Copilot CLI) then let the call run.
void allow_on_fatal_signals(int allow_code);

} // namespace mcphealth::proc
