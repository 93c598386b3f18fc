// The platform seam with POSIX alone (platform.hpp): what a Unix other than Linux and macOS gets, and what
// `scripts/test --portable` runs the unit and CLI suites against on Linux. What it cannot know, it says it does not:
// no ancestor's arguments (Claude Code's --mcp-config is then learned from failures, docs/configuration.md), no
// process tree (a server's children that left its group are not found; the group itself is still ended), no CPU
// accounting (a probe's deadline is not stretched for a busy machine), no folder watch (watch redraws every second).
#include <mcphealth/platform/posix.hpp>

#include <cstdlib>
#include <sys/wait.h>

namespace mcphealth::platform {

std::string_view name() { return "portable"; }

std::filesystem::path own_executable() {
  const char* path = std::getenv("PATH");
  return posix::executable_from(posix::program_name(), path != nullptr ? path : "");
}

std::optional<ProcessInfo> process_info(pid_t) { return std::nullopt; }

std::vector<ProcessLink> process_table() { return {}; }

std::optional<GroupCpu> group_cpu(pid_t) { return std::nullopt; }

std::map<pid_t, GroupCpu> groups_cpu(const std::vector<pid_t>&) { return {}; }

void die_with_parent(pid_t) {}

int pipe_cloexec(int fds[2]) { return posix::pipe_cloexec(fds); }

pid_t reap(pid_t pid, int options, int& status, std::optional<std::int64_t>&) { return ::waitpid(pid, &status, options); }

void close_from(int lowest) { posix::close_from(lowest); }

int socket_cloexec(int family, int type, int protocol) { return posix::socket_cloexec(family, type, protocol); }

util::Result<util::UniqueFd> file_holding(std::initializer_list<std::string_view> parts) {
  return posix::file_holding(parts);
}

util::UniqueFd watch_folder(const std::filesystem::path&) { return {}; }

void drain_folder_watch(int) {}

std::int64_t modified_ns(const struct stat& st) {
  // POSIX.1-2008's st_mtim.
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(st.st_mtim.tv_nsec);
}

std::filesystem::path claude_managed_dir() { return "/etc/claude-code"; }

} // namespace mcphealth::platform
