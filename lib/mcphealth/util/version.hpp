#pragma once
// The version, from the project's CMake version, defined in one file so a new version rebuilds one file.
#include <string_view>

namespace mcphealth::util {

/// `0.1.0`: in `--version`, the MCP clientInfo and the HTTP User-Agent.
std::string_view version();

} // namespace mcphealth::util
