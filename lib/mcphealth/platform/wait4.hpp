#pragma once
// platform::reap through wait4(2), which Linux and macOS both have (not POSIX: the portable build uses waitpid and
// knows no CPU time). Included by linux.cpp and macos.cpp only.
#include <cstdint>
#include <optional>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

namespace mcphealth::platform::bsd {

inline pid_t reap_with_cpu(pid_t pid, int options, int& status, std::optional<std::int64_t>& cpu_ms) {
  rusage usage{};
  const pid_t r = ::wait4(pid, &status, options, &usage);
  if (r == pid) {
    cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 +
             (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
  }
  return r;
}

} // namespace mcphealth::platform::bsd
