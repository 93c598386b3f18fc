#pragma once
// Diagnostics for people (`-v`), kept apart from the hook's `[MCPHealthCheck]` contract lines and from results on
// stdout. spdlog lives in one translation unit and is only set up on the first message, so a quiet hook run
// never pays for it.
#include <string_view>

namespace mcphealth::util::log {

/// How much to say: 0 warnings only, 1 info, 2 and more debug with time and level.
void configure(int verbosity);

/// A debug message (shown with -vv).
void debug(std::string_view message);
/// An informational message (shown with -v).
void info(std::string_view message);
/// A warning (always shown).
void warn(std::string_view message);
/// An error (always shown).
void error(std::string_view message);

} // namespace mcphealth::util::log
