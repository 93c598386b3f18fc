#pragma once
// Codex CLI runs a hook only once the user has trusted it (an untrusted hook is skipped, silently in `codex exec`).
// Trust is Codex's own record (`[hooks.state."<key>"] trusted_hash` in its config.toml, the hash of the entry as
// Codex normalises it), so mcphealth asks Codex itself, the way its interactive review does: `codex app-server`,
// `hooks/list` for what it would run and whether it trusts it, `config/batchWrite` to record trust.
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <optional>
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
  /// Whether the command is mcphealth's hook (by its words: a repository's own entry can look like one).
  bool ours = false;
  /// Whether it is exactly the entry install wrote: its command, in the file install wrote (CodexEntries).
  bool written = false;
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

/// The hook entries mcphealth itself wrote: one command, in one file.
struct CodexEntries {
  std::filesystem::path file;
  std::string command;
  /// Whether Codex's key (`<file>:<event>:<group>:<index>`) names an entry of `file`.
  bool in_file(const std::string& key) const;
  /// Whether Codex's key and command name one of these entries.
  bool match(const std::string& key, const std::string& listed_command) const {
    return listed_command == command && in_file(key);
  }
};

/// Whether to record trust, and for what.
enum class TrustWritten { no, yes };

/// Asks the `codex` on PATH which hooks it runs in `folder`, marking those that are `written`; with
/// TrustWritten::yes, first records trust for each of those not trusted yet. Nothing else is ever trusted: a
/// repository's own `.codex/hooks.json` entry that runs `./tools/mcphealth hook` is the repository's program, not
/// ours. Waits at most 30 seconds.
CodexHookTrust codex_hook_trust(const util::Environment& env, const std::filesystem::path& folder,
                                const std::optional<CodexEntries>& written, TrustWritten trust, util::Clock& clock);

/// Takes the trust records of `keys` (Codex's keys of hooks `uninstall` took out) out of Codex CLI's config.toml,
/// through `codex app-server` as its own review writes them; every other record stays. Returns why it could not,
/// or nothing.
std::string codex_forget_trust(const util::Environment& env, const std::vector<std::string>& keys, util::Clock& clock);

} // namespace mcphealth::ops
