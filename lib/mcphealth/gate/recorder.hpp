#pragma once
// Every write one hook run makes, and nothing else: a verdict, a failure mark, a successful call's proof, the
// folder's bindings, the history's lines, the probe lock, the policy problem said. The Reader (gate/reader.hpp)
// reads; the engine performs the steps of gate/steps.hpp with both. The front's read-only run refuses every one of
// these through its one seam (cmd/hook_run.cpp): a call that needs any of them is handed to the full binary.
#include <mcphealth/gate/reader.hpp>

#include <optional>
#include <string>

namespace mcphealth::gate {

class Recorder {
public:
  explicit Recorder(Reader& reader) : m_reader(reader) {}

  /// Writes through the state's one writer; says on stderr what went wrong. True when written.
  /// Every write also records that this agent's hook ran (state::note_hook_seen).
  bool update_state(const state::Mutator& mutate, const state::Touches& touches,
                    std::int64_t lock_wait_ms = state::k_lock_wait_ms);
  /// Records that this agent's hook ran, with a write of its own (a session start, which may write nothing else).
  void note_seen();
  /// Adds a blocked call of `call`'s server to the history, of the definition `about` binds when known; nothing
  /// for an allow.
  void note_blocked(const std::optional<hook::CallTarget>& call, const std::optional<state::Binding>& about,
                    const hook::HookOutcome& answer);
  /// Adds a failed call of `call`'s server to the history: one the server's outage failed (not a tool's own
  /// error), which the model read. `text` is the failure as the agent gave it.
  void note_failed_call(const hook::CallTarget& call, const std::optional<state::Binding>& about,
                        const std::string& text);
  /// When the policy was read and is not valid: says so once per change of the file (its stamp is remembered in
  /// the state file). Called once, at the end of the run.
  void say_policy_problem();

  /// Reads the configs and records what every name means in this folder (and `extra`: a call's binding, which may
  /// be a name nothing defines, or the definition the client names), adopting an undistinguished entry for a winner.
  const config::Resolution& bind_folder(const ExtraBinding& extra = std::nullopt);
  /// Records a probe's verdict for `c`; returns the retry time it wrote (for a failure), when it was written.
  std::optional<util::EpochMs> record(const config::Candidate& c, const probe::ProbeResult& result,
                                     std::optional<state::RestoredBy> by,
                                     const std::optional<state::ReconnectNote>& reconnect);
  /// Keeps what a reconnect command did with `c`'s verdict (its `lastReconnect`), changing nothing else.
  void note_reconnect(const config::Candidate& c, const state::ReconnectNote& note);
  /// Marks a failed call's server down: its definition's verdict (`c`), or the name's when nothing defines it. The
  /// failed calls in a row are counted under the lock from the entry as it stands, within `window_ms`.
  /// For a tool's upstream error (mark.upstream) only the second failed call in a row marks; the first is noted
  /// (state::note_failed_call, MarkWritten::noted_only), decided under the lock from the entry as it stands.
  MarkWritten mark_down(const config::Candidate* c, const std::string& name, state::UnhealthyMark mark,
                        std::int64_t window_ms);
  /// Takes a successful call as proof of health (gate::take_success under the lock); true when it restored an
  /// unhealthy mark. `ttl_ms` is the TTL for an entry that carries none.
  bool take_success(const hook::CallTarget& call, const std::optional<std::string>& definition, std::int64_t ttl_ms);
  /// Takes the probe lock of `key` (a definition's fingerprint, or a name), waiting at most `wait_ms`.
  util::Result<util::RecordLock, util::LockError> lock_probe(const std::string& key, std::int64_t wait_ms);

private:
  Reader& m_reader;
};

} // namespace mcphealth::gate
