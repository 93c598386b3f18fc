#pragma once
// What the Claude Code process a hook runs under was started with, where it decides which servers run:
// `claude --mcp-config FILE|JSON ... [--strict-mcp-config]`. Neither the payload nor the hook's environment says
// it (2.1.197); the client's own command line does, so the hook reads it from /proc (Linux; elsewhere nothing).
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::agent {

/// Reads a client's arguments (argv without argv[0]) the way its option parser does: `--mcp-config` takes every
/// following value up to the next option (`--mcp-config A B`), or one joined with `=`.
config::ClientArguments parse_client_arguments(const std::vector<std::string>& args, std::filesystem::path cwd);

/// The server arguments of the Claude Code this process runs under: the nearest ancestor that is not a shell
/// (hooks run through `sh -c`), when it is `claude` and this process is a Claude Code hook (`CLAUDECODE=1`).
/// Nothing when it cannot be told, or when it was given none.
std::optional<config::ClientArguments> client_arguments(const util::Environment& env);

/// Claude Code's mode from the hook's environment: it sets `CLAUDE_CODE_ENTRYPOINT=sdk-cli` for the hooks of
/// `claude -p` (seen with 2.1.197); anything else is interactive, the stricter rule.
config::DiscoveryInputs::Mode client_mode(const util::Environment& env);

} // namespace mcphealth::agent
