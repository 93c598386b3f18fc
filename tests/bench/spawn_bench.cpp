// Times whole process runs the way Claude Code starts a hook: spawn, stdin from a file, wait. Prints the median,
// mean and 90th percentile wall time and the peak RSS of the child (wait4), as one JSON line, so scripts/bench can
// put commands side by side in one run. hyperfine 1.15 cannot feed stdin to a command without a shell.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

int main(int argc, char** argv) {
  int runs = 200;
  int warmup = 5;
  const char* input = "/dev/null";
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else if (a == "--stdin" && i + 1 < argc) input = argv[++i];
    else if (a == "--") { ++i; break; }
    else break;
  }
  if (i >= argc || runs < 1) {
    std::fprintf(stderr, "usage: spawn_bench [--runs N] [--warmup N] [--stdin FILE] -- COMMAND [ARGS...]\n");
    return 2;
  }
  std::vector<double> ms;
  long max_rss_kb = 0;
  int failures = 0;
  for (int r = -warmup; r < runs; ++r) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, input, O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    if (posix_spawnp(&pid, argv[i], &fa, nullptr, argv + i, environ) != 0) {
      std::perror("posix_spawnp");
      return 1;
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    const auto end = std::chrono::steady_clock::now();
    posix_spawn_file_actions_destroy(&fa);
    if (r < 0) continue;
    if (!WIFEXITED(status)) ++failures;
    ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    max_rss_kb = std::max(max_rss_kb, usage.ru_maxrss);
  }
  std::sort(ms.begin(), ms.end());
  double mean = 0;
  for (double v : ms) mean += v;
  mean /= static_cast<double>(ms.size());
  std::printf("{\"runs\":%d,\"median_ms\":%.3f,\"mean_ms\":%.3f,\"p90_ms\":%.3f,\"max_rss_kb\":%ld,\"abnormal_exits\":%d}\n",
              runs, ms[ms.size() / 2], mean, ms[ms.size() * 9 / 10], max_rss_kb, failures);
  return 0;
}
