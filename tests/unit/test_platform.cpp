// The platform seam (lib/mcphealth/platform/), against the real OS: what the build's implementation knows, it
// knows right; what it cannot know (the portable build: processes, CPU, folder watches), it says it does not.
#include "fakes.hpp"

#include <mcphealth/platform/posix.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/clock.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mcphealth;
using testing::TempDir;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_platform {
namespace {

/// Whether the build can look into other processes (every implementation but the portable one).
bool sees_processes() { return platform::name() != "portable"; }

bool closes_on_exec(int fd) { return (::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0; }

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

/// A file `name` in `dir`, executable, holding a script.
fs::path executable_file(const fs::path& dir, const std::string& name) {
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << "#!/bin/sh\n";
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

} // namespace

TEST_CASE("the build names its platform", "[platform]") {
  const std::string_view name = platform::name();
  CHECK((name == "linux" || name == "macos" || name == "portable"));
}

TEST_CASE("the program finds its own file, symlinks resolved", "[platform]") {
  const fs::path self = platform::own_executable();
  REQUIRE_FALSE(self.empty());
  CHECK(self.is_absolute());
  CHECK(self.filename() == "mcphealth_unit");
  CHECK(fs::equivalent(self, fs::canonical(self)));
}

TEST_CASE("argv[0] finds a program by a path or along PATH, as a shell would", "[platform]") {
  TempDir tmp;
  const fs::path tool = executable_file(tmp.path() / "bin", "tool");
  const fs::path real = fs::canonical(tool);
  CHECK(platform::posix::executable_from((tmp.path() / "bin" / "tool").string(), "") == real);
  CHECK(platform::posix::executable_from("tool", "/nonexistent:" + (tmp.path() / "bin").string()) == real);
  // A link is followed to the file it names.
  fs::create_directories(tmp.path() / "links");
  fs::create_symlink(tool, tmp.path() / "links" / "alias");
  CHECK(platform::posix::executable_from("alias", (tmp.path() / "links").string()) == real);
  // Not found, not executable, a folder, or no argv[0] at all: nothing.
  CHECK(platform::posix::executable_from("tool", "/nonexistent").empty());
  std::ofstream(tmp.path() / "bin" / "plain") << "text";
  CHECK(platform::posix::executable_from("plain", (tmp.path() / "bin").string()).empty());
  CHECK(platform::posix::executable_from("bin", tmp.path().string()).empty());
  CHECK(platform::posix::executable_from("", (tmp.path() / "bin").string()).empty());
}

TEST_CASE("a payload's file holds every part, reads from its start and closes on exec", "[platform]") {
  const std::string big(200 * 1024, 'x'); // more than a pipe holds
  for (const bool portable : {false, true}) {
    auto file =
        portable ? platform::posix::file_holding({"{\"a\":", big, "}"}) : platform::file_holding({"{\"a\":", big, "}"});
    REQUIRE(file);
    CHECK(closes_on_exec(file->get()));
    CHECK(read_all(file->get()) == "{\"a\":" + big + "}");
    if (portable) { // the temporary file has no name left: nothing to clean up, whatever ends the process
      struct stat st {};
      REQUIRE(::fstat(file->get(), &st) == 0);
      CHECK(st.st_nlink == 0);
    }
  }
}

TEST_CASE("a payload's file in a folder that cannot hold one says why", "[platform]") {
  const char* was = std::getenv("TMPDIR");
  const std::string kept = was != nullptr ? was : "";
  ::setenv("TMPDIR", "/nonexistent/folder", 1);
  auto file = platform::posix::file_holding({"x"});
  if (was != nullptr)
    ::setenv("TMPDIR", kept.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  REQUIRE_FALSE(file);
  CHECK(file.error().message.find("/nonexistent/folder") != std::string::npos);
}

TEST_CASE("pipes and sockets close on exec, and close_from closes what is above", "[platform]") {
  int fds[2];
  REQUIRE(platform::pipe_cloexec(fds) == 0);
  CHECK(closes_on_exec(fds[0]));
  CHECK(closes_on_exec(fds[1]));
  const int sock = platform::socket_cloexec(AF_INET, SOCK_STREAM, 0);
  REQUIRE(sock >= 0);
  CHECK(closes_on_exec(sock));
  ::close(sock);
  // close_from in a child, as the guardian uses it: the child reports which of the pipe's ends it still holds.
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int keep = ::dup2(fds[1], 3);
    platform::close_from(4);
    const char held = ::fcntl(fds[0] > 3 ? fds[0] : 200, F_GETFD) < 0 && errno == EBADF ? 'c' : 'o';
    (void)!::write(keep, &held, 1);
    ::_exit(0);
  }
  ::close(fds[1]);
  char got = 0;
  CHECK(::read(fds[0], &got, 1) == 1);
  CHECK(got == 'c');
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(fds[0]);
}

TEST_CASE("a process says its arguments, parent and folder where the platform can tell", "[platform]") {
  util::SystemClock clock;
  TempDir tmp;
  // A child in a folder of its own, with arguments that hold spaces and an empty one.
  auto child = proc::spawn({"/bin/sh", {"-c", "sleep 5", "name with spaces", ""}, std::nullopt, tmp.path()});
  REQUIRE(child);
  const pid_t pid = (*child)->pid();
  const std::optional<platform::ProcessInfo> info = platform::process_info(pid);
  if (!sees_processes()) {
    CHECK_FALSE(info);
    CHECK(platform::process_table().empty());
    return;
  }
  REQUIRE(info);
  CHECK(info->argv == std::vector<std::string>{"/bin/sh", "-c", "sleep 5", "name with spaces", ""});
  CHECK(info->parent == ::getpid());
  CHECK(fs::equivalent(info->cwd, tmp.path()));
  CHECK_FALSE(info->executable.empty());
  const std::vector<platform::ProcessLink> table = platform::process_table();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const platform::ProcessLink& l) { return l.pid == pid; });
  REQUIRE(it != table.end());
  CHECK(it->parent == ::getpid());
  CHECK(it->group == pid); // spawn gives every child a group of its own
  CHECK_FALSE(platform::process_info(999'999'999));
}

TEST_CASE("a busy group's CPU time is counted where the platform can tell", "[platform]") {
  util::SystemClock clock;
  auto child = proc::spawn({"/bin/sh", {"-c", "while :; do :; done"}, std::nullopt});
  REQUIRE(child);
  clock.sleep_ms(300);
  const std::optional<platform::GroupCpu> cpu = platform::group_cpu((*child)->pid());
  if (!sees_processes()) {
    CHECK_FALSE(cpu);
    return;
  }
  REQUIRE(cpu);
  CHECK(cpu->on_cpu_ms > 50);
  CHECK_FALSE(platform::group_cpu(999'999'999));
}

TEST_CASE("a folder watch wakes for a file written into the folder, where the platform has one", "[platform]") {
  TempDir tmp;
  util::UniqueFd watch = platform::watch_folder(tmp.path());
  if (!sees_processes()) {
    CHECK_FALSE(watch.valid());
    return;
  }
  REQUIRE(watch.valid());
  CHECK(closes_on_exec(watch.get()));
  pollfd quiet{watch.get(), POLLIN, 0};
  CHECK(::poll(&quiet, 1, 0) == 0);
  std::ofstream(tmp.path() / "state.json.tmp") << "{}";
  fs::rename(tmp.path() / "state.json.tmp", tmp.path() / "state.json");
  pollfd woke{watch.get(), POLLIN, 0};
  CHECK(::poll(&woke, 1, 2000) == 1);
  platform::drain_folder_watch(watch.get());
  pollfd again{watch.get(), POLLIN, 0};
  CHECK(::poll(&again, 1, 0) == 0);
  CHECK_FALSE(platform::watch_folder(tmp.path() / "missing").valid());
}

TEST_CASE("a file's modification time comes to the nanosecond", "[platform]") {
  TempDir tmp;
  const fs::path f = tmp.path() / "f";
  std::ofstream(f) << "x";
  const timespec times[2] = {{1'700'000'000, 123'456'789}, {1'700'000'000, 123'456'789}};
  REQUIRE(::utimensat(AT_FDCWD, f.c_str(), times, 0) == 0);
  struct stat st {};
  REQUIRE(::stat(f.c_str(), &st) == 0);
  CHECK(platform::modified_ns(st) == 1'700'000'000'123'456'789LL);
}

} // namespace test_platform
