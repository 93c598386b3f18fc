#pragma once
// Text helpers every layer uses: trimming, cutting to a byte budget without splitting a character, and making text
// from outside safe to print on one line.
#include <cstddef>
#include <string>
#include <string_view>

namespace mcphealth::util {

/// Cuts `text` to at most `max_bytes` bytes without splitting a UTF-8 sequence.
std::string cap_utf8(std::string_view text, std::size_t max_bytes);

/// Removes leading and trailing white space.
std::string trim(std::string_view text);

/// Returns `text` with every control character written as an escape (`\n`, `\r`, `\t`, `\x1b`, ...), so a name or
/// an error from outside can never split a log line or drive a terminal.
std::string escape_control(std::string_view text);

} // namespace mcphealth::util
