#pragma once
// The gate's rules as pure functions: from what was read (the call, a cached entry, a binding, a probe's result,
// the settings in force, the clock's reading) to a plan: the lines to say, the servers to refresh off the agent's
// path, and the answer. No file, no clock, no process: gate/engine.cpp reads, probes and records through the seams
// and asks these what follows (ninja's Plan, beside its Builder).
//
// A hook reads in stages, and stops at the first that decides: the cache (the hot path), the folder's bindings,
// the configs, the probe lock, a probe. Each stage's rule is one function here; reading everything first would put
// the configs and the policy on the hot path.
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/hook/messages.hpp>
#include <mcphealth/hook/outcome.hpp>
#include <mcphealth/hook/payload.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/state/verdicts.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::gate {

/// The agent as the model's text names it.
using Voice = hook::messages::Client;

/// Whether a block gives way: fail-open mode turns every block into an allow that says so.
enum class FailOpen { no, yes };

/// A block's stderr line, as the JS hook wrote it (people grep it): what was found, what is done about it, and a
/// note after it.
struct BlockLine {
  /// How the action joins the finding: `X; skipping tool`, or `X. Blocking tool so ...`.
  enum class Join { clause, sentence };
  std::string found;
  std::string action;
  Join join = Join::clause;
  std::string after = {};
  /// What fail-open says in place of the action, when the JS hook has a line of its own for that; empty = the line
  /// as it is, and `fail-open mode is enabled: the call is allowed` after it (as the JS hook says its line).
  std::string give_way = {};
  /// The line with `act` in place of the action.
  std::string with(const std::string& act) const;
};

/// What one stage of a hook decided: lines for stderr, servers to refresh, and the answer.
struct Plan {
  /// Lines for stderr, in order, without the prefix.
  std::vector<std::string> said;
  /// Servers (as tool names spell them) of this folder to re-probe off the agent's path; empty = none.
  std::vector<std::string> refresh;
  /// Down servers of this folder to look at again off the agent's path, though their backoff has not ended (a call
  /// asked for them, and their last look is old: decide.hpp, look_again_after_ms).
  std::vector<std::string> look;
  hook::HookOutcome answer;
  /// For a block: its stderr line. A block is settled (fail-open or not) before it is carried out.
  std::optional<BlockLine> block_line;

  /// True when the answer blocks the call.
  bool blocks() const { return answer.decision == hook::HookOutcome::Decision::block; }
};

/// Allows the call; `context` (cut to k_max_model_text_bytes) is what the model is told with it.
Plan allow(const std::string& event, std::optional<std::string> context = std::nullopt);
/// Blocks the call: `line` for stderr, `for_model` (hook/messages.hpp) for the model.
Plan block(const std::string& event, BlockLine line, std::string for_model);
/// The plan as carried out under `fail_open`: a block says its line; under fail-open it gives way, and says its line
/// and that it gave way.
Plan settle(Plan plan, FailOpen fail_open);

// --- PreToolUse

/// The answer the cache gives at `now` (d = decide_from_cache's), or nothing when it decides nothing (probe).
/// A healthy mark expired by less than a TTL is allowed and refreshed; a mark in backoff blocks.
std::optional<Plan> answer_from_cache(const std::string& event, const hook::CallTarget& call, const CacheDecision& d,
                                      util::EpochMs now, const Voice& voice);

/// What the trace says of a cache decision.
std::string describe(const CacheDecision& d, const std::string& server, util::EpochMs now);

/// Allows a call to a name the agent starts no server for here (`binding` says why).
Plan allow_unbound(const std::string& event, const std::string& server, const state::Binding& binding);

/// What a probe of the definition (with its recovery) found, as the answer needs it.
struct ProbeFinding {
  hook::CallTarget call;
  probe::ProbeResult result = {};
  recover::Recovery recovery = {};
  /// The retry time the failure mark got, when it was written.
  std::optional<util::EpochMs> retry_at = std::nullopt;
  /// The verdict before the probe was unhealthy.
  bool was_unhealthy = false;
  /// For a server that cannot start: the variable it needs (`API_KEY`), or empty.
  std::string missing_variable = {};
};

/// The answer after probing: allow when it answered (or could not be probed here), block when it is down.
Plan answer_after_probe(const std::string& event, const ProbeFinding& f, util::EpochMs now, const Voice& voice);

/// A payload over the input limit (`limit` bytes): PreToolUse blocks unless fail-open (a name cut off may be an MCP
/// call); the other events record nothing. `call` is the target found before the cut, if any; `names_tool` says
/// the payload named a tool that is not an MCP call.
Plan answer_incomplete(const std::string& event_name, hook::Event event, const std::optional<hook::CallTarget>& call,
                       bool names_tool, std::size_t limit);

// --- PostToolUse

/// What a successful call changes in its server's entry: nothing (the common case: no write), the healthy mark
/// extended (it is past half its TTL), an unhealthy mark cleared, or the failed calls in a row forgotten (the
/// call that succeeded ends them; each of the others forgets them too).
enum class AfterSuccess { nothing, extend, restore, forget_failed_calls };
/// Decides it for `entry` at `now`, `ttl_ms` being the TTL a healthy mark of it gets.
AfterSuccess after_success(const state::ServerEntry& entry, util::EpochMs now, std::int64_t ttl_ms);
/// Applies it to `entry` as it stands under the lock (its own TTL first, else `ttl_ms`): the row of failed calls
/// ends, and the mark is restored or extended. Returns what it did.
AfterSuccess take_success_in(boost::json::object& entry, util::EpochMs now, std::int64_t ttl_ms);

// --- PostToolUseFailure

/// Whether a failure reading is proof that the server is in trouble: a sign in the client's own framing of the
/// failure (a row of its dialect's wordings). Generic signs (`ECONNREFUSED`, `503`, `Connection closed` amid other
/// text) are not: a tool's error may quote any words of a third party's.
bool is_proof(const hook::FailureReading& reading);

/// Whether a failed call's server is asked (probed) before it is marked, when the policy lets it be probed: a
/// remote server unless the client's framing gave the status; a stdio server when the text shows generic signs
/// only. A server that is not asked is marked only on proof.
bool ask_after_failure(const hook::FailureReading& reading, bool remote, bool probe_skipped);

/// What a probe right after a failed call said.
enum class Asked { down, up, unknown };
/// Reads the probe `asked` against the client's failure (`text`, `reading`): a down answer is laid onto `mark`.
Asked read_asked(const hook::FailureReading& reading, const std::string& text, const probe::ProbeResult& asked,
                 state::UnhealthyMark& mark);

/// What a failure mark wrote.
struct MarkWritten {
  bool written = false;
  /// The failed calls in a row it counted (gate::failed_calls_now), and the retry time it set.
  std::int64_t failed_calls = 0;
  util::EpochMs retry_at = 0;
  /// A tool's first upstream error in a row: its count noted, no mark (one failure's text proves nothing).
  bool noted_only = false;
};

/// What the model is told after a failure: restored, marked down (blocked for a time), or not recorded.
enum class FailureRecord { restored, marked, not_recorded };
Plan answer_after_failure(const std::string& event, const hook::messages::Down& down, FailureRecord record);

// --- SessionStart

/// One server of the folder, as SessionStart sees it.
struct SessionServer {
  std::string name;
  /// Its verdict, if any, and the health it means.
  std::optional<state::ServerEntry> entry = std::nullopt;
  state::Health health = state::Health::unknown;
  /// The first variable its definition needs that is not set, if any.
  std::optional<std::string> unset_variable = std::nullopt;
  /// The policy says not to probe it: nothing to refresh.
  bool skipped = false;
  /// The rules in force for its entry (cache_rules).
  CacheRules rules = {};
};

/// Refreshes every server whose mark is missing or stale, and names to the model those known to be down.
Plan plan_session_start(const std::string& event, const std::vector<SessionServer>& servers, util::EpochMs now,
                        const Voice& voice);

} // namespace mcphealth::gate
