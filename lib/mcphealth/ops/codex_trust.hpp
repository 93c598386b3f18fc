#pragma once
// Codex CLI runs a hook only once the user has trusted it (an untrusted hook is skipped, silently in `codex exec`).
// Trust is Codex's own record (`[hooks.state."<key>"] trusted_hash` in its config.toml, the hash of the entry as
// Codex normalises it), so mcphealth asks Codex itself, the way its interactive review does: `codex app-server`,
// `hooks/list` for what it would run and whether it trusts it, `config/batchWrite` to record trust.
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// One hook Codex CLI would run in a folder.
struct CodexHook {
  /// Codex's key for it: `<file>:<event>:<group>:<index>`.
  std::string key;
  /// Its event as Codex names it in the listing (`preToolUse`).
  std::string event;
  std::string command;
  /// `trusted`, `untrusted`, `modified` (trusted once, changed since), `managed`.
  std::string trust;
  /// Codex's hash of the entry as it stands (what trusting it records).
  std::string hash;
  /// Whether the command is mcphealth's hook.
  bool ours = false;
  /// Whether this run recorded its trust.
  bool trusted_now = false;
};

/// What Codex CLI said.
struct CodexHookTrust {
  /// The program asked; empty when `codex` is not on PATH.
  std::filesystem::path program;
  std::vector<CodexHook> hooks;
  /// Why Codex could not be asked, or did not do what was asked; empty when it answered.
  std::string error;
};

/// Asks the `codex` on PATH which hooks it runs in `folder`; with `trust_ours`, first records trust for every one of
/// them that is mcphealth's hook and is not trusted yet (nothing else is touched). Waits at most 30 seconds.
CodexHookTrust codex_hook_trust(const util::Environment& env, const std::filesystem::path& folder, bool trust_ours,
                                util::Clock& clock);

/// Takes the trust records of `keys` (Codex's keys of hooks `uninstall` took out) out of Codex CLI's config.toml,
/// through `codex app-server` as its own review writes them; every other record stays. Returns why it could not,
/// or nothing.
std::string codex_forget_trust(const util::Environment& env, const std::vector<std::string>& keys, util::Clock& clock);

} // namespace mcphealth::ops
