#pragma once
// A payload's shape, for maintainers who watch the agents change (scripts/drift): its event, the names and types of
// its fields, and its failure text. Never a value a tool was given or answered: a tool's input and result are
// shown as one field each, and the failure text has its URLs and token-like words redacted.
#include <mcphealth/hook/payload.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace mcphealth::hook {

/// One JSON line: {"agent", "event", "fields": ["cwd:string", "mcp_server.source:string", ...], "error"}.
std::string payload_shape(std::string_view agent, const HookInput& input);

/// Appends payload_shape to `file` (MCPHEALTH_HOOK_CAPTURE): one write of one line, so parallel hooks do not
/// interleave. A file that cannot be written is passed over: a maintainer's tool never touches the call.
void capture_shape(const std::filesystem::path& file, std::string_view agent, const HookInput& input);

} // namespace mcphealth::hook
