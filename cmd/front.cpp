// bin/mcphealth, the front: what an agent's hook runs before every MCP tool call, so what must start at the cost of a
// process start. It is linked static (no dynamic loader, no shared library to map or relocate) and holds the hook's
// engine with read-only seams (hook_run.hpp): a cache hit, or a tool that is not MCP's, is answered here, and so is
// the status line (`status --statusline`, which runs on every prompt). Every other command, and every call that
// needs a probe, a write or a lock, goes to the full binary, libexec/mcphealth/mcphealth-full, which this process
// becomes (execv), with the payload it read on its stdin.
#include "hook_run.hpp"
#include "statusline.hpp"

#include <mcphealth/ops/install.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/text.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <variant>

namespace {

using mcphealth::cli::hook_log_line;
using mcphealth::cli::HookHandOff;

/// Puts `payload` on stdin, where the full binary reads it as if the agent had sent it (platform::file_holding). A
/// cut payload gets one byte more, past the input limit, so the full binary finds it cut too. Returns an error's
/// words, or nothing.
std::string payload_on_stdin(const HookHandOff& payload) {
  auto file = mcphealth::platform::file_holding({payload.raw, payload.cut ? std::string_view(" ") : std::string_view()});
  if (!file) return file.error().message;
  if (::dup2(file->get(), STDIN_FILENO) < 0) return std::string("dup2: ") + std::strerror(errno);
  return {};
}

/// Becomes the full binary with the same arguments; returns only when that failed, with why.
std::string become_full_binary(char** argv) {
  mcphealth::platform::set_program_name(argv[0]);
  const std::string self = mcphealth::platform::own_executable().string();
  if (self.empty()) return "its own path cannot be told";
  const std::string slash = self.substr(0, self.rfind('/') + 1);
  const std::string full = slash + std::string(mcphealth::ops::k_full_binary_from_front);
  ::setenv(mcphealth::ops::k_front_variable, self.c_str(), 1);
  ::execv(full.c_str(), argv);
  return full + ": " + std::strerror(errno);
}

/// The hook could not reach the full binary: the call is allowed, as every accident allows it, and the reason said.
int allow_without_full_binary(const std::string& why, bool passthrough) {
  hook_log_line("cannot start the rest of mcphealth (" + why +
                "; it is installed beside bin/mcphealth, as libexec/mcphealth/mcphealth-full); allowing the call");
  // Read to the end, as the hook always does: an agent still writing the payload must not meet a closed pipe. The
  // payload echoed is passthrough's allow.
  char buf[65536];
  ssize_t n;
  while ((n = ::read(STDIN_FILENO, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0 && passthrough) mcphealth::cli::write_all(STDOUT_FILENO, std::string_view(buf, static_cast<std::size_t>(n)));
  }
  return 0;
}

/// Whether the command line asks for the hook, after any root options (`mcphealth --state F hook ...`).
bool asks_for_the_hook(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--state" || arg == "--config" || arg == "--policy") {
      ++i; // its value
      continue;
    }
    if (!arg.empty() && arg.front() == '-') continue;
    return arg == "hook";
  }
  return false;
}

} // namespace

// The front's answer to util::passwd_home(), in place of lib's (util/passwd.cpp), which would link glibc's NSS into
// a static binary: the front never runs without HOME (main hands such a run on), so it is never asked.
std::optional<std::string> mcphealth::util::passwd_home() { return std::nullopt; }

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  // Without HOME the state file's place comes from the passwd database, which a static binary should not read.
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    if (const auto plain = mcphealth::cli::plain_hook_command(argc, argv)) {
      auto result = mcphealth::cli::run_hook_within(*plain, {}, nullptr);
      if (const int* code = std::get_if<int>(&result)) return *code;
      if (std::string why = payload_on_stdin(std::get<HookHandOff>(result)); !why.empty())
        return allow_without_full_binary("the payload cannot be handed on: " + why, false);
      return allow_without_full_binary(become_full_binary(argv), false);
    }
  }
  // The status line, as install registers it: it runs on every prompt.
  if (home != nullptr && *home != '\0' && argc == 3 && std::string_view(argv[1]) == "status" &&
      std::string_view(argv[2]) == "--statusline") {
    if (const auto line = mcphealth::cli::status_line_of({}, std::nullopt, {})) {
      mcphealth::cli::write_all(STDOUT_FILENO, mcphealth::util::escape_control(line->text) + "\n");
      return line->any_down ? mcphealth::cli::k_exit_unhealthy : mcphealth::cli::k_exit_ok;
    }
    // Which problem it is, the full binary says.
  }
  const std::string why = become_full_binary(argv);
  if (asks_for_the_hook(argc, argv)) {
    bool passthrough = false;
    for (int i = 2; i < argc; ++i) passthrough = passthrough || std::strstr(argv[i], "passthrough") != nullptr;
    return allow_without_full_binary(why, passthrough);
  }
  std::fprintf(stderr,
               "mcphealth: cannot start the rest of mcphealth (%s). mcphealth is two files: bin/mcphealth and, beside "
               "it, libexec/mcphealth/mcphealth-full; `cmake --install` puts both in place\n",
               why.c_str());
  return 127;
}
