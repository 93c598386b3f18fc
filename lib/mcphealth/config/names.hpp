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

/// Returns Qwen Code's name for a server's tool (0.24.4, packages/core/src/utils/tool-name-utils.ts):
/// `mcp__<server>__<tool>` as is when it is at most 63 UTF-16 units of `[A-Za-z][A-Za-z0-9_-]*`; otherwise every
/// other character becomes `_`, the text is cut to 55 units and `_` plus a 7-digit base-36 FNV-1a hash of the
/// *unchanged* name is appended (`my.svc` + `echo` -> `mcp__my_svc__echo_1mvuuwo`). So a renamed server's tools
/// differ from those of the server whose name it was renamed to, and only the configured names can tell them apart.
std::string qwen_tool_name(std::string_view server, std::string_view tool);

/// `text` with every UTF-16 unit outside `[A-Za-z0-9_-]` replaced by `_`, as Qwen Code replaces them.
std::string qwen_replaced(std::string_view text);

/// True when Qwen Code spells every tool of `server` with a hash (its name holds a character it replaces).
bool qwen_renames(std::string_view server);

/// A 64-bit FNV-1a hash of `text` as 16 hex digits: a cache key, not a secret-keeping digest.
std::string hash_hex(std::string_view text);

} // namespace mcphealth::config
