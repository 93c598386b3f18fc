#pragma once
// The few facts about Codex CLI that its hook trust (agent/codex_trust.cpp) needs besides the agent itself.
#include <mcphealth/agent/trust.hpp>
#include <mcphealth/hook/payload.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/files.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::agent {

/// Codex CLI's hook trust, asked of Codex itself through `codex app-server` (agent/codex_trust.cpp).
class CodexTrust final : public HookTrust {
public:
  TrustListing list(const util::Environment& env, const std::filesystem::path& folder,
                    const std::optional<HookEntries>& written, TrustWritten trust, util::Clock& clock) const override;
  std::string forget(const util::Environment& env, const std::vector<std::string>& keys,
                     util::Clock& clock) const override;
  std::string by_hand(const std::filesystem::path& folder) const override;
  std::string record_name() const override;
};

/// `$CODEX_HOME`, else `~/.codex`: where the user's config.toml and hooks.json are.
std::filesystem::path codex_home(const util::Environment& env);

/// A server's name as Codex CLI spells it in tool names: every character outside `[A-Za-z0-9_]` becomes `_`
/// (`my-svc.v2` -> `my_svc_v2`).
std::string codex_tool_server(std::string_view name);

/// The last call to `server` (its name as tool names spell it) in a Codex CLI rollout file, when it failed: read
/// from the file's last `max_bytes` only (a session's record grows all day). Codex 0.171.0 records each MCP call as
/// an `event_msg` line whose payload is `item_completed` with an `McpToolCall` item: `server`, `status`
/// (`completed`, `failed`), `error.message`, `duration`; the line's `timestamp` is when it ended.
std::optional<hook::MissedFailure> last_failure_in_rollout(const std::filesystem::path& file, std::string_view server,
                                                           std::size_t max_bytes = 256 * 1024);

/// The project `dir` belongs to for Codex CLI: the nearest folder at or above it holding `.git`, else `dir`.
std::filesystem::path codex_project_root(const std::filesystem::path& dir, util::FileReader& reader);

} // namespace mcphealth::agent
