#include <mcphealth/gate/engine.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/gate/bindings.hpp>
#include <mcphealth/gate/context.hpp>
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/gate/plan.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/hook/messages.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>

namespace mcphealth::gate {

namespace messages = hook::messages;
namespace json = boost::json;
using state::ServerEntry;

const agent::Agent& HookRequest::client() const { return agent ? *agent : agent::default_agent(); }

std::string resolve_event_name(const HookRequest& request, const util::Environment& env) {
  return request.client().dialect.read(request.input, request.event_flag, env).event_name;
}

namespace {

/// How long a failure mark waits for the state lock: long enough that a burst of writers never drops one.
constexpr std::int64_t k_mark_lock_wait_ms = 15'000;

/// Runs one hook invocation: reads in stages through the context, asks the rules of gate/plan.hpp what follows
/// each stage, and carries out their plans (stderr lines, refreshes, the answer).
class Executor {
public:
  Executor(const HookRequest& request, HookDeps& deps) : m_ctx(request, deps) {}

  HookOutcome run() {
    HookOutcome out = dispatch();
    m_ctx.say_policy_problem();
    return out;
  }

private:
  /// Decides: the event from the payload, the target from the tool name, then that event's steps.
  HookOutcome dispatch() {
    const hook::HookCall& hc = m_ctx.call();
    const HookRequest& request = m_ctx.request();
    const agent::Agent& agent = m_ctx.agent();
    const std::string& event_name = hc.event_name;
    const Event event = hc.event;
    m_ctx.trace([&] {
      return "event " + event_name + " (" + hc.event_source + ")" +
             (&agent == &agent::default_agent() ? std::string() : ", from " + std::string(agent.name));
    });
    if (event == Event::other && request.event_flag && !request.event_flag->empty()) {
      // A typo in the registered command would switch the gate off without a word.
      std::string known;
      for (std::string_view name : agent.dialect.event_names())
        known += (known.empty() ? "" : ", ") + std::string(name);
      m_ctx.log("--event " + event_name + " is not an event mcphealth acts on (" + known +
                "): ignoring this call, which is allowed unchecked");
    }
    if (request.input.incomplete) {
      if (hc.target) m_ctx.set_call(*hc.target); // a block gives way to that server's fail-open
      return carry_out(answer_incomplete(event_name, event, hc.target, hc.names_tool, request.input.limit));
    }
    if (event == Event::session_start) return session_start(event_name);
    std::optional<CallTarget> call = hc.target;
    if (call && call->server.empty() && hc.endpoint) call = m_ctx.by_endpoint(*hc.endpoint, call->tool);
    if (call) call = m_ctx.settle_split(*call);
    if (!call) {
      m_ctx.trace([&] {
        return "tool " + (hc.names_tool ? hc.tool_name : std::string("(none)")) + " is not an MCP tool: allow";
      });
      return carry_out(allow(event_name));
    }
    if (call->server.size() > state::k_max_name_bytes) {
      m_ctx.log("the server name in " + event_name + " is " + std::to_string(call->server.size()) +
                " bytes, longer than any MCP server's (at most " + std::to_string(state::k_max_name_bytes) +
                "): not checked, nothing recorded");
      return carry_out(allow(event_name));
    }
    m_ctx.set_call(*call);
    m_ctx.trace([&] { return "tool on server " + call->server + ": " + call->tool; });
    if (request.input.parse_error) {
      m_ctx.log("the hook input is not valid JSON (" + *request.input.parse_error + "); " + event_name + " of " +
                call->tool + " on " + call->server + " is decided from the fields found in its text");
    }
    switch (event) {
    case Event::pre_tool_use: return pre_tool_use(event_name, *call);
    case Event::post_tool_use_failure: return post_tool_use_failure(event_name, *call);
    case Event::post_tool_use: return post_tool_use(event_name, *call);
    case Event::session_start:
    case Event::other: break;
    }
    return carry_out(allow(event_name));
  }

  /// Carries a plan out: a block is settled against fail-open (read only now: an allow needs no settings), its
  /// lines said, its refresh started; returns its answer.
  HookOutcome carry_out(Plan plan) {
    if (plan.block_line) plan = settle(std::move(plan), m_ctx.fail_open());
    for (const std::string& line : plan.said) m_ctx.log(line);
    if (!plan.refresh.empty() && m_ctx.deps().start_refresh) {
      m_ctx.deps().start_refresh(m_ctx.inputs().project_dir.string(), plan.refresh);
    }
    m_ctx.note_blocked(plan.answer);
    return plan.answer;
  }

  // --- PreToolUse

  /// The cache decides when it can (the hot path: the state file and a few stats); otherwise the configs are read,
  /// and the definition the agent uses is probed (and recovered) under its probe lock.
  HookOutcome pre_tool_use(const std::string& event, const CallTarget& call) {
    if (std::optional<hook::MissedFailure> missed = m_ctx.agent().dialect.missed_failure(m_ctx.call(), call)) {
      take_missed_failure(event, call, *missed);
    }
    state::StateSnapshot snap = m_ctx.store().read();
    m_ctx.trace([&] {
      return "state file " + m_ctx.store().path().string() + ": " + std::string(state::load_status_words(snap.status));
    });
    if (std::optional<state::Binding> bound = m_ctx.bound_here(snap, call)) {
      m_ctx.trace([&] {
        return "folder " + m_ctx.folder_key() + ": bindings current; " + call.server + " is " +
               (bound->definition ? "definition " + bound->definition->substr(0, 12) : bound->standing);
      });
      // The definition's own settings on this path too (the binding keeps its project): a per-project policy rule
      // must not depend on the order of calls.
      m_ctx.bound_to_project(bound->project);
      if (auto cached = answer_cached(event, call, state::decision_entry(snap.doc, call.server, bound->definition))) {
        return carry_out(std::move(*cached));
      }
      if (!bound->definition) return carry_out(allow_unbound(event, call.server, *bound));
      // Skipped by a policy entry that does not depend on the folder: no need to read the configs to know it.
      if (!m_ctx.policy().has_project_rules() &&
          m_ctx.server_settings(nullptr, hook::server_key(call)).probe.value == config::ProbeMode::skip) {
        return allow_skipped(event, call.server);
      }
    }
    m_ctx.trace([&] {
      return "folder " + m_ctx.folder_key() + ": no current bindings for " + call.server + "; reading the configs";
    });
    const Target target = m_ctx.target(call);
    m_ctx.trace([&] {
      const config::Candidate* c = target.candidate;
      return c ? call.server + " is defined in " + c->definition.source.string() + " (" +
                     std::string(config::scope_name(c->scope)) + " scope), definition " + c->fingerprint.substr(0, 12)
               : call.server + ": no definition " + std::string(m_ctx.agent().name) + " starts here (" +
                     target.binding.standing + (target.binding.reason.empty() ? "" : ": " + target.binding.reason) +
                     ")";
    });
    if (auto cached =
            answer_cached(event, call, state::decision_entry(snap.doc, call.server, target.binding.definition))) {
      return carry_out(std::move(*cached));
    }
    if (target.candidate == nullptr) return carry_out(allow_unbound(event, call.server, target.binding));
    if (m_ctx.server_settings(target.candidate).probe.value == config::ProbeMode::skip)
      return allow_skipped(event, call.server);

    // One probe at a time per definition: a hook that finds one in flight waits for its result.
    // Without the lock (the lock file cannot be used, or another hook's probe outlasted the wait) the probe goes
    // ahead: a duplicate probe is better than a call decided on nothing.
    const config::Settings& s = m_ctx.server_settings(target.candidate);
    // Long enough for another hook's probe, reconnect and re-probe.
    const std::int64_t wait_ms = config::recovery_budget_ms(s.timeout_ms.value, s.reconnect_timeout_ms.value) + 2000;
    const auto lock = m_ctx.store().lock_probe(target.candidate->fingerprint, wait_ms);
    // Read again under the lock: another hook may have probed and recorded since the read above, and released the
    // lock before this one asked for it (so it was taken without waiting).
    if (lock) {
      snap = m_ctx.store().read();
      m_ctx.trace([&] {
        return std::string("probe lock taken") + (lock->waited() ? " after waiting" : "") + "; state re-read";
      });
      if (auto now_cached =
              answer_cached(event, call, state::decision_entry(snap.doc, call.server, target.binding.definition))) {
        return carry_out(std::move(*now_cached));
      }
    }
    return probe_and_answer(event, target, state::decision_entry(snap.doc, call.server, target.binding.definition));
  }

  /// A failed call the agent fired no event for (Codex CLI), read from its record of the session: recorded as its
  /// failure event would have been, unless the server's verdict is newer (that failure was counted, or the server
  /// was checked since). The call being decided then meets the mark.
  void take_missed_failure(const std::string& event, const CallTarget& call, const hook::MissedFailure& missed) {
    const state::StateSnapshot snap = m_ctx.store().read();
    std::optional<std::string> definition;
    if (std::optional<state::Binding> bound = m_ctx.bound_here(snap, call))
      definition = bound->definition;
    else
      definition = m_ctx.target(call, Context::Bind::no).binding.definition;
    const json::object* entry = state::decision_entry(snap.doc, call.server, definition);
    const std::optional<util::EpochMs> checked = entry ? ServerEntry::from_json(*entry).checked_at : std::nullopt;
    if (checked && missed.ended_at_ms <= *checked) {
      m_ctx.trace(
          [&] { return "the session's last call to " + call.server + " failed, before its last verdict: counted"; });
      return;
    }
    m_ctx.trace([&] {
      return "the session's record says its last call to " + call.server + " failed (" + missed.text +
             "): read as the failure event the agent does not send";
    });
    (void)record_failure(event, call, {missed.text, nullptr, missed.ended_at_ms - missed.duration_ms});
  }

  /// The cache's rules for `entry` (gate/decide.hpp), and what they answer (gate/plan.hpp), or nothing: probe.
  std::optional<Plan> answer_cached(const std::string& event, const CallTarget& call, const json::object* entry) {
    const util::EpochMs now = m_ctx.now();
    CacheRules rules;
    const std::optional<ServerEntry> read =
        entry ? std::optional<ServerEntry>(ServerEntry::from_json(*entry)) : std::nullopt;
    // The retry bound needs the settings; a healthy entry (the common hit) does not.
    if (read && read->unhealthy()) rules.retry_bound_ms = m_ctx.retry_bound();
    rules.refresh =
        m_ctx.refresh_in_background() && m_ctx.deps().start_refresh ? Refresh::background : Refresh::inline_probe;
    const std::optional<std::int64_t> claimed = read ? read->ttl_ms() : std::nullopt;
    if (read && rules.refresh == Refresh::background && !claimed) {
      rules.default_ttl_ms = m_ctx.settings().ttl_ms.value; // a mark mcphealth wrote carries its own TTL
    }
    // A healthy mark is fresh no longer past its check than the TTL in force. The common hit, a mark that claims no
    // more than the default TTL, needs no settings for that; a longer claim is held to the environment's TTL, or
    // the policy's when the mark claims more still (a policy may give a server a longer one).
    if (read && read->healthy() && (!claimed || *claimed > config::k_default_ttl_ms)) {
      rules.ttl_bound_ms = m_ctx.settings().ttl_ms.value;
      if (claimed && *claimed > rules.ttl_bound_ms)
        rules.ttl_bound_ms = m_ctx.server_settings(nullptr, hook::server_key(call)).ttl_ms.value;
    }
    const CacheDecision d = decide_from_cache(entry, now, rules);
    m_ctx.trace([&] { return describe(d, call.server, now); });
    return answer_from_cache(event, call, d, now, m_ctx.voice());
  }

  /// Probes the definition through the one recovery policy, records the verdict, and allows or blocks.
  /// `entry` is the definition's last verdict, if any.
  HookOutcome probe_and_answer(const std::string& event, const Target& target, const json::object* entry) {
    const config::Candidate& c = *target.candidate;
    const HookDeps& deps = m_ctx.deps();
    ProbeFinding f{target.call, {}, {}, std::nullopt, entry && ServerEntry::from_json(*entry).unhealthy(), {}};
    const recover::RecoveryRequest request =
        recover::request_for(c, m_ctx.server_settings(&c), entry, recover::Reconnect::when_down);
    const util::EpochMs probe_start = m_ctx.now();
    f.recovery = recover::check_and_recover(request, deps.prober, deps.runner, deps.env);
    f.result = f.recovery.result;
    const probe::ProbeResult& result = f.result;
    m_ctx.trace([&] {
      std::string text = "probe of " + target.call.server + ": " + probe::kind_name(result.kind) + " (" +
                         std::string(state::health_name(probe::health_of(result))) + ") in " +
                         std::to_string(m_ctx.now() - probe_start) + " ms";
      if (result.protocol_version) text += ", protocol " + *result.protocol_version;
      if (!result.ok && !result.reason.empty()) text += ": " + util::last_meaningful_line(result.reason);
      if (f.recovery.reconnect.attempt != recover::Attempt::none)
        text += "; reconnect " + recover::describe(f.recovery.reconnect);
      return text;
    });
    if (result.kind != probe::Kind::not_probed && result.kind != probe::Kind::local_fault) {
      f.retry_at = m_ctx.record(c, result, f.recovery.restored_by);
    }
    if (c.resolved && !c.resolved->unset_vars.empty()) f.missing_variable = c.resolved->unset_vars.front();
    return carry_out(answer_after_probe(event, f, m_ctx.now(), m_ctx.voice()));
  }

  /// Allows a call the policy says not to probe (`probe: skip`); a failure mark still blocks (decided before).
  HookOutcome allow_skipped(const std::string& event, const std::string& name) {
    m_ctx.trace([&] {
      return name + ": probe skipped by the policy (" +
             m_ctx.server_settings(m_ctx.candidate(), name).probe.origin.text() + "): allow";
    });
    return carry_out(allow(event));
  }

  // --- PostToolUseFailure

  /// A failure that shows a server in trouble marks it down, then the reconnect command runs (never after a 429)
  /// and a re-probe may restore it at once. The client's text decides when it can; when it says only that a remote
  /// server failed (no status, or no sign at all), the server is asked: a probe marks it by what it answers.
  /// Failures of calls that began before the server was marked are that same outage: one failure.
  HookOutcome post_tool_use_failure(const std::string& event, const CallTarget& call) {
    const hook::HookCall& hc = m_ctx.call();
    if (hc.interrupted) return carry_out(allow(event)); // the user pressed Esc
    return record_failure(event, call, {hc.failure_text, hc.tool_input, m_ctx.now() - hc.duration_ms});
  }

  /// A failed call, from the failure event or from the agent's own record of the session.
  struct FailedCall {
    const std::string& text;
    /// The call's arguments, when known: a failure about a host they name is the input's fault.
    const json::object* tool_input;
    util::EpochMs began;
  };

  /// What a failed call means for its server: nothing (the input's fault, a server that answers when asked), the
  /// outage already recorded, or a new mark, a reconnect and the model told until when.
  HookOutcome record_failure(const std::string& event, const CallTarget& call, const FailedCall& failed) {
    const std::string& text = failed.text;
    const hook::FailureReading reading =
        hook::read_failure(text, failed.tool_input, m_ctx.agent().dialect.failure_wordings());
    const std::string& name = call.server;
    m_ctx.trace([&] {
      return "failure text: " + std::string(hook::failure_says_name(reading.says)) +
             (reading.code ? " (" + reading.code->text() + ")" : std::string()) +
             (reading.wording.empty() ? (reading.code ? std::string(", generic words: a lead, not proof") : std::string())
                                      : " (the client's wording \"" + std::string(reading.wording) + "\")");
    });
    if (reading.input_named) {
      m_ctx.log(name + " failed on " + *reading.input_named +
                ", a host this call's input named: the input's fault, not " + name + "'s; nothing recorded");
      return carry_out(allow(event));
    }
    // A failure that says nothing binds nothing: it is only read whether the server is remote, to be asked.
    Target target = m_ctx.target(call, reading.code ? Context::Bind::yes : Context::Bind::no);
    const config::Candidate* c = target.candidate;
    const config::Settings& s = m_ctx.server_settings(c, name);
    const bool remote =
        c != nullptr && c->resolved && std::holds_alternative<config::HttpServer>(c->resolved->transport);
    const bool can_ask = c != nullptr && c->resolved.has_value();
    const bool ask_server = can_ask && ask_after_failure(reading, remote, s.probe.value == config::ProbeMode::skip);
    // Generic words that no probe confirmed: said once, and nothing is marked.
    const auto not_proof = [&](const std::string& why) {
      if (reading.code) {
        m_ctx.log(name + " failed with words that may be the tool's own (" + reading.code->text() +
                  "), and the server could not be asked" + why + "; not marking it unhealthy");
      }
      return carry_out(allow(event));
    };
    if (!ask_server && !is_proof(reading)) return not_proof("");
    if (!reading.code) target = m_ctx.target(call);

    const util::EpochMs now = m_ctx.now();
    const util::EpochMs began = failed.began;
    // One probe or mark at a time per definition: parallel failures wait here, then find the first one's mark. The
    // wait is one probe's worth: a background refresh may hold the lock far longer, and then this hook goes ahead.
    const auto lock = m_ctx.store().lock_probe(c ? c->fingerprint : name, s.timeout_ms.value + 1000);
    if (std::optional<HookOutcome> same = same_outage(event, call, target, began)) {
      m_ctx.note_failed_call(call, text);
      return *same;
    }

    state::UnhealthyMark mark{.now = now,
                              .error = util::cap_utf8(text, k_max_model_text_bytes),
                              .code = reading.code.value_or(state::FailureCode::none()),
                              .source = c ? std::optional(c->definition.source.string()) : std::nullopt,
                              .backoff_ms = s.backoff_ms.value,
                              .max_backoff_ms = s.max_backoff_ms.value,
                              .began_at = began,
                              .failed_tool = call.tool};
    if (ask_server) {
      const state::StateSnapshot snap = m_ctx.store().read();
      const probe::ProbeResult asked = m_ctx.deps().prober.probe(
          *c->resolved, probe::spec_of(s, state::decision_entry(snap.doc, c->tool_server, c->fingerprint)));
      m_ctx.trace([&] {
        return "asked " + c->tool_server + " after the failed call: " + probe::kind_name(asked.kind) +
               (asked.reason.empty() ? std::string() : " (" + asked.reason + ")");
      });
      const Asked said = read_asked(reading, text, asked, mark);
      if (said == Asked::up) {
        m_ctx.log(c->tool_server + " failed a call but answered a probe right after (" + probe::kind_name(asked.kind) +
                  "); not marking it unhealthy");
        return carry_out(allow(event));
      }
      if (said == Asked::unknown && !is_proof(reading)) return not_proof(" (" + asked.reason + ")");
    }
    const state::FailureCode code = mark.code;
    util::EpochMs retry_at = 0;
    // A failure mark is what the next call is blocked by: under a burst of writers it waits its turn longer than
    // other writes rather than be dropped (the client's hook timeout is a minute).
    const bool written = m_ctx.update_state(
        [&](json::object& doc) {
          auto mark_down = [&](json::object& entry) {
            // Counted under the lock, from the entry as it stands: parallel failures of one outage were turned
            // away above (same_outage), so each failed call here is one more in the row.
            mark.failed_calls = failed_calls_now(ServerEntry::from_json(entry), mark.now,
                                                 s.max_backoff_ms.value + s.ttl_ms.value);
            state::mark_unhealthy(entry, mark);
            retry_at = ServerEntry::from_json(entry).next_retry_at.value_or(0);
          };
          if (c != nullptr)
            state::record_verdict(doc, info_of(*c), mark.now, state::Writer::hook, mark_down);
          else
            state::record_unbound(doc, name, state::Writer::hook, mark_down);
          return true;
        },
        k_mark_lock_wait_ms);
    // The JS hook's line, except when no reconnect follows: after a 429, or with no command to run (announcing
    // one and then saying it was skipped reads as a contradiction).
    const bool rate_limited = state::row_of(code).after_failure == state::AfterFailure::no_reconnect;
    const bool has_command = recover::reconnect_command_for(m_ctx.server_settings(c, name),
                                                            c != nullptr ? c->definition.name : name, m_ctx.deps().env)
                                 .has_value();
    m_ctx.log(name + " reported " + code.text() + "; marking server unhealthy " +
              (rate_limited   ? "(" + std::string(state::row_of(code).name) + ": no reconnect)"
               : has_command ? std::string("and attempting reconnect")
                             : std::string("(no reconnect command configured)")));

    m_ctx.note_failed_call(call, text);
    const bool looping = written && crash_loop(mark.failed_calls);
    if (looping) {
      m_ctx.log(name + ": " + std::to_string(mark.failed_calls) + " calls in a row failed (the last on " + call.tool +
                "): it fails on calls, so a passing handshake does not clear it; blocked for the backoff");
    }
    const bool restored = reconnect_after_failure(
        call, c, code, !lock && lock.error().is(util::LockFailure::timed_out) ? LockHeld::no : LockHeld::yes,
        looping ? AfterReprobe::keep_mark : AfterReprobe::record);
    messages::Down down{name, call.tool, mark.error, code};
    down.client = m_ctx.voice();
    if (looping) down.failed_calls = mark.failed_calls;
    if (written) down.blocked_for_ms = retry_at - m_ctx.now();
    return carry_out(answer_after_failure(event, down,
                                          restored  ? FailureRecord::restored
                                          : written ? FailureRecord::marked
                                                    : FailureRecord::not_recorded));
  }

  /// A failure of a call that began before the server's current unhealthy mark: that outage, already recorded (a
  /// parallel call failing in the same moment). Tells the model the same as the first failure did, and marks nothing.
  std::optional<HookOutcome> same_outage(const std::string& event, const CallTarget& call, const Target& target,
                                         util::EpochMs began) {
    const state::StateSnapshot snap = m_ctx.store().read();
    const json::object* entry = state::decision_entry(snap.doc, call.server, target.binding.definition);
    if (entry == nullptr || !state::marked_since(*entry, began)) return std::nullopt;
    const ServerEntry e = ServerEntry::from_json(*entry);
    m_ctx.trace([&] {
      return call.server + " was marked unhealthy after this call began: the same outage, not counted again";
    });
    messages::Down down{call.server, call.tool, e.last_error.value_or(""), e.last_failure_code};
    down.client = m_ctx.voice();
    down.blocked_for_ms = *e.next_retry_at - m_ctx.now();
    return carry_out(answer_after_failure(event, down, FailureRecord::marked));
  }

  /// Whether this hook holds the definition's probe lock (or runs without one: the lock file cannot be used); no
  /// when another hook's probe or reconnect outlasted the wait.
  enum class LockHeld { no, yes };

  /// What a re-probe that passes after the reconnect does: record the server healthy, or keep the failure mark (a
  /// crash loop: its calls fail though its handshake passes).
  enum class AfterReprobe { record, keep_mark };

  /// The reconnect half of PostToolUseFailure; true when the server is back.
  bool reconnect_after_failure(const CallTarget& call, const config::Candidate* c, state::FailureCode code, LockHeld held,
                               AfterReprobe after) {
    const std::string& name = call.server;
    const config::Settings& s = m_ctx.server_settings(c, name);
    if (held == LockHeld::no) {
      m_ctx.log(name + " reconnect skipped: another hook is already probing or reconnecting it");
      return false;
    }
    // A name no config defines can still have its reconnect command run (a plain name only: see run_reconnect).
    recover::RecoveryRequest request =
        c != nullptr ? recover::request_for(*c, s, nullptr, recover::Reconnect::when_down)
                     : recover::RecoveryRequest{name, recover::NameOrigin::payload, nullptr, probe::spec_of(s),
                                                s.reconnect_timeout_ms.value, code, recover::Reconnect::when_down, nullptr,
                                                recover::policy_command(s)};
    request.previous_code = code;
    const HookDeps& deps = m_ctx.deps();
    const recover::ReconnectReport report =
        recover::reconnect_and_reprobe(request, code, deps.prober, deps.runner, deps.env);
    switch (report.attempt) {
    case recover::Attempt::none:
    case recover::Attempt::not_for_this_kind: return false; // said already: "rate limited: no reconnect"
    case recover::Attempt::no_command: return false; // said already
    case recover::Attempt::refused: m_ctx.log(name + " reconnect " + recover::describe(report)); return false;
    case recover::Attempt::failed: m_ctx.log(name + " reconnect failed: " + report.reason); return false;
    case recover::Attempt::ok: break;
    }
    if (!report.reprobe) {
      m_ctx.log(name + " reconnect completed but no config was available for a follow-up probe");
      return false;
    }
    if (!report.reprobe->ok) {
      m_ctx.log(name + " reconnect command ran, but health probe still failed: " + report.reprobe->reason);
      return false;
    }
    if (after == AfterReprobe::keep_mark) {
      m_ctx.log(name + " reconnect ran and its handshake passes, but its calls keep failing: still blocked");
      return false;
    }
    m_ctx.record(*c, *report.reprobe, state::RestoredBy::post_failure_reconnect);
    m_ctx.log(name + " connection restored");
    return true;
  }

  // --- PostToolUse

  /// A successful call proves the server is up. Writes only when that changes something (gate::after_success): an
  /// unhealthy mark cleared, or a healthy one past half its TTL extended.
  HookOutcome post_tool_use(const std::string& event, const CallTarget& call) {
    const state::StateSnapshot snap = m_ctx.store().read();
    std::optional<std::string> fingerprint;
    if (auto bound = m_ctx.bound_here(snap, call))
      fingerprint = bound->definition;
    else
      fingerprint = m_ctx.target(call, Context::Bind::no).binding.definition;
    const json::object* entry = state::decision_entry(snap.doc, call.server, fingerprint);
    if (entry == nullptr) return carry_out(allow(event));
    const util::EpochMs now = m_ctx.now();
    // A healthy mark carries its TTL (the policy that wrote it); only restoring one needs the settings.
    const auto judge = [&](const ServerEntry& cur) {
      const std::optional<std::int64_t> own = cur.ttl_ms();
      return after_success(cur, now, own ? *own : m_ctx.server_settings(nullptr, hook::server_key(call)).ttl_ms.value);
    };
    if (judge(ServerEntry::from_json(*entry)) == AfterSuccess::nothing)
      return carry_out(allow(event)); // the common case
    bool restored = false;
    m_ctx.update_state([&](json::object& doc) {
      bool changed = false;
      auto refresh = [&](json::object& cur) {
        const ServerEntry fresh = ServerEntry::from_json(cur);
        const std::int64_t ttl =
            fresh.ttl_ms() ? *fresh.ttl_ms() : m_ctx.server_settings(nullptr, hook::server_key(call)).ttl_ms.value;
        const AfterSuccess after = after_success(fresh, now, ttl);
        if (after == AfterSuccess::nothing) return;
        state::clear_failed_calls(cur); // a call succeeded: the row of failed ones ends
        switch (after) {
        case AfterSuccess::nothing:
        case AfterSuccess::forget_failed_calls: break;
        case AfterSuccess::restore:
          state::mark_healthy(
              cur, {.now = now, .ttl_ms = ttl, .source = fresh.source, .restored_by = state::RestoredBy::tool_success});
          restored = true;
          break;
        case AfterSuccess::extend: state::refresh_healthy(cur, now, ttl); break;
        }
        changed = true;
      };
      if (fingerprint && state::decision_entry(doc, call.server, fingerprint) != nullptr) {
        state::record_verdict(doc, {*fingerprint, {}, hook::server_key(call), {}, std::nullopt, std::nullopt},
                              now, state::Writer::tool_success, refresh);
      } else {
        state::record_unbound(doc, call.server, state::Writer::tool_success, refresh);
      }
      return changed;
    });
    if (restored) m_ctx.log(call.server + " connection restored (a tool call succeeded)");
    return carry_out(allow(event));
  }

  // --- SessionStart

  /// Binds the folder, starts one detached re-probe of every server whose mark is missing or stale, and names the
  /// servers known to be down to the model, so it plans around them from the first turn.
  HookOutcome session_start(const std::string& event) {
    m_ctx.note_seen();
    const config::Resolution& res = m_ctx.bind_folder();
    const state::StateSnapshot snap = m_ctx.store().read();
    std::vector<SessionServer> servers;
    for (const config::Candidate* c : res.winners()) {
      const json::object* entry = state::decision_entry(snap.doc, c->tool_server, c->fingerprint);
      SessionServer s{.name = c->tool_server};
      if (entry) {
        s.entry = ServerEntry::from_json(*entry);
        s.health = state::health_of(*s.entry, *entry);
      }
      if (c->resolved && !c->resolved->unset_vars.empty()) s.unset_variable = c->resolved->unset_vars.front();
      const config::Settings& settings = m_ctx.server_settings(c);
      s.skipped = settings.probe.value == config::ProbeMode::skip;
      s.ttl_ms = settings.ttl_ms.value;
      servers.push_back(std::move(s));
    }
    return carry_out(plan_session_start(event, servers, m_ctx.now(), m_ctx.retry_bound(), m_ctx.voice()));
  }

  Context m_ctx;
};

} // namespace

HookOutcome run_hook_engine(const HookRequest& request, HookDeps& deps) {
  HookOutcome out = Executor(request, deps).run();
  if (deps.trace) {
    deps.trace(std::string("decision: ") + (out.decision == HookOutcome::Decision::block ? "block" : "allow") +
               (out.additional_context ? " (with context for the model)" : ""));
  }
  return out;
}

} // namespace mcphealth::gate
