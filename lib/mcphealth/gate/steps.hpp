#pragma once
// The gate as a step machine, as ninja's Plan hands its Builder one edge at a time: for each event, `next(facts)`
// names the one step that follows what is known so far (a read, an effect, or the answer), and the executor
// (gate/engine.cpp) performs it, puts what it found into the facts and asks again. The executor decides nothing;
// every rule is here or in the pure functions it calls (gate/plan.hpp, gate/decide.hpp), and has a unit test on
// facts alone (tests/unit/test_steps.cpp): no file, no clock, no process.
//
// A hook reads in stages and stops at the first that decides: the cache (the hot path: the state file and a few
// stats), the folder's binding, the configs, the probe lock, a probe. So reads are steps too, each asked for only
// when a rule needs it: reading everything first would put the configs and the policy on the hot path. The
// settings a rule needs are read the same way, on first use, through RuleInputs.
#include <mcphealth/gate/lookup.hpp>
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/gate/plan.hpp>
#include <mcphealth/gate/reader.hpp>
#include <mcphealth/recover/recover.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mcphealth::gate {

/// The settings a rule may need, each read on first use: the environment's cost nothing; the server's read the
/// policy, which a cache hit never needs. Reads that write nothing, behind an interface so a rule's test gives
/// values.
/// Its server() is the call's server's: its definition's settings once found, else its name's (and the bound
/// project's); its refresh() says whether a refresher is at hand and MCPHEALTH_REFRESH is not `inline`.
class RuleInputs : public RuleSettings {
public:
  /// True when a policy entry may depend on the project: a server's settings then need its definition.
  virtual bool policy_has_project_rules() = 0;
  /// The settings of a definition of the folder (SessionStart names every one).
  virtual const config::Settings& of(const config::Candidate& c) = 0;
  /// Where the agent keeps its OAuth tokens (agent::Catalogue::credential_files): asked for when a remote server
  /// refused the agent's token.
  virtual std::vector<std::string> credential_files() = 0;
};

/// What every event's facts hold: the call being decided, the clock's reading when the step is chosen, and how
/// the model's text names the agent.
struct CallFacts {
  std::string event;
  hook::CallTarget call;
  util::EpochMs now = 0;
  Voice voice;
  /// Whether trace lines are read: a rule makes their text only then.
  bool tracing = false;
};

/// Whether the probe lock is held: not asked yet, held, not usable (the lock file cannot be used: the probe goes
/// ahead, as if it were held), or another hook's probe outlasted the wait.
enum class LockState { untried, held, unusable, timed_out };

/// What PreToolUse has found so far.
struct PreFacts {
  CallFacts c = {};
  /// A failed call the agent fired no event for (Codex CLI), once looked for, and whether it
  /// was taken as its failure event would have been.
  Lookup<hook::MissedFailure> missed = {};
  bool missed_taken = false;
  /// The state as last read (under the lock once it is held).
  std::optional<state::StateSnapshot> state = {};
  /// The folder's binding of the call's server, once looked up (none: no binding that still holds).
  Lookup<state::Binding> bound = {};
  /// The definition the configs name, once read.
  std::optional<Target> target = {};
  LockState lock = LockState::untried;
  /// The state was read again under the lock.
  bool reread = false;
  /// What the probe and its recovery found, and when it began.
  std::optional<recover::Recovery> recovery = {};
  util::EpochMs probe_began = 0;
  /// Its verdict, once recorded: the retry time of a failure mark (none: none written).
  Lookup<util::EpochMs> recorded = {};
  /// For a crash loop in its backoff that records its code files, or a server waiting for the agent's credentials
  /// to change (state::waits_for_credentials): what those files are, once stat'ed (none: no file to stat).
  Lookup<state::FilesSeen> waited_seen = {};
};

/// A failed call: from the failure event, or from the agent's own record of the session (MissedFailure).
struct FailedCall {
  std::string text = {};
  /// The call's arguments, when known: a failure about a host they name is the input's fault.
  const boost::json::object* tool_input = nullptr;
  util::EpochMs began = 0;
  /// The user interrupted the call (Esc): not the server's failure.
  bool interrupted = false;
  /// For a missed failure: when the call ended (a verdict newer than that has counted it).
  std::optional<util::EpochMs> missed_ended_at = {};
};

/// What PostToolUseFailure (or a missed failure) has found so far.
struct FailureFacts {
  CallFacts c = {};
  FailedCall failed = {};
  /// The failure's text read against the agent's wordings (hook::read_failure).
  hook::FailureReading reading = {};
  /// For a missed failure: the state and the binding, to see whether its server's verdict is newer.
  std::optional<state::StateSnapshot> state = {};
  Lookup<state::Binding> bound = {};
  /// The definition the configs name, and whether the folder was bound when it was found.
  std::optional<Target> target = {};
  bool target_bound = false;
  LockState lock = LockState::untried;
  /// The state read under the lock: a mark newer than the call is the same outage.
  std::optional<state::StateSnapshot> under_lock = {};
  /// What the server answered when asked after the failure.
  std::optional<probe::ProbeResult> asked = {};
  /// The failure mark, once written; the failed call added to the history.
  std::optional<MarkWritten> marked = {};
  bool noted = false;
  /// The reconnect and re-probe after the mark, once run; the restored verdict, once recorded.
  std::optional<recover::ReconnectReport> reconnect = {};
  bool restored = false;
};

/// What PostToolUse has found so far.
struct SuccessFacts {
  CallFacts c = {};
  std::optional<state::StateSnapshot> state = {};
  Lookup<state::Binding> bound = {};
  std::optional<Target> target = {};
  /// Whether the success was written, and restored an unhealthy mark.
  std::optional<bool> restored = {};
};

/// What SessionStart has found so far.
struct SessionFacts {
  CallFacts c = {};
  bool seen = false;
  /// The folder's configs, once bound.
  const config::Resolution* resolution = nullptr;
  std::optional<state::StateSnapshot> state = {};
};

/// The steps: each one read or one effect, performed by the executor with no choice of its own.
namespace step {
/// Read the state file; `under_lock` once the probe lock is held (the state may have changed while it waited).
struct ReadState {
  bool under_lock = false;
};
/// Look up the folder's binding of the call's server (the state as read, and a few stats).
struct ReadBinding {};
/// Read the configs for the call's definition; `bind` records the folder's bindings with it.
struct FindTarget {
  bool bind = true;
};
/// Look in the agent's record of the session for a failed call it fired no event for.
struct ReadMissedFailure {};
/// Take that missed failure as its failure event would have been (a run of the failure steps).
struct TakeMissedFailure {
  hook::MissedFailure missed;
};
/// Stat the files an entry waits on (a stat each): a crash loop's code files, or the agent's credential files.
/// When did the newest change?
struct StatWaitedFiles {
  std::vector<std::string> files;
};
/// Wait for the probe lock of `key`.
struct LockProbe {
  std::string key;
  std::int64_t wait_ms = 0;
};
/// Probe the definition through the one recovery policy.
struct ProbeAndRecover {
  recover::RecoveryRequest request;
};
/// Record a probe's verdict for the definition.
struct RecordProbe {
  const config::Candidate* candidate = nullptr;
  probe::ProbeResult result;
  std::optional<state::RestoredBy> restored_by;
  /// The reconnect command the recovery ran, kept with the verdict.
  std::optional<state::ReconnectNote> reconnect = std::nullopt;
};
/// Ask a failed call's server (a probe, no recovery).
struct AskServer {
  const config::ResolvedServer* server = nullptr;
  probe::ProbeSpec spec;
};
/// Mark a failed call's server down.
struct MarkDown {
  const config::Candidate* candidate = nullptr;
  std::string name;
  state::UnhealthyMark mark;
  std::int64_t window_ms = 0;
};
/// Add the failed call to the history.
struct NoteFailedCall {};
/// Run the reconnect command and re-probe.
struct Reconnect {
  recover::RecoveryRequest request;
  state::FailureCode code;
  /// The definition whose verdict keeps what the command did (none: a name no config defines).
  const config::Candidate* candidate = nullptr;
};
/// Take a successful call as proof of health.
struct TakeSuccess {
  std::optional<std::string> definition;
  std::int64_t ttl_ms = 0;
};
/// Record that the hook ran; bind the folder.
struct NoteSeen {};
struct BindFolder {};
/// Answer: the plan is carried out (a block settled against fail-open, its lines said, its refresh started).
struct Answer {
  Plan plan;
};
} // namespace step

/// One step, with the lines said before it is performed and what the trace reads of the rule that chose it.
struct Step {
  std::variant<step::ReadState, step::ReadBinding, step::FindTarget, step::ReadMissedFailure, step::TakeMissedFailure,
               step::StatWaitedFiles, step::LockProbe, step::ProbeAndRecover, step::RecordProbe, step::AskServer,
               step::MarkDown, step::NoteFailedCall, step::Reconnect, step::TakeSuccess, step::NoteSeen,
               step::BindFolder, step::Answer>
      what;
  std::vector<std::string> said = {};
  std::vector<std::string> traced = {};

  /// The answer, when this step is the last.
  const Plan* answer() const {
    const auto* a = std::get_if<step::Answer>(&what);
    return a ? &a->plan : nullptr;
  }
};

/// The next step of each event, from what its facts hold.
Step next(const PreFacts& f, RuleInputs& in);
Step next(const FailureFacts& f, RuleInputs& in);
Step next(const SuccessFacts& f, RuleInputs& in);
Step next(const SessionFacts& f, RuleInputs& in);

/// The cache's answer for `entry` under the rules in force (reading only the settings that entry needs), or
/// nothing: probe. `waited_seen`: what the files the entry waits on are, once stat'ed. `traced` receives
/// the cache's reading when tracing.
std::optional<Plan> answer_cached(const CallFacts& c, const boost::json::object* entry, RuleInputs& in,
                                  std::vector<std::string>& traced,
                                  const std::optional<state::FilesSeen>& waited_seen = std::nullopt);

} // namespace mcphealth::gate
