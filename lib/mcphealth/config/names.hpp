#pragma once
// How Claude Code spells a server in tool names (`mcp__<server>__<tool>`), and a stable hash for stamps and
// fingerprints.
#include <cstdint>
#include <string>
#include <string_view>

namespace mcphealth::config {

/// Returns `name` as it appears in tool names: every character outside `[A-Za-z0-9_-]` replaced by `_`
/// (`claude.ai Gmail` -> `claude_ai_Gmail`).
std::string tool_server_name(std::string_view name);

/// Returns a plugin server's name in tool names: `plugin_<plugin>_<server>`, normalized as above.
std::string plugin_tool_server_name(std::string_view plugin, std::string_view server);

/// A 64-bit FNV-1a hash of `text` as 16 hex digits: a cache key, not a secret-keeping digest.
std::string hash_hex(std::string_view text);

} // namespace mcphealth::config
