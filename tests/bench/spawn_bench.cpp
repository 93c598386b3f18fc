// Times whole process runs the way Claude Code starts a hook: spawn, stdin from a file, wait. Prints the median,
// mean and 90th percentile wall time, the peak RSS and the median of minor page faults of the child (wait4), as one
// JSON line, so scripts/bench can
// put commands side by side in one run. hyperfine 1.15 cannot feed stdin to a command without a shell.
// `--beside PROGRAM` runs PROGRAM (no arguments, stdin /dev/null) before each run of the command, and adds its
// median and the ratio of the two: interleaved run by run, a ratio does not move with a machine that is busier
// for one case than for the next.
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

namespace {

struct Run {
  double ms = 0;
  long max_rss_kb = 0;
  /// Page faults served without I/O: the pages the run touched, which a bigger binary or more reading adds to.
  long minor_faults = 0;
  bool normal_exit = false;
};

/// One run of `argv`, stdin from `input`, stdout and stderr to /dev/null; exits the harness when it cannot spawn.
Run run_once(char* const* argv, const char* input) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, input, O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], &fa, nullptr, argv, environ) != 0) {
    std::perror("posix_spawnp");
    std::exit(1);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const auto end = std::chrono::steady_clock::now();
  posix_spawn_file_actions_destroy(&fa);
  return {std::chrono::duration<double, std::milli>(end - start).count(), usage.ru_maxrss, usage.ru_minflt,
          WIFEXITED(status)};
}

double median(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  int runs = 200;
  int warmup = 5;
  const char* input = "/dev/null";
  const char* beside = nullptr;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else if (a == "--stdin" && i + 1 < argc) input = argv[++i];
    else if (a == "--beside" && i + 1 < argc) beside = argv[++i];
    else if (a == "--") { ++i; break; }
    else break;
  }
  if (i >= argc || runs < 1) {
    std::fprintf(stderr, "usage: spawn_bench [--runs N] [--warmup N] [--stdin FILE] [--beside PROGRAM] -- COMMAND [ARGS...]\n");
    return 2;
  }
  std::vector<double> ms;
  std::vector<double> beside_ms;
  std::vector<double> faults;
  long max_rss_kb = 0;
  int failures = 0;
  char* beside_argv[] = {const_cast<char*>(beside), nullptr};
  for (int r = -warmup; r < runs; ++r) {
    if (beside != nullptr) {
      const Run b = run_once(beside_argv, "/dev/null");
      if (r >= 0) beside_ms.push_back(b.ms);
    }
    const Run run = run_once(argv + i, input);
    if (r < 0) continue;
    if (!run.normal_exit) ++failures;
    ms.push_back(run.ms);
    faults.push_back(static_cast<double>(run.minor_faults));
    max_rss_kb = std::max(max_rss_kb, run.max_rss_kb);
  }
  double mean = 0;
  for (double v : ms) mean += v;
  mean /= static_cast<double>(ms.size());
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  std::printf("{\"runs\":%d,\"median_ms\":%.3f,\"mean_ms\":%.3f,\"p90_ms\":%.3f,\"max_rss_kb\":%ld,"
              "\"median_minor_faults\":%.0f,\"abnormal_exits\":%d",
              runs, sorted[sorted.size() / 2], mean, sorted[sorted.size() * 9 / 10], max_rss_kb, median(faults), failures);
  if (beside != nullptr) {
    const double b = median(beside_ms);
    std::printf(",\"beside_median_ms\":%.3f,\"ratio_beside\":%.3f", b, sorted[sorted.size() / 2] / b);
  }
  std::printf("}\n");
  return 0;
}
