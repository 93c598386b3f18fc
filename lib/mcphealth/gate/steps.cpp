#include <mcphealth/gate/steps.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/state/fields.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::gate {

static_assert(config::k_most_code_files == state::k_max_code_files, "one bound for the code files a mark keeps");

namespace json = boost::json;
namespace messages = hook::messages;
using hook::k_max_model_text_bytes;
using state::ServerEntry;

namespace {

Step answer(Plan plan, std::vector<std::string> traced = {}) { return {step::Answer{std::move(plan)}, {}, std::move(traced)}; }

/// Allows a call the policy says not to probe (`probe: skip`); a failure mark still blocks (decided before).
Step allow_skipped(const CallFacts& c, RuleInputs& in, std::vector<std::string> traced) {
  if (c.tracing) {
    traced.push_back(c.call.server + ": probe skipped by the policy (" + in.server().probe.origin.text() + "): allow");
  }
  return answer(allow(c.event), std::move(traced));
}

bool skipped(RuleInputs& in) { return in.server().probe.value == config::ProbeMode::skip; }

/// For a crash loop in its backoff that records the files of its code: stat them first (a stat each), so a fix
/// deployed since its last check is tried at once. For a server that refused the agent's token, the same with the
/// agent's credential files, in its backoff or not: a login or a refresh since. The common hit (a healthy entry)
/// has no such field.
std::optional<Step> stat_waited_files(const PreFacts& f, const json::object* entry) {
  if (f.waited_seen.asked() || entry == nullptr) return std::nullopt;
  if (!entry->contains(state::field::code_files) && !entry->contains(state::field::credential_files))
    return std::nullopt;
  const ServerEntry e = ServerEntry::from_json(*entry);
  if (state::waits_for_credentials(e)) return Step{step::StatWaitedFiles{e.credential_files}};
  if (e.code_files.empty() || !fails_on_calls(e) || !is_a_look(e, f.c.now)) return std::nullopt;
  return Step{step::StatWaitedFiles{e.code_files}};
}

const std::optional<state::FilesSeen>& waited_seen_of(const PreFacts& f) {
  return f.waited_seen.answer();
}

} // namespace

std::optional<Plan> answer_cached(const CallFacts& c, const json::object* entry, RuleInputs& in,
                                  std::vector<std::string>& traced, const std::optional<state::FilesSeen>& waited_seen) {
  const std::optional<ServerEntry> read = entry ? std::optional<ServerEntry>(ServerEntry::from_json(*entry)) : std::nullopt;
  CacheRules rules = cache_rules(read ? &*read : nullptr, in);
  rules.waited_seen = waited_seen;
  const CacheDecision d = decide_from_cache(entry, c.now, rules);
  if (c.tracing) traced.push_back(describe(d, c.call.server, c.now));
  return answer_from_cache(c.event, c.call, d, c.now, c.voice);
}

// --- PreToolUse: the cache decides when it can (the hot path: the state file and a few stats); otherwise the
// configs are read, and the definition the agent uses is probed (and recovered) under its probe lock.

Step next(const PreFacts& f, RuleInputs& in) {
  const CallFacts& c = f.c;
  const hook::CallTarget& call = c.call;
  if (!f.missed.asked()) return {step::ReadMissedFailure{}};
  if (f.missed.found() && !f.missed_taken) return {step::TakeMissedFailure{*f.missed}};
  if (!f.state) return {step::ReadState{}};
  if (!f.bound.asked()) return {step::ReadBinding{}};
  std::vector<std::string> traced;
  if (!f.target && f.bound.found()) {
    const state::Binding& b = *f.bound;
    const json::object* bound_entry = state::decision_entry(*f.state, call.server, b.definition);
    if (auto stat = stat_waited_files(f, bound_entry)) return std::move(*stat);
    if (auto cached = answer_cached(c, bound_entry, in, traced, waited_seen_of(f)))
      return answer(std::move(*cached), std::move(traced));
    if (!b.definition) return answer(allow_unbound(c.event, call.server, b), std::move(traced));
    // Skipped by a policy entry that does not depend on the folder: no need to read the configs to know it.
    if (!in.policy_has_project_rules() && skipped(in)) return allow_skipped(c, in, std::move(traced));
  }
  if (!f.target) return {step::FindTarget{.bind = true}, {}, std::move(traced)};
  const Target& t = *f.target;
  const json::object* entry = state::decision_entry(*f.state, call.server, t.binding.definition);
  if (auto stat = stat_waited_files(f, entry)) return std::move(*stat);
  if (f.lock == LockState::untried) {
    if (auto cached = answer_cached(c, entry, in, traced, waited_seen_of(f)))
      return answer(std::move(*cached), std::move(traced));
    if (t.candidate == nullptr) return answer(allow_unbound(c.event, call.server, t.binding), std::move(traced));
    if (skipped(in)) return allow_skipped(c, in, std::move(traced));
    // One probe at a time per definition: a hook that finds one in flight waits for its result, long enough for
    // another hook's probe, reconnect and re-probe. Without the lock (the lock file cannot be used, or another
    // hook's probe outlasted the wait) the probe goes ahead: a duplicate probe is better than a call decided on
    // nothing.
    const config::Settings& s = in.server();
    return {step::LockProbe{t.candidate->fingerprint,
                            config::recovery_budget_ms(s.timeout_ms.value, s.reconnect_timeout_ms.value) + 2000},
            {}, std::move(traced)};
  }
  // Read again under the lock: another hook may have probed and recorded since the first read, and released the
  // lock before this one asked for it (so it was taken without waiting).
  if (f.lock == LockState::held && !f.reread) return {step::ReadState{.under_lock = true}};
  if (!f.recovery) {
    if (f.lock == LockState::held) {
      if (auto cached = answer_cached(c, entry, in, traced, waited_seen_of(f)))
        return answer(std::move(*cached), std::move(traced));
    }
    // A look (in the backoff) runs no reconnect: the backoff paces the restarts, the looks only notice a
    // recovery. A recovery due for a server a look found down a moment ago reconnects first and probes once.
    return {step::ProbeAndRecover{recovery_request(*t.candidate, in.server(), entry, c.now)}, {}, std::move(traced)};
  }
  const probe::ProbeResult result =
      probe::held_for_credentials(entry, probe::held_to(entry, f.recovery->result), waited_seen_of(f));
  const bool probed = result.kind != probe::Kind::not_probed && result.kind != probe::Kind::local_fault;
  if (probed && !f.recorded.asked()) {
    return {step::RecordProbe{t.candidate, result, f.recovery->restored_by,
                              recover::reconnect_note(f.recovery->reconnect, c.now, "hook")}};
  }
  ProbeFinding finding{call, result, *f.recovery, f.recorded.answer(),
                       entry != nullptr && ServerEntry::from_json(*entry).unhealthy(), {}};
  if (t.candidate->resolved && !t.candidate->resolved->unset_vars.empty())
    finding.missing_variable = t.candidate->resolved->unset_vars.front();
  return answer(answer_after_probe(c.event, finding, c.now, c.voice));
}

// --- PostToolUseFailure: a failure that shows a server in trouble marks it down, then the reconnect command runs
// (unless its outage's row says not to) and a re-probe may restore it at once. The client's text decides when it
// can; when it says only that a remote server failed (no status, or no sign at all), the server is asked: a probe
// marks it by what it answers. Failures of calls that began before the server was marked are that same outage:
// one failure. Two failed calls in a row are a crash loop: a passing re-probe does not clear it.

namespace {

/// Generic words that no probe confirmed: said once, and nothing is marked.
Step not_proof(const FailureFacts& f, const hook::FailureReading& reading, const std::string& why) {
  Plan plan = allow(f.c.event);
  if (reading.code) {
    plan.said.push_back(f.c.call.server + " failed with words that may be the tool's own (" + reading.code->text() +
                        "), and the server could not be asked" + why + "; not marking it unhealthy");
  }
  return answer(std::move(plan));
}

/// What the reconnect after a failure came to, for stderr; true when its re-probe restores the server.
bool read_reconnect(const FailureFacts& f, bool looping, std::vector<std::string>& said) {
  const std::string& name = f.c.call.server;
  const recover::ReconnectReport& report = *f.reconnect;
  switch (report.attempt) {
  case recover::Attempt::none: return false;
  case recover::Attempt::not_for_this_kind: said.push_back(name + " reconnect skipped: " + report.reason); return false;
  case recover::Attempt::no_command:
    said.push_back(name + " reconnect skipped: no reconnect command configured"); // the JS hook's words
    return false;
  case recover::Attempt::refused: said.push_back(name + " reconnect " + recover::describe(report)); return false;
  case recover::Attempt::failed: said.push_back(name + " reconnect failed: " + report.reason); return false;
  case recover::Attempt::ok: break;
  }
  if (looping) {
    said.push_back(
        name +
        " reconnect ran; its calls keep failing and its handshake would pass, so it is not probed: still blocked");
    return false;
  }
  if (!report.reprobe) {
    said.push_back(name + " reconnect completed but no config was available for a follow-up probe");
    return false;
  }
  if (!report.reprobe->ok) {
    said.push_back(name + " reconnect command ran, but health probe still failed: " + report.reprobe->reason);
    return false;
  }
  return true;
}

} // namespace

namespace {

/// What a failure is about and how its words read (its first phase): the definition and its settings, and whether
/// the server is asked (its words, or its declared check, say to), or held to the upstream rule.
struct FailureReadout {
  const config::Candidate* cand = nullptr;
  const config::Settings* s = nullptr;
  hook::FailureReading reading = {};
  bool remote = false;
  bool check_asks = false;
  bool ask_server = false;
  bool upstream = false;
};

/// The first phase: whom the failure is about and how its words read; a step (or the answer) until that is known.
std::variant<Step, FailureReadout> read_the_failure(const FailureFacts& f, RuleInputs& in) {
  const CallFacts& c = f.c;
  const hook::CallTarget& call = c.call;
  const std::string& name = call.server;
  const hook::FailureReading& first = f.reading;
  if (f.failed.interrupted) return answer(allow(c.event)); // the user pressed Esc
  // A failure the agent fired no event for counts once: not when its server's verdict is newer than the call.
  if (f.failed.missed_ended_at && f.lock == LockState::untried) {
    if (!f.state) return Step{step::ReadState{}};
    if (!f.bound.asked()) return Step{step::ReadBinding{}};
    if (!f.bound.found() && !f.target) return Step{step::FindTarget{.bind = false}};
    const std::optional<std::string> definition = f.bound.found() ? f.bound->definition : f.target->binding.definition;
    const json::object* entry = state::decision_entry(*f.state, name, definition);
    const std::optional<util::EpochMs> checked = entry ? ServerEntry::from_json(*entry).checked_at : std::nullopt;
    if (checked && *f.failed.missed_ended_at <= *checked) {
      return answer(allow(c.event), {"the session's last call to " + name + " failed, before its last verdict: counted"});
    }
  }
  if (first.input_named) {
    Plan plan = allow(c.event);
    plan.said.push_back(name + " failed on " + *first.input_named + ", a host this call's input named: the input's fault, not " +
                        name + "'s; nothing recorded");
    return answer(std::move(plan));
  }
  // A failure that says nothing binds nothing: it is only read whether the server is remote, to be asked.
  if (!f.target) return Step{step::FindTarget{.bind = first.code.has_value()}};
  if (first.code && !f.target_bound) return Step{step::FindTarget{.bind = true}};
  const config::Candidate* cand = f.target->candidate;
  const config::Settings& s = in.server();
  const bool remote =
      cand != nullptr && cand->resolved && std::holds_alternative<config::HttpServer>(cand->resolved->transport);
  const bool can_ask = cand != nullptr && cand->resolved.has_value();
  // The client's HTTP wordings frame a remote server's failure; in a stdio server's failure the same words are the
  // tool's own (a fetch it made): read as generic signs, a lead to confirm, never proof.
  const hook::FailureReading reading = first.remote_only && can_ask && !remote
                                           ? hook::read_failure(f.failed.text, f.failed.tool_input, {})
                                           : first;
  const bool probe_skipped = s.probe.value == config::ProbeMode::skip;
  // A server with a declared check has every failed call confirmed by it at once (issue 52 item 1): the look
  // runs its probe and its check; when both pass, the failure is read as it would be without one.
  const bool check_asks = can_ask && s.check.value && !probe_skipped;
  const bool ask_server = check_asks || (can_ask && ask_after_failure(reading, remote, probe_skipped));
  // A tool's upstream error (outage words in its own text): one proves nothing, two in a row block the server as an
  // upstream outage (issue 52 item 4), asked or not (a server the gate cannot ask is held to it by its name).
  const bool upstream = upstream_error(reading);
  if (!ask_server && !is_proof(reading) && !upstream) return not_proof(f, reading, "");
  if (!f.target_bound) return Step{step::FindTarget{.bind = true}};
  return FailureReadout{cand, &s, reading, remote, check_asks, ask_server, upstream};
}

/// The second phase: the mark, made under the probe lock, once the server was asked when it is to be; a step (or
/// the answer) until it is written.
std::variant<Step, state::UnhealthyMark> mark_the_failure(const FailureFacts& f, RuleInputs& in, const FailureReadout& x) {
  const CallFacts& c = f.c;
  const hook::CallTarget& call = c.call;
  const std::string& name = call.server;
  const config::Candidate* cand = x.cand;
  const config::Settings& s = *x.s;
  const hook::FailureReading& reading = x.reading;
  const bool remote = x.remote, check_asks = x.check_asks, ask_server = x.ask_server, upstream = x.upstream;

  // One probe or mark at a time per definition: parallel failures wait here, then find the first one's mark. The
  // wait is one probe's worth: a background refresh may hold the lock far longer, and then this hook goes ahead.
  if (f.lock == LockState::untried) return Step{step::LockProbe{cand ? cand->fingerprint : name, s.timeout_ms.value + 1000}};
  if (!f.under_lock) return Step{step::ReadState{.under_lock = true}};
  if (const json::object* entry = state::decision_entry(*f.under_lock, name, f.target->binding.definition);
      entry != nullptr && state::marked_since(*entry, f.failed.began)) {
    // A failure of a call that began before the server's current mark: that outage, already recorded (a parallel
    // call failing in the same moment). The model is told what the first failure told it; nothing is marked.
    if (!f.noted) {
      return Step{step::NoteFailedCall{}, {},
              {name + " was marked unhealthy after this call began: the same outage, not counted again"}};
    }
    const ServerEntry e = ServerEntry::from_json(*entry);
    messages::Down down{name, call.tool, e.last_error.value_or(""), e.last_failure_code};
    down.client = c.voice;
    down.blocked_for_ms = *e.next_retry_at - c.now;
    return answer(answer_after_failure(c.event, down, FailureRecord::marked));
  }

  state::UnhealthyMark mark = state::unhealthy_mark(
      probe::mark_context(s, c.now, cand ? std::optional(cand->definition.source.string()) : std::nullopt, std::nullopt),
      util::cap_utf8(f.failed.text, k_max_model_text_bytes), reading.code.value_or(state::FailureCode::none()));
  mark.began_at = f.failed.began;
  mark.failed_tool = call.tool;
  if (cand && cand->resolved) {
    if (const auto* stdio = std::get_if<config::StdioServer>(&cand->resolved->transport))
      mark.code_files = config::code_files(*stdio);
  }
  if (ask_server) {
    if (!f.asked) {
      return Step{step::AskServer{&*cand->resolved,
                              probe::spec_of(s, state::decision_entry(*f.under_lock, cand->tool_server,
                                                                      cand->fingerprint))}};
    }
    const Asked said = read_asked(reading, f.failed.text, *f.asked, mark);
    // Asked for its check alone, a server the client's own framing proved failing is marked as that proof says.
    const bool proven = check_asks && is_proof(reading);
    if (said == Asked::up && !upstream && !proven) {
      Plan plan = allow(c.event);
      plan.said.push_back(cand->tool_server + " failed a call but answered a probe right after (" +
                          probe::kind_name(f.asked->kind) + (f.asked->check_passed == true ? ", and its check passed" : "") +
                          "); not marking it unhealthy");
      return answer(std::move(plan));
    }
    if (said == Asked::unknown && !is_proof(reading) && !upstream) return not_proof(f, reading, " (" + f.asked->reason + ")");
    if (said != Asked::down) mark.upstream = upstream;
  } else if (!is_proof(reading)) {
    mark.upstream = upstream;
  }
  if (mark.upstream) {
    // Fixed words, never the tool's text (third-party text must not be what the model reads as the verdict), and
    // a time the text gives held to the look cap.
    mark.probe.reset();
    mark.code = *reading.code;
    mark.error = upstream_reason(1, mark.code);
    if (const std::optional<std::int64_t> wait = hook::retry_time_in(f.failed.text))
      mark.retry_after_ms = std::min(*wait, s.max_backoff_ms.value);
  }
  // A remote server that refused the agent's token waits for the agent's credentials to change (a login, a refresh);
  // one that refused the Authorization header its definition sets does not (the agent's OAuth is not used then).
  if (remote && state::refuses_the_agents_token(mark.code) &&
      !std::get<config::HttpServer>(cand->resolved->transport).sends_authorization())
    mark.credential_files = in.credential_files();
  if (!f.marked) {
    std::vector<std::string> traced;
    if (c.tracing && f.asked) {
      traced.push_back("asked " + cand->tool_server + " after the failed call: " + probe::kind_name(f.asked->kind) +
                       (f.asked->reason.empty() ? std::string() : " (" + f.asked->reason + ")"));
    }
    return Step{step::MarkDown{cand, name, mark, failed_call_window_ms(s)}, {}, std::move(traced)};
  }
  return mark;
}

/// The third phase, the mark written: the failed call noted, the reconnect and its re-probe, and what the model is
/// told.
Step after_the_mark(const FailureFacts& f, const FailureReadout& x, const state::UnhealthyMark& mark) {
  const CallFacts& c = f.c;
  const hook::CallTarget& call = c.call;
  const std::string& name = call.server;
  const config::Candidate* cand = x.cand;
  const config::Settings& s = *x.s;
  const hook::FailureReading& reading = x.reading;
  const bool ask_server = x.ask_server;
  const state::FailureCode code = mark.code;
  if (f.marked->noted_only) {
    if (!f.noted) return {step::NoteFailedCall{}};
    Plan plan = allow(c.event);
    plan.said.push_back(name + " failed with an upstream error (" + code.text() + ") in its tool's own words, and " +
                        (ask_server ? "answered a probe right after" : "cannot be asked") +
                        ": one failure proves nothing; a second in a row blocks it");
    return answer(std::move(plan));
  }
  const bool looping = f.marked->written && crash_loop(f.marked->failed_calls);
  if (!f.noted) {
    // The JS hook's line, word for word (people grep its log for it); when no reconnect follows, the line after
    // says why ("reconnect skipped: ..."), as the JS hook's does. It names what the failure's words reported, as
    // the JS hook's does (`reported 401`), even where asking the server recorded another code (a stdio server
    // that exits is a transport failure).
    const state::FailureCode reported = reading.code && reading.code->present() ? *reading.code : code;
    std::vector<std::string> said{name + " reported " + reported.text() +
                                  "; marking server unhealthy and attempting reconnect"};
    if (looping && mark.upstream) {
      said.push_back(name + ": " + upstream_reason(f.marked->failed_calls, code) + " (the last on " + call.tool +
                     "): what it depends on fails, so it is blocked as an upstream outage for the backoff");
    } else if (looping) {
      said.push_back(name + ": " + std::to_string(f.marked->failed_calls) + " calls in a row failed (the last on " +
                     call.tool + "): it fails on calls, so a passing handshake does not clear it; blocked for the backoff");
    }
    return {step::NoteFailedCall{}, std::move(said)};
  }
  std::vector<std::string> said;
  bool restored = false;
  if (f.lock == LockState::timed_out) {
    said.push_back(name + " reconnect skipped: another hook is already probing or reconnecting it");
  } else if (mark.upstream) {
    said.push_back(name + " reconnect skipped: it answers, and what it depends on fails (a restart would not fix that)");
  } else if (!f.reconnect) {
    // A name no config defines can still have its reconnect command run (a plain name only: see run_reconnect).
    recover::RecoveryRequest request =
        cand != nullptr ? recover::request_for(*cand, s, nullptr, recover::Reconnect::when_down)
                        : recover::RecoveryRequest{name, recover::NameOrigin::payload, nullptr, probe::spec_of(s),
                                                   s.reconnect_timeout_ms.value, code, recover::Reconnect::when_down,
                                                   nullptr, recover::policy_command(s)};
    request.previous_code = code;
    request.reprobe = !looping; // a crash loop's handshake passes whatever the reconnect did
    return {step::Reconnect{std::move(request), code, cand}};
  } else if (read_reconnect(f, looping, said)) {
    if (!f.restored) {
      return {step::RecordProbe{cand, *f.reconnect->reprobe, state::RestoredBy::post_failure_reconnect,
                                recover::reconnect_note(*f.reconnect, c.now, "hook")}};
    }
    said.push_back(name + " connection restored");
    restored = true;
  }
  messages::Down down{name, call.tool, mark.error, code};
  down.client = c.voice;
  if (looping) down.failed_calls = f.marked->failed_calls;
  down.upstream = mark.upstream;
  if (f.marked->written) down.blocked_for_ms = f.marked->retry_at - c.now;
  Plan plan = answer_after_failure(c.event, down,
                                   restored            ? FailureRecord::restored
                                   : f.marked->written ? FailureRecord::marked
                                                       : FailureRecord::not_recorded);
  said.insert(said.end(), plan.said.begin(), plan.said.end());
  plan.said = std::move(said);
  return answer(std::move(plan));
}


} // namespace

Step next(const FailureFacts& f, RuleInputs& in) {
  std::variant<Step, FailureReadout> read = read_the_failure(f, in);
  if (Step* step = std::get_if<Step>(&read)) return std::move(*step);
  const FailureReadout& x = std::get<FailureReadout>(read);
  std::variant<Step, state::UnhealthyMark> marked = mark_the_failure(f, in, x);
  if (Step* step = std::get_if<Step>(&marked)) return std::move(*step);
  return after_the_mark(f, x, std::get<state::UnhealthyMark>(marked));
}

// --- PostToolUse: a successful call proves the server is up. Writes only when that changes something
// (after_success): an unhealthy mark cleared, a healthy one past half its TTL extended, a row of failed calls ended.

Step next(const SuccessFacts& f, RuleInputs& in) {
  const CallFacts& c = f.c;
  if (!f.state) return {step::ReadState{}};
  if (!f.bound.asked()) return {step::ReadBinding{}};
  if (!f.bound.found() && !f.target) return {step::FindTarget{.bind = false}};
  const std::optional<std::string> definition = f.bound.found() ? f.bound->definition : f.target->binding.definition;
  const json::object* entry = state::decision_entry(*f.state, c.call.server, definition);
  if (entry == nullptr) return answer(allow(c.event));
  if (!f.restored) {
    const ServerEntry e = ServerEntry::from_json(*entry);
    // A healthy mark carries its TTL (the policy that wrote it); only an entry without one needs the settings.
    const std::optional<std::int64_t> own = e.ttl_ms();
    const std::int64_t ttl = own ? *own : in.server().ttl_ms.value;
    if (after_success(e, c.now, ttl) == AfterSuccess::nothing) return answer(allow(c.event)); // the common case
    return {step::TakeSuccess{definition, ttl}};
  }
  Plan plan = allow(c.event);
  if (*f.restored) plan.said.push_back(c.call.server + " connection restored (a tool call succeeded)");
  return answer(std::move(plan));
}

// --- SessionStart: binds the folder, starts one detached re-probe of every server whose mark is missing or stale,
// and names the servers known to be down to the model, so it plans around them from the first turn.

Step next(const SessionFacts& f, RuleInputs& in) {
  if (!f.seen) return {step::NoteSeen{}};
  if (f.resolution == nullptr) return {step::BindFolder{}};
  if (!f.state) return {step::ReadState{}};
  std::vector<SessionServer> servers;
  for (const config::Candidate* cand : f.resolution->winners()) {
    const json::object* entry = state::decision_entry(*f.state, cand->tool_server, cand->fingerprint);
    SessionServer s{.name = cand->tool_server};
    if (entry) {
      s.entry = ServerEntry::from_json(*entry);
      s.health = state::health_of(*s.entry, *entry);
    }
    if (cand->resolved && !cand->resolved->unset_vars.empty()) s.unset_variable = cand->resolved->unset_vars.front();
    const config::Settings& settings = in.of(*cand);
    s.skipped = settings.probe.value == config::ProbeMode::skip;
    ResolvedRuleSettings own(in.environment(), settings, in.refresh());
    s.rules = cache_rules(s.entry ? &*s.entry : nullptr, own);
    servers.push_back(std::move(s));
  }
  return answer(plan_session_start(f.c.event, servers, f.c.now, f.c.voice));
}

} // namespace mcphealth::gate
