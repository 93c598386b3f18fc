#include <mcphealth/gate/decide.hpp>

#include <mcphealth/state/health.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::gate {

bool refuses_credentials(std::optional<probe::Kind> kind, const state::FailureCode& code) {
  return kind == probe::Kind::http_status && state::row_of(code).advice == state::Advice::authenticate;
}

bool worth_a_look(const state::ServerEntry& e) {
  return !fails_on_calls(e) && state::row_of(e.last_failure_code).retry != state::RetryTiming::retry_after &&
         !state::waits_for_credentials(e);
}

bool is_a_look(const state::ServerEntry& e, util::EpochMs now) {
  return e.unhealthy() && e.next_retry_at.value_or(0) > now;
}

bool code_changed(const state::ServerEntry& e, util::EpochMs now, const std::optional<state::FilesSeen>& seen) {
  return seen && !e.code_files.empty() && fails_on_calls(e) && is_a_look(e, now) && state::files_changed(e, *seen);
}

namespace {
/// True when `e` was last checked k_look_due_percent of `look_ms` ago or more: its last look is old.
bool last_look_old(const state::ServerEntry& e, util::EpochMs now, std::int64_t look_ms) {
  return e.checked_at && (now - *e.checked_at) * 100 >= look_ms * k_look_due_percent;
}
} // namespace

bool look_due(const state::ServerEntry& e, util::EpochMs now, std::int64_t look_ms) {
  return look_ms > 0 && is_a_look(e, now) && last_look_old(e, now, look_ms) && worth_a_look(e);
}

bool seen_down_lately(const state::ServerEntry& e, util::EpochMs now, std::int64_t look_ms) {
  return e.unhealthy() && !fails_on_calls(e) && e.checked_at && !last_look_old(e, now, look_ms);
}

recover::RecoveryRequest recovery_request(const config::Candidate& c, const config::Settings& s,
                                          const boost::json::object* previous, util::EpochMs now) {
  const std::optional<state::ServerEntry> e =
      previous ? std::optional(state::ServerEntry::from_json(*previous)) : std::nullopt;
  const bool look = e && is_a_look(*e, now);
  recover::RecoveryRequest request =
      recover::request_for(c, s, previous, look ? recover::Reconnect::never : recover::Reconnect::when_down);
  request.known_down = e && !look && seen_down_lately(*e, now, look_spacing_ms(s.backoff_ms.value, e->look_cpu_ms, s.look_cpu_percent.value));
  return request;
}

CacheRules cache_rules(const state::ServerEntry* e, RuleSettings& in) {
  CacheRules rules;
  // The retry bound and the look need the server's settings; a healthy entry (the common hit) does not.
  if (e && e->unhealthy()) {
    const config::Settings& s = in.server();
    rules.retry_bound_ms = state::retry_bound(state::longest_backoff(s.max_backoff_ms.value, config::crash_loop_cap_ms(s)));
    rules.look_again_ms = look_spacing_ms(s.backoff_ms.value, e->look_cpu_ms, s.look_cpu_percent.value);
  }
  rules.refresh = in.refresh();
  const std::optional<std::int64_t> claimed = e ? e->ttl_ms() : std::nullopt;
  if (e && rules.refresh == Refresh::background && !claimed) {
    rules.default_ttl_ms = in.environment().ttl_ms.value; // a mark mcphealth wrote carries its own TTL
  }
  // A healthy mark is fresh no longer past its check than the TTL in force. The common hit, a mark that claims no
  // more than the default TTL, needs no settings for that; a longer claim is held to the environment's TTL, or
  // the server's (its policy's) when the mark claims more still (a policy may give a server a longer one).
  if (e && e->healthy() && (!claimed || *claimed > config::k_default_ttl_ms)) {
    rules.ttl_bound_ms = in.environment().ttl_ms.value;
    if (claimed && *claimed > rules.ttl_bound_ms) rules.ttl_bound_ms = in.server().ttl_ms.value;
  }
  return rules;
}

CacheDecision decide_from_cache(const boost::json::object* entry, util::EpochMs now, const CacheRules& rules) {
  CacheDecision d;
  if (entry == nullptr) return d;
  d.entry = state::ServerEntry::from_json(*entry);
  d.outlook = state::outlook_of(d.entry, now, rules.retry_bound_ms, rules.ttl_bound_ms);
  if (state::credentials_changed(d.entry, rules.waited_seen)) {
    d.verdict = CacheVerdict::allow;
    d.credentials_changed = true;
    return d;
  }
  switch (d.outlook.freshness) {
  case state::Freshness::fresh: d.verdict = CacheVerdict::allow; break;
  case state::Freshness::in_backoff:
    d.retry_capped = *d.outlook.retry_at != *d.entry.next_retry_at;
    // A server that cannot start keeps its specific guidance from the cache too: retrying will not help, the user
    // has to set the variable.
    if (state::health_of(d.entry, *entry) == state::Health::misconfigured) {
      d.verdict = CacheVerdict::block_misconfigured;
      d.missing_variable = std::string(util::word_after(d.entry.last_error.value_or(""), "${"));
    } else {
      d.verdict = CacheVerdict::block_down;
      const std::optional<state::ProbeDetails> probe = state::probe_details(*entry);
      d.credentials_refused =
          probe && refuses_credentials(probe::kind_from_name(probe->kind), d.entry.last_failure_code);
      // A call asks for it: look again when the last look is old enough, in the background for the next call, or
      // now when refreshes are inline (the call then waits for the look, as it waits for any inline probe).
      d.look_again = look_due(d.entry, now, rules.look_again_ms);
      if (d.look_again && rules.refresh == Refresh::inline_probe) d.verdict = CacheVerdict::probe;
      // A crash loop whose code changed: a probe now (no reconnect before its retry), and the call if it passes.
      d.code_changed = code_changed(d.entry, now, rules.waited_seen);
      if (d.code_changed) d.verdict = CacheVerdict::probe;
    }
    break;
  case state::Freshness::stale:
    // Expired by at most one more TTL: allow now, and have it re-probed off the agent's path.
    d.verdict = rules.refresh == Refresh::background && d.outlook.stale_for_ms < d.entry.ttl_ms().value_or(rules.default_ttl_ms)
                    ? CacheVerdict::allow_and_refresh
                    : CacheVerdict::probe;
    break;
  case state::Freshness::due:
    // A breaker's retry: the call is its trial. A probe would only see the handshake, which passes all along.
    if (fails_on_calls(d.entry)) {
      d.verdict = CacheVerdict::allow;
      d.trial_call = true;
      break;
    }
    d.verdict = CacheVerdict::probe;
    break;
  case state::Freshness::unknown: d.verdict = CacheVerdict::probe; break;
  }
  return d;
}

bool upstream_error(const hook::FailureReading& reading) {
  if (!reading.code || !reading.wording.empty() || reading.input_named) return false;
  switch (state::outage_of(*reading.code)) {
  case state::Outage::rate_limited:
  case state::Outage::unavailable:
  case state::Outage::server_error:
  case state::Outage::transport: return true;
  case state::Outage::unauthorized:
  case state::Outage::forbidden:
  case state::Outage::timed_out:
  case state::Outage::not_found:
  case state::Outage::refused_request:
  case state::Outage::other_status:
  case state::Outage::none: return false;
  }
  return false;
}

std::string upstream_reason(std::int64_t failed_calls, const state::FailureCode& code) {
  std::string said = "its last " + std::to_string(failed_calls) + " calls failed with an upstream error";
  if (code.kind == state::FailureCode::Kind::http_status) said += " (HTTP " + std::to_string(code.status) + ")";
  else if (code.kind == state::FailureCode::Kind::transport) said += " (a connection failed)";
  return said;
}

std::int64_t failed_calls_now(const state::ServerEntry& before, util::EpochMs now, std::int64_t window_ms) {
  if (before.failed_calls < 1 || !before.last_failed_call_at) return 1;
  if (now - *before.last_failed_call_at > window_ms) return 1;
  return state::clamp_failure_count(before.failed_calls + 1);
}

} // namespace mcphealth::gate
