#pragma once
// Hook trust: an agent that runs a newly registered hook only once the user has trusted it (Codex CLI) keeps that
// trust as its own record, which only the agent itself can write. Exists so `install`, `uninstall` and
// `explain-config` ask any such agent one set of questions through its registration (Registration::trust()), and
// no command calls an agent by name. Codex CLI's answer is agent/codex_trust.cpp.
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace mcphealth::agent {

/// One hook the agent would run in a folder, as the agent itself lists it.
struct ListedHook {
  /// The agent's key for it (Codex: `<file>:<event>:<group>:<index>`).
  std::string key;
  /// The hook file it is registered in.
  std::filesystem::path file;
  /// Its event as the agent names it in the listing (`preToolUse`).
  std::string event;
  std::string command;
  /// `trusted`, `untrusted`, `modified` (trusted once, changed since), `managed`.
  std::string trust;
  /// Whether the command is mcphealth's hook (by its words: a repository's own entry can look like one).
  bool ours = false;
  /// Whether it is exactly an entry install wrote (HookEntries).
  bool written = false;
  /// Whether this run recorded its trust.
  bool trusted_now = false;
  /// True when the agent trusts it.
  bool trusted() const { return trust == "trusted"; }
};

/// What the agent said.
struct TrustListing {
  /// The program asked; empty when it is not on PATH.
  std::filesystem::path program;
  std::vector<ListedHook> hooks;
  /// Why the agent could not be asked, or did not do what was asked; empty when it answered.
  std::string error;
};

/// The hook entries mcphealth itself wrote: one command, in one file.
struct HookEntries {
  std::filesystem::path file;
  std::string command;
  /// Whether a listed hook is registered in `file` (the same file by another path too).
  bool in_file(const ListedHook& hook) const {
    std::error_code ec;
    return !hook.file.empty() && (hook.file == file || std::filesystem::equivalent(hook.file, file, ec));
  }
  /// Whether a listed hook is one of these entries: `command`, in `file`.
  bool match(const ListedHook& hook) const { return hook.command == command && in_file(hook); }
};

/// Whether to record trust, and for what.
enum class TrustWritten { no, yes };

/// An agent's own record of which hooks it trusts.
class HookTrust {
public:
  virtual ~HookTrust() = default;
  /// Asks the agent which hooks it runs in `folder`, marking those that are `written`; with TrustWritten::yes, first
  /// records trust for each of those not trusted yet. Nothing else is ever trusted: a repository's own entry that
  /// runs `./tools/mcphealth hook` is the repository's program, not ours.
  virtual TrustListing list(const util::Environment& env, const std::filesystem::path& folder,
                            const std::optional<HookEntries>& written, TrustWritten trust, util::Clock& clock) const = 0;
  /// Takes the trust records of `keys` (hooks `uninstall` took out) out of the agent's record; every other record
  /// stays. Returns why it could not, or nothing.
  virtual std::string forget(const util::Environment& env, const std::vector<std::string>& keys,
                             util::Clock& clock) const = 0;
  /// What the user does by hand to trust mcphealth's hooks in `folder`.
  virtual std::string by_hand(const std::filesystem::path& folder) const = 0;
  /// Where the agent keeps the record, for messages: `config.toml`.
  virtual std::string record_name() const = 0;
};

} // namespace mcphealth::agent
