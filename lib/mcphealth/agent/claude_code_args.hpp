#pragma once
// What the Claude Code process a hook runs under was started with, where it decides which servers run:
// `claude --mcp-config FILE|JSON ... [--strict-mcp-config]`. Neither the payload nor the hook's environment says
// it (2.1.197); the client's own command line does, so the hook reads it (platform::process_info: Linux and macOS;
// where processes cannot be looked into, nothing).
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

/// What the Claude Code this process runs under says of itself: the nearest ancestor that is not a shell (hooks
/// run through `sh -c`), when it is `claude` and this process is a Claude Code hook (`CLAUDECODE=1`).
struct ClientProcess {
  /// Its server arguments; nothing when it was given none.
  std::optional<config::ClientArguments> args;
  /// Its version (claude_version_of); nothing when it cannot be told.
  std::optional<std::string> version;
};

/// The client this hook runs under, found by one walk up its ancestors (nothing where processes cannot be looked into).
ClientProcess client_process(const util::Environment& env);

/// The version of the Claude Code whose program is `program` (its executable, or the script Node.js runs): the
/// file's own name when the native installer's (`~/.local/share/claude/versions/2.1.332`), else the `version` of
/// the `@anthropic-ai/claude-code` package.json in a folder above it (npm's layout). Reads two small files at most.
std::optional<std::string> claude_version_of(const std::filesystem::path& program);

/// The Claude Code version whose rules apply: the client's own when the hook can see it (`seen`), else
/// `MCPHEALTH_CLAUDE_VERSION` (for `probe` from cron, which has no client to ask); nothing: not known.
std::optional<std::string> claude_version(const std::optional<std::string>& seen, const util::Environment& env);

/// Claude Code's mode from the hook's environment: it sets `CLAUDE_CODE_ENTRYPOINT=sdk-cli` for the hooks of
/// `claude -p` (seen with 2.1.197); anything else is interactive, the stricter rule.
config::DiscoveryInputs::Mode client_mode(const util::Environment& env);

} // namespace mcphealth::agent
