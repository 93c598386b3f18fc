#pragma once
// What the cache says about a call, as a pure function of the entry, the clock's reading and the rules in force:
// no file, no clock, no process. The rules of gate/steps.hpp read it: answer, probe, or start a refresh.
#include <mcphealth/config/settings.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace mcphealth::gate {

/// Whether a stale healthy mark may be refreshed off the agent's path (a detached refresh) or must be probed now.
enum class Refresh { inline_probe, background };

/// The rules a cache decision needs, as values.
struct CacheRules {
  /// The most a nextRetryAt is honoured past its check (state::retry_bound); 0 for a healthy entry, which needs none.
  std::int64_t retry_bound_ms = 0;
  /// The TTL of a healthy mark that does not carry its own.
  std::int64_t default_ttl_ms = 0;
  /// The TTL in force for a healthy mark: none is fresh longer past its check (state::outlook_of); 0 = unbounded.
  std::int64_t ttl_bound_ms = 0;
  Refresh refresh = Refresh::background;
  /// How long after its last look a down server a call still asks for is looked at again (look_again_after_ms);
  /// 0 = wait out the backoff.
  std::int64_t look_again_ms = 0;
  /// When the newest of the files the entry waits on last changed, once looked at: a crash loop's code files
  /// (state::ServerEntry::code_files), or the agent's credential files (credential_files).
  std::optional<state::FilesSeen> waited_seen;
};

/// The settings an entry's rules are made from, each read on first use: a healthy hit asks for none.
class RuleSettings {
public:
  virtual ~RuleSettings() = default;
  /// The environment's settings (and the command line's), without the policy.
  virtual const config::Settings& environment() = 0;
  /// The entry's server's settings: the environment's with its policy entries laid over them.
  virtual const config::Settings& server() = 0;
  /// Whether a stale healthy mark may be refreshed off the agent's path.
  virtual Refresh refresh() = 0;
};

/// Settings already resolved: what status, watch, refresh and SessionStart hand cache_rules.
class ResolvedRuleSettings final : public RuleSettings {
public:
  ResolvedRuleSettings(const config::Settings& environment, const config::Settings& server, Refresh refresh)
      : m_environment(environment), m_server(server), m_refresh(refresh) {}
  const config::Settings& environment() override { return m_environment; }
  const config::Settings& server() override { return m_server; }
  Refresh refresh() override { return m_refresh; }

private:
  const config::Settings& m_environment;
  const config::Settings& m_server;
  Refresh m_refresh;
};

/// The rules in force for one entry (its TTL bound, its retry bound, when a call's look is due): the one
/// composition every reader uses, the hook, SessionStart, status, watch and refresh alike. `waited_seen` is
/// a fact, not a rule: the caller sets it.
CacheRules cache_rules(const state::ServerEntry* entry, RuleSettings& in);

/// The entry's outlook under `rules` (state::outlook_of with their bounds).
inline state::Outlook outlook_under(const state::ServerEntry& e, util::EpochMs now, const CacheRules& rules) {
  return state::outlook_of(e, now, rules.retry_bound_ms, rules.ttl_bound_ms);
}

/// How long after its last look a down server is looked at again when a call asks for it: the base backoff, within
/// 2 to 10 seconds. The backoff bounds what probing a server nobody calls costs; a server calls keep asking for is
/// seen back within this long of its recovery (issue 38 item 6), at one probe per this long while it is called.
inline std::int64_t look_again_after_ms(std::int64_t backoff_ms) {
  return std::clamp<std::int64_t>(backoff_ms, 2'000, 10'000);
}

/// How long after its last look a down server a call asks for is looked at again, its looks paid for in CPU: the
/// base backoff's spacing (look_again_after_ms), or, when a start of it is known to cost `look_cpu_ms`, as far
/// apart as keeps that under `share_percent` of one core (2 by default: config::Settings::look_cpu_percent),
/// whichever is longer. Unknown (the portable build, an HTTP server): the base spacing.
inline std::int64_t look_spacing_ms(std::int64_t backoff_ms, std::optional<std::int64_t> look_cpu_ms,
                                    std::int64_t share_percent = config::k_default_look_cpu_percent);

/// What to do.
enum class CacheVerdict {
  no_entry,            // nothing cached: decide by probing
  allow,               // healthy and fresh
  block_down,          // unhealthy, its retry not come
  block_misconfigured, // cannot start (a variable is unset), its retry not come
  allow_and_refresh,   // healthy, expired by less than one TTL: allow now, re-probe in the background
  probe,               // retry due, expired too long ago, or a status that decides nothing
};

/// The decision, with what it was made from.
struct CacheDecision {
  CacheVerdict verdict = CacheVerdict::no_entry;
  state::ServerEntry entry;
  state::Outlook outlook;
  /// For a block: the entry's nextRetryAt is further out than any backoff writes, and is honoured only until
  /// `outlook.retry_at`.
  bool retry_capped = false;
  /// For block_misconfigured: the variable its last error names (`API_KEY`), or empty.
  std::string missing_variable;
  /// For block_down: a probe found the server refusing the credentials its definition sends (read only for a
  /// block: a cache hit never looks at the entry's probe details).
  bool credentials_refused = false;
  /// For block_down (a look in the background) or probe (a look now, when refreshes are inline): the server is in
  /// its backoff, but its last look is older than CacheRules::look_again_ms, and a look can tell (worth_a_look).
  bool look_again = false;
  /// For probe: a crash loop in its backoff, whose code files changed since it was last checked (code_changed).
  bool code_changed = false;
  /// For allow: a breaker's retry has come (a crash loop, an upstream outage): the call is its trial, let through
  /// without a probe (its handshake passes whatever its calls do). The call's own result decides: a success
  /// restores it (PostToolUse), a failure marks one more and backs off further.
  bool trial_call = false;
  /// For allow: a server that refused the agent's token, whose credential files changed since
  /// (state::credentials_changed).
  bool credentials_changed = false;
};

/// True when a probe of kind `kind` that recorded `code` found the server refusing the credentials its definition
/// sends: an authentication status recorded as down (`http-status`), not as waiting for a login (`needs-auth`).
bool refuses_credentials(std::optional<probe::Kind> kind, const state::FailureCode& code);

using state::fails_on_calls;

/// True when looking at a down server before its backoff ends can tell anything: not a crash loop (a look sees only
/// its handshake), not a kind that waits for the server's Retry-After (a look would spend the rate limit), and not
/// a server that waits for the agent's credentials (a look carries no token: the stat of their file is its look).
bool worth_a_look(const state::ServerEntry& e);

/// True when a check of `e` at `now` is a look, not its retry: it is down and its backoff has not ended. A look runs
/// no reconnect (the backoff paces restarts), and one that finds it still down counts no failure.
bool is_a_look(const state::ServerEntry& e, util::EpochMs now);

/// A look is due once this share of its period has passed since the last one: calls that come as often as the
/// period, a few milliseconds early or late, each find one due (at exactly the period, a call 20 ms early waited
/// for the next, and a server back 1 s after a look was blocked for two calls, not one).
inline constexpr std::int64_t k_look_due_percent = 75;

/// True when `e` is a crash loop (fails_on_calls) in its backoff that a call should try at once, because one of
/// the files its code and settings are read from changed at `changed_at`, after its last check: a fix deployed.
/// A look sees only its handshake, which passed all along; a change of its code is the one thing that says the
/// next call may not fail, short of a call (issue 38 item 1: a crash loop that gets fixed).
bool code_changed(const state::ServerEntry& e, util::EpochMs now, const std::optional<state::FilesSeen>& seen);

/// True when a look at `e` is due at `now`: it is in its backoff, worth a look, and last looked at
/// k_look_due_percent of `look_ms` ago or more (`look_ms` 0: never).
bool look_due(const state::ServerEntry& e, util::EpochMs now, std::int64_t look_ms);

inline std::int64_t look_spacing_ms(std::int64_t backoff_ms, std::optional<std::int64_t> look_cpu_ms,
                                    std::int64_t share_percent) {
  const std::int64_t base = look_again_after_ms(backoff_ms);
  if (!look_cpu_ms || *look_cpu_ms <= 0 || share_percent <= 0) return base;
  // A look is due at k_look_due_percent of its period: the period is set so that the looks that come that early
  // still keep to the share (a start of 0.5 s: a period of 33.3 s, looks every 25 s at most, 2% of a core).
  const std::int64_t cpu = std::min<std::int64_t>(*look_cpu_ms, 3'600'000);
  return std::max(base, cpu * 100 * 100 / (std::min<std::int64_t>(share_percent, 100) * k_look_due_percent));
}

/// True when `e` was found down by a look or probe less than k_look_due_percent of `look_ms` before `now` (its
/// backoff may be over): a probe now would only say so again, so a recovery due reconnects first and probes once
/// (recover::RecoveryRequest::known_down). Not a crash loop: its handshake passes, so it was never seen down.
bool seen_down_lately(const state::ServerEntry& e, util::EpochMs now, std::int64_t look_ms);

/// The check of a definition whose entry is `previous` (nothing cached: nullptr) at `now`, under `s`: a look (the
/// entry in its backoff) runs no reconnect; a recovery due for a server seen down lately reconnects first and probes
/// once. The hook's probe and `refresh` both check through it.
recover::RecoveryRequest recovery_request(const config::Candidate& c, const config::Settings& s,
                                          const boost::json::object* previous, util::EpochMs now);

/// Decides from `entry` (nothing cached: nullptr) at `now`.
CacheDecision decide_from_cache(const boost::json::object* entry, util::EpochMs now, const CacheRules& rules);

/// The failed calls in a row a call failing at `now` makes for a server whose entry is `before`: one more when
/// the last one failed within `window_ms` (a backoff cap and a TTL: the gap a blocked, re-probed, called-again
/// crash loop leaves), else this one alone. A passing handshake between never clears them; a call that succeeds
/// does (PostToolUse).
std::int64_t failed_calls_now(const state::ServerEntry& before, util::EpochMs now, std::int64_t window_ms);

/// True when a failure's reading is a tool's upstream error: outage words (429, 503, another 5xx, a connection
/// refused or reset) in a text the client did not frame, so not proof of the server's own failure.
bool upstream_error(const hook::FailureReading& reading);

/// The fixed words an upstream outage is recorded and shown with, never the tool's own text: "its last 2 calls
/// failed with an upstream error (HTTP 503)".
std::string upstream_reason(std::int64_t failed_calls, const state::FailureCode& code);

/// The window failed_calls_now counts a row of failed calls in under `s`: the longest backoff a crash loop's trial
/// waits (its own cap) and a TTL.
inline std::int64_t failed_call_window_ms(const config::Settings& s) {
  return config::crash_loop_cap_ms(s) + s.ttl_ms.value;
}

using state::crash_loop;
using state::k_crash_loop_calls;

} // namespace mcphealth::gate
