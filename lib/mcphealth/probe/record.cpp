#include <mcphealth/probe/record.hpp>

#include <mcphealth/state/fields.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::probe {

namespace json = boost::json;

bool silence_keeps_a_timeout(const json::object* entry, const ProbeResult& result) {
  if (entry == nullptr || !result.ok || result.kind != Kind::alive_silent) return false;
  const state::ServerEntry e = state::ServerEntry::from_json(*entry);
  return e.unhealthy() && e.last_failure_code == state::FailureCode::timeout();
}

ProbeResult held_to(const json::object* entry, ProbeResult result) {
  if (!silence_keeps_a_timeout(entry, result)) return result;
  const state::ServerEntry e = state::ServerEntry::from_json(*entry);
  result.ok = false;
  result.code = state::FailureCode::timeout();
  result.reason = "silent to a probe (" + result.reason + "), and its last call timed out in the agent" +
                  (e.last_error ? ": " + *e.last_error : std::string());
  return result;
}

ProbeResult held_for_credentials(const json::object* entry, ProbeResult result,
                                 const std::optional<state::FilesSeen>& seen) {
  // No credential file here (the agent keeps none on this machine): the probe decides, as it does without one.
  if (entry == nullptr || !result.ok || result.kind != Kind::needs_auth || !seen || !seen->newest) return result;
  const state::ServerEntry e = state::ServerEntry::from_json(*entry);
  if (!state::waits_for_credentials(e) || state::credentials_changed(e, seen)) return result;
  result.ok = false;
  result.code = e.last_failure_code;
  result.reason = "refused the agent's token, and the agent's credentials have not changed since (a probe, which "
                  "carries no token, is asked for one)";
  return result;
}

ProbeResult held_for_trial(const json::object* entry, ProbeResult result, const std::optional<state::FilesSeen>& seen) {
  if (entry == nullptr || !result.ok) return result;
  const state::ServerEntry e = state::ServerEntry::from_json(*entry);
  if (!state::fails_on_calls(e)) return result;
  if (seen && state::files_changed(e, *seen)) return result; // a fix deployed: let it show
  // A declared check that failed during this outage and passes now: what broke the calls is back.
  if (result.check_passed == true) {
    const std::optional<state::ProbeDetails> last = state::probe_details(*entry);
    if (last && last->check_passed == false) return result;
  }
  result.ok = false;
  result.code = e.last_failure_code;
  result.reason = "answers its handshake, but its last " + std::to_string(e.failed_calls) + " calls failed" +
                  (e.last_failed_tool ? " (the last on " + *e.last_failed_tool + ")" : std::string()) +
                  (e.upstream ? " with an upstream error" : std::string()) +
                  ": a passing handshake proves nothing; a trial call decides when its retry comes (a change of its "
                  "code, or `mcphealth reset`, tries it at once)";
  return result;
}

std::optional<state::FilesSeen> files_seen(const std::vector<std::string>& files, util::FileReader& reader) {
  if (files.empty()) return std::nullopt;
  state::FilesSeen seen;
  std::string all;
  for (const std::string& file : files) {
    all += file;
    all += '\0';
    if (const std::optional<util::FileStamp> stamp = reader.stat(file)) {
      const util::EpochMs at = stamp->mtime_ns / 1'000'000;
      if (!seen.newest || at > *seen.newest) seen.newest = at;
      all += std::to_string(stamp->mtime_ns) + ":" + std::to_string(stamp->size) + ":" + std::to_string(stamp->inode);
    } else {
      all += "-";
    }
    all += '\0';
  }
  seen.stamp = util::fnv1a_hex(all);
  return seen;
}

void mark_from_probe(json::object& entry, const ProbeResult& probed, const MarkContext& c, util::FileReader& files) {
  ProbeResult result = held_to(&entry, probed);
  // A probe outside the hook (refresh, probe, watch) meets a server that waits for the agent's credentials as the
  // hook's does: the files are stat'ed here (the hook's run stat'ed them already, and brings a held result).
  if (result.ok && result.kind == Kind::needs_auth) {
    const state::ServerEntry e = state::ServerEntry::from_json(entry);
    if (state::waits_for_credentials(e))
      result = held_for_credentials(&entry, std::move(result), files_seen(e.credential_files, files));
  }
  // A breaker (a crash loop, an upstream outage) answers its handshake all along: a passing probe holds it, and
  // is written as seen but neither counted nor moving its trial call.
  bool held = false;
  std::optional<state::FilesSeen> code_seen;
  if (result.ok) {
    const state::ServerEntry e = state::ServerEntry::from_json(entry);
    if (state::fails_on_calls(e)) {
      code_seen = files_seen(e.code_files, files);
      result = held_for_trial(&entry, std::move(result), code_seen);
      held = !result.ok;
    }
  }
  if (result.ok) {
    state::mark_healthy(entry, state::healthy_mark(c, result.details()));
  } else if (held) {
    // Nothing of the outage changes: not its error (the calls' words say more than the handshake's), not its retry.
    // Its check time does (a fix deployed later is later than it: held_for_trial looked before this).
    entry[state::field::checked_at] = c.now;
    entry[state::field::probe] = result.details().to_json();
    if (code_seen) entry[state::field::files_stamp] = code_seen->stamp; // what this look saw of its code
  } else {
    state::UnhealthyMark mark = state::unhealthy_mark(c, result.reason, result.code);
    mark.retry_after_ms = result.retry_after_ms;
    mark.probe = result.details();
    mark.escalate = state::Escalate::when_due;
    state::mark_unhealthy(entry, mark);
  }
}

bool record_probes(json::object& doc, const std::vector<ProbedServer>& probed, state::Writer by, util::FileReader& files,
                   std::vector<std::string>& skipped) {
  bool changed = false;
  for (const ProbedServer& p : probed) {
    if (gives_no_verdict(p.result.kind)) continue; // no verdict to record
    const json::object* current = state::decision_entry(doc, p.who.tool_server, p.who.fingerprint);
    const auto checked = current ? state::ServerEntry::from_json(*current).checked_at : std::nullopt;
    // A verdict written while this probe ran is newer and stays; one from a clock far ahead is no verdict.
    if (checked && *checked > p.started_at && *checked <= p.context.now + state::k_max_clock_skew_ms) {
      skipped.push_back(p.who.tool_server);
      continue;
    }
    state::record_verdict(doc, p.who, p.context.now, by, [&](json::object& entry) { mark_from_probe(entry, p.result, p.context, files); });
    changed = true;
  }
  return changed;
}

MarkContext mark_context(const config::Settings& settings, util::EpochMs now, std::optional<std::string> source,
                         std::optional<state::RestoredBy> restored_by) {
  return {now,           settings.ttl_ms.value, settings.backoff_ms.value, settings.max_backoff_ms.value,
          config::crash_loop_cap_ms(settings), std::move(source), restored_by};
}

} // namespace mcphealth::probe
