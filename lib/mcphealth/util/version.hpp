#pragma once
// The version, from the project's CMake version, defined in one file so a new version rebuilds one file.
#include <string_view>

namespace mcphealth::util {

/// `0.1.0`: in `--version`, the MCP clientInfo and the HTTP User-Agent.
std::string_view version();

/// The commit it was built from, 12 hex digits (`--version -v`, `doctor`), or `unknown`.
std::string_view commit();

} // namespace mcphealth::util
