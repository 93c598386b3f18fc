#pragma once
// The parts of the platform seam that POSIX alone provides, shared by every implementation: the portable build is
// made of these, and linux.cpp and macos.cpp use them where the OS's own way is missing or fails.
#include <mcphealth/platform/platform.hpp>

namespace mcphealth::platform::posix {

/// argv[0] as set_program_name kept it; empty before.
const std::string& program_name();

/// A program's file from its argv[0]: a name with a slash is taken as it is (against the working folder), a bare
/// name is looked up along `path_variable` as a shell would; symlinks resolved. Empty when nothing is found.
std::filesystem::path executable_from(std::string_view argv0, std::string_view path_variable);

int pipe_cloexec(int fds[2]);

/// close(2) on every descriptor from `lowest` up to the soft RLIMIT_NOFILE (at most 65,536 of them).
void close_from(int lowest);

int socket_cloexec(int family, int type, int protocol);

/// An unlinked temporary file (in $TMPDIR, else /tmp) holding `parts`, read from its start.
util::Result<util::UniqueFd> file_holding(std::initializer_list<std::string_view> parts);

/// Writes `parts` to `fd` one after another and goes back to its start; the error's words, or nothing.
std::string write_and_rewind(int fd, std::initializer_list<std::string_view> parts);

} // namespace mcphealth::platform::posix
