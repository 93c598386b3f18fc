#include <mcphealth/gate/engine.hpp>

#include <mcphealth/hook/messages.hpp>

#include <mcphealth/agent/agent.hpp>

#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/names.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/lockfile.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::gate {

namespace messages = hook::messages;
using hook::classify_failure;
using hook::failure_says_name;
using hook::FailureReading;
using hook::read_failure;

namespace json = boost::json;

const agent::Agent& HookRequest::client() const { return agent ? *agent : agent::default_agent(); }

std::string resolve_event_name(const HookRequest& request, const util::Environment& env) {
  return request.client().dialect.read(request.input, request.event_flag, env).event_name;
}

namespace {

using state::ServerEntry;
using state::StateStore;


/// What a server name means in this folder: the definition Claude Code uses, or why there is none.
struct Target {
  CallTarget call;
  state::Binding binding;
  /// The resolver's winner, once the configs were read (the slow path); nothing on the hot path.
  const config::Candidate* candidate = nullptr;
};

/// How long a failure mark waits for the state lock: long enough that a burst of writers never drops one.
constexpr std::int64_t k_mark_lock_wait_ms = 15'000;

/// One hook run: the payload, the seams, and what was worked out so far; run_hook_engine is its only door.
class HookRun {
public:
  HookRun(const HookRequest& request, HookDeps& deps)
      : m_request(request), m_deps(deps), m_agent(request.client()),
        m_hc(m_agent.dialect.read(request.input, request.event_flag, deps.env)) {}

  /// Decides: the event from the payload, the target from the tool name, then that event's steps.
  HookOutcome run() {
    const std::string& event_name = m_hc.event_name;
    const Event event = m_hc.event;
    m_event = event;
    trace([&] { return "event " + event_name + " (" + m_hc.event_source + ")" +
                       (&m_agent == &agent::default_agent() ? std::string() : ", from " + std::string(m_agent.name)); });
    if (event == Event::other && m_request.event_flag && !m_request.event_flag->empty()) {
      // A typo in the registered command would switch the gate off without a word.
      std::string known;
      for (std::string_view name : m_agent.dialect.event_names()) known += (known.empty() ? "" : ", ") + std::string(name);
      log("--event " + event_name + " is not an event mcphealth acts on (" + known +
          "): ignoring this call, which is allowed unchecked");
    }
    if (m_request.input.incomplete) return answer_incomplete(event_name, event);
    if (event == Event::session_start) return session_start(event_name);
    std::optional<CallTarget> call = m_hc.target;
    if (call && call->server.empty() && m_hc.endpoint) call = by_endpoint(*m_hc.endpoint, call->tool);
    if (call) call = settle_split(*call);
    if (!call) {
      trace([&] { return "tool " + (m_hc.names_tool ? m_hc.tool_name : std::string("(none)")) + " is not an MCP tool: allow"; });
      return allow(event_name);
    }
    if (call->server.size() > state::k_max_name_bytes) {
      log("the server name in " + event_name + " is " + std::to_string(call->server.size()) + " bytes, longer than any " +
          "MCP server's (at most " + std::to_string(state::k_max_name_bytes) + "): not checked, nothing recorded");
      return allow(event_name);
    }
    m_call = *call;
    trace([&] { return "tool on server " + call->server + ": " + call->tool; });
    if (m_request.input.parse_error) {
      log("the hook input is not valid JSON (" + *m_request.input.parse_error + "); " + event_name + " of " + call->tool +
          " on " + call->server + " is decided from the fields found in its text");
    }
    switch (event) {
    case Event::pre_tool_use: return pre_tool_use(event_name, *call);
    case Event::post_tool_use_failure: return post_tool_use_failure(event_name, *call);
    case Event::post_tool_use: return post_tool_use(event_name, *call);
    case Event::session_start:
    case Event::other: break;
    }
    return allow(event_name);
  }

private:
  /// Hands a step of the decision path to the trace; `make` builds its text only when someone reads it.
  template <typename Make>
  void trace(Make&& make) {
    if (m_deps.trace) m_deps.trace(make());
  }

  /// PreToolUse: the cache decides when it can (the hot path: the state file and a few stats); otherwise the
  /// configs are read, and the definition Claude Code uses is probed (and recovered) under its probe lock.
  HookOutcome pre_tool_use(const std::string& event, const CallTarget& call) {
    state::StateSnapshot snap = store().read();
    trace([&] { return "state file " + store().path().string() + ": " + std::string(state::load_status_words(snap.status)); });
    if (std::optional<state::Binding> bound = bound_here(snap, call.server)) {
      trace([&] {
        return "folder " + folder_key() + ": bindings current; " + call.server + " is " +
               (bound->definition ? "definition " + bound->definition->substr(0, 12) : bound->standing);
      });
      const json::object* entry = state::decision_entry(snap.doc, call.server, bound->definition);
      // The definition's own settings on this path too (the binding keeps its project): a per-project policy rule
      // must not depend on the order of calls.
      m_bound_project = bound->project;
      if (auto cached = decide_from_cache(event, call, entry)) return *cached;
      if (!bound->definition) return allow_unbound(event, call.server, *bound);
      // Skipped by a policy entry that does not depend on the folder: no need to read the configs to know it.
      if (!policy().has_project_rules() && server_settings(nullptr, call.server).probe.value == config::ProbeMode::skip) {
        return allow_skipped(event, call.server);
      }
    }
    trace([&] { return "folder " + folder_key() + ": no current bindings for " + call.server + "; reading the configs"; });
    const Target target = resolve_target(call);
    trace([&] {
      const config::Candidate* c = target.candidate;
      return c ? call.server + " is defined in " + c->definition.source.string() + " (" +
                     std::string(config::scope_name(c->scope)) + " scope), definition " + c->fingerprint.substr(0, 12)
               : call.server + ": no definition Claude Code starts here (" + target.binding.standing +
                     (target.binding.reason.empty() ? "" : ": " + target.binding.reason) + ")";
    });
    if (auto cached = decide_from_cache(event, call, state::decision_entry(snap.doc, call.server, target.binding.definition))) {
      return *cached;
    }
    if (target.candidate == nullptr) return allow_unbound(event, call.server, target.binding);
    if (server_settings(target.candidate).probe.value == config::ProbeMode::skip) return allow_skipped(event, call.server);

    // One probe at a time per definition: a hook that finds one in flight waits for its result.
    // Without the lock (the lock file cannot be used, or another hook's probe outlasted the wait) the probe goes
    // ahead: a duplicate probe is better than a call decided on nothing.
    const auto lock = store().lock_probe(target.candidate->fingerprint, probe_lock_wait_ms());
    // Read again under the lock: another hook may have probed and recorded since the read above, and released the
    // lock before this one asked for it (so it was taken without waiting).
    if (lock) {
      snap = store().read();
      trace([&] { return std::string("probe lock taken") + (lock->waited() ? " after waiting" : "") + "; state re-read"; });
      if (auto now_cached = decide_from_cache(event, call, state::decision_entry(snap.doc, call.server, target.binding.definition))) {
        return *now_cached;
      }
    }
    return probe_and_decide(event, target, state::decision_entry(snap.doc, call.server, target.binding.definition));
  }

  /// Probes the definition through the one recovery policy, records the verdict, and allows or blocks.
  /// `entry` is the definition's last verdict, if any.
  HookOutcome probe_and_decide(const std::string& event, const Target& target, const json::object* entry) {
    const config::Candidate& c = *target.candidate;
    const std::string& name = target.call.server;
    const std::optional<ServerEntry> before = entry ? std::optional(ServerEntry::from_json(*entry)) : std::nullopt;
    const recover::RecoveryRequest request =
        recover::request_for(c, server_settings(&c), entry, recover::Reconnect::when_down);
    const util::EpochMs probe_start = m_deps.clock.now_ms();
    const recover::Recovery recovery = recover::check_and_recover(request, m_deps.prober, m_deps.runner, m_deps.env);
    const probe::ProbeResult& result = recovery.result;
    trace([&] {
      std::string text = "probe of " + name + ": " + probe::kind_name(result.kind) + " (" +
                         std::string(state::health_name(probe::health_of(result))) + ") in " +
                         std::to_string(m_deps.clock.now_ms() - probe_start) + " ms";
      if (result.protocol_version) text += ", protocol " + *result.protocol_version;
      if (!result.ok && !result.reason.empty()) text += ": " + util::last_meaningful_line(result.reason);
      if (recovery.reconnect.attempt != recover::Attempt::none) text += "; reconnect " + recover::describe(recovery.reconnect);
      return text;
    });
    if (result.kind == probe::Kind::not_probed || result.kind == probe::Kind::local_fault) {
      log(name + " could not be probed (" + result.reason + "); skipping preflight probe");
      return allow(event);
    }
    const std::optional<util::EpochMs> retry_at = record(c, result, recovery.restored_by);
    if (result.ok) {
      if (recovery.restored_by) log(name + " connection restored after reconnect");
      else if (before && before->unhealthy()) log(name + " connection restored");
      return allow(event);
    }
    std::string attempt_note;
    if (recovery.reconnect.attempt == recover::Attempt::ok || recovery.reconnect.attempt == recover::Attempt::failed ||
        recovery.reconnect.attempt == recover::Attempt::refused) {
      attempt_note = " Reconnect attempt: " + recover::describe(recovery.reconnect) + ".";
    }
    if (result.kind == probe::Kind::misconfigured) {
      const std::string missing = c.resolved && !c.resolved->unset_vars.empty() ? c.resolved->unset_vars.front() : "a variable";
      return block(event,
                   {name + " is " + result.reason + ", so it fails under Claude Code too",
                    "Blocking " + target.call.tool + " so Claude can fall back to non-MCP tools.", BlockLine::sentence},
                   messages::blocked_misconfigured(name, target.call.tool, missing, voice()));
    }
    messages::Down down{name, target.call.tool, result.reason, result.code};
    down.client = voice();
    if (retry_at) down.blocked_for_ms = *retry_at - m_deps.clock.now_ms();
    down.restart_tried = recovery.reconnect.attempt == recover::Attempt::ok || recovery.reconnect.attempt == recover::Attempt::failed;
    return block(event,
                 {name + " is unavailable (" + result.reason + ")",
                  "Blocking " + target.call.tool + " so Claude can fall back to non-MCP tools.", BlockLine::sentence,
                  attempt_note},
                 messages::blocked_after_probe(down));
  }

  /// PostToolUseFailure: a failure that shows a server in trouble marks it down, then the reconnect command runs
  /// (never after a 429) and a re-probe may restore it at once. The client's text decides when it can; when it says
  /// only that a remote server failed (no status, or no sign at all), the server is asked: a probe marks it by what
  /// it answers. Failures of calls that began before the server was marked are that same outage: one failure.
  HookOutcome post_tool_use_failure(const std::string& event, const CallTarget& call) {
    if (m_hc.interrupted) return allow(event); // the user pressed Esc
    const std::string& text = m_hc.failure_text;
    const FailureReading reading = read_failure(text, m_hc.tool_input, m_agent.dialect.failure_wordings());
    const std::string& name = call.server;
    trace([&] {
      return "failure text: " + std::string(failure_says_name(reading.says)) +
             (reading.wording.empty() ? std::string() : " (the client's wording \"" + std::string(reading.wording) + "\")");
    });
    if (reading.input_named) {
      log(name + " failed on " + *reading.input_named + ", a host this call's input named: the input's fault, not " + name +
          "'s; nothing recorded");
      return allow(event);
    }
    // A failure that says nothing binds nothing: it is only read whether the server is remote, to be asked.
    Target target = resolve_target(call, reading.code ? Bind::yes : Bind::no);
    const config::Candidate* c = target.candidate;
    const config::Settings& s = server_settings(c, name);
    const bool ask_server = c != nullptr && c->resolved && reading.says != FailureReading::Says::status &&
                            std::holds_alternative<config::HttpServer>(c->resolved->transport) &&
                            s.probe.value != config::ProbeMode::skip;
    if (!ask_server && !reading.code) return allow(event);
    if (!reading.code) target = resolve_target(call);

    const util::EpochMs now = m_deps.clock.now_ms();
    const util::EpochMs began = now - m_hc.duration_ms;
    // One probe or mark at a time per definition: parallel failures wait here, then find the first one's mark. The
    // wait is one probe's worth: a background refresh may hold the lock far longer, and then this hook goes ahead.
    const std::string lock_key = c ? c->fingerprint : name;
    const auto lock = store().lock_probe(lock_key, s.timeout_ms.value + 1000);
    if (std::optional<HookOutcome> same = same_outage(event, call, target, began)) return *same;

    state::UnhealthyMark mark{now, util::cap_utf8(text, k_max_model_text_bytes), reading.code.value_or(state::FailureCode::none()),
                              c ? std::optional(c->definition.source.string()) : std::nullopt,
                              s.backoff_ms.value, s.max_backoff_ms.value, std::nullopt, std::nullopt, began};
    if (ask_server) {
      const Asked said = ask_after_failure(*c, s, reading, text, mark);
      if (said == Asked::up || (said == Asked::unknown && !reading.code)) return allow(event);
    }
    const state::FailureCode code = mark.code;
    util::EpochMs retry_at = 0;
    // A failure mark is what the next call is blocked by: under a burst of writers it waits its turn longer than
    // other writes rather than be dropped (the client's hook timeout is a minute).
    const bool written = update_state(
        [&](json::object& doc) {
          auto mark_down = [&](json::object& entry) {
            state::mark_unhealthy(entry, mark);
            retry_at = ServerEntry::from_json(entry).next_retry_at.value_or(0);
          };
          if (c != nullptr) state::record_verdict(doc, info_of(*c), mark.now, state::Writer::hook, mark_down);
          else state::record_unbound(doc, name, state::Writer::hook, mark_down);
          return true;
        },
        k_mark_lock_wait_ms);
    // The JS hook's line, except after a 429: no reconnect follows a rate limit, so none is announced.
    log(name + " reported " + code.text() + "; marking server unhealthy " +
        (code.is_rate_limit() ? "(rate limited: no reconnect)" : "and attempting reconnect"));

    const bool restored = reconnect_after_failure(
        call, c, code, !lock && lock.error().is(util::LockFailure::timed_out) ? LockHeld::no : LockHeld::yes);
    messages::Down down{name, call.tool, mark.error, code};
    down.client = voice();
    if (restored) return allow(event, messages::failed_then_restored(name, code));
    if (written) {
      down.blocked_for_ms = retry_at - m_deps.clock.now_ms();
      return allow(event, messages::failed_and_marked_down(down));
    }
    // Nothing was recorded, so nothing will block the next call: say what is known, not a mark that does not exist.
    return allow(event, messages::failed_not_recorded(down));
  }

  /// What the probe after a failed call said: `down` (laid onto `mark`), `up` (it answered: nothing to mark) or
  /// `unknown` (no probe could be made here: the text alone decides).
  enum class Asked { down, up, unknown };
  Asked ask_after_failure(const config::Candidate& c, const config::Settings& s, const FailureReading& reading,
                          const std::string& text, state::UnhealthyMark& mark) {
    const std::string& name = c.tool_server;
    const state::StateSnapshot snap = store().read();
    const probe::ProbeResult asked =
        m_deps.prober.probe(*c.resolved, probe::spec_of(s, state::decision_entry(snap.doc, name, c.fingerprint)));
    trace([&] { return "asked " + name + " after the failed call: " + probe::kind_name(asked.kind) +
                       (asked.reason.empty() ? std::string() : " (" + asked.reason + ")"); });
    if (asked.kind == probe::Kind::not_probed || asked.kind == probe::Kind::local_fault) return Asked::unknown;
    if (!asked.ok || refuses_as_it_refused_the_client(reading, asked)) {
      std::string why = asked.reason;
      if (why.empty() && asked.http_status) why = "HTTP " + std::to_string(*asked.http_status);
      mark.error = util::cap_utf8(why.empty() ? text : why, k_max_model_text_bytes);
      mark.code = asked.code.present() ? asked.code
                  : asked.http_status ? state::FailureCode::http(*asked.http_status)
                                      : state::FailureCode::transport();
      mark.retry_after_ms = asked.retry_after_ms;
      mark.probe = asked.details();
      return Asked::down;
    }
    if (asked.kind == probe::Kind::needs_auth && failure_is_the_servers_refusal(text, asked)) {
      // The client's own token no longer works: the server refuses it as it refuses a probe without one.
      mark.code = state::FailureCode::http(401);
      mark.probe = asked.details();
      return Asked::down;
    }
    log(name + " failed a call but answered a probe right after (" + probe::kind_name(asked.kind) +
        "); not marking it unhealthy");
    return Asked::up;
  }

  /// A failure of a call that began before the server's current unhealthy mark: that outage, already recorded (a
  /// parallel call failing in the same moment). Tells the model the same as the first failure did, and marks nothing.
  std::optional<HookOutcome> same_outage(const std::string& event, const CallTarget& call, const Target& target,
                                         util::EpochMs began) {
    const state::StateSnapshot snap = store().read();
    const json::object* entry = state::decision_entry(snap.doc, call.server, target.binding.definition);
    if (entry == nullptr || !state::marked_since(*entry, began)) return std::nullopt;
    const ServerEntry e = ServerEntry::from_json(*entry);
    trace([&] { return call.server + " was marked unhealthy after this call began: the same outage, not counted again"; });
    messages::Down down{call.server, call.tool, e.last_error.value_or(""), e.last_failure_code};
    down.client = voice();
    down.blocked_for_ms = *e.next_retry_at - m_deps.clock.now_ms();
    return allow(event, messages::failed_and_marked_down(down));
  }

  /// True when the client's POST failed without a status and the probe's POST got a refusal (403, 429, 503, ...):
  /// what the client met. A status a live endpoint gives a probe otherwise counts as up (`reachable`).
  static bool refuses_as_it_refused_the_client(const FailureReading& reading, const probe::ProbeResult& asked) {
    return reading.says == FailureReading::Says::http_unknown && asked.http_status &&
           (*asked.http_status < 200 || *asked.http_status >= 300) && *asked.http_status != 401;
  }

  /// True when a probe's refusal is the one the client met: the client said 401, or its text is the server's own
  /// OAuth error description. Without that, a probe's 401 only says the probe had no token (the client has one).
  static bool failure_is_the_servers_refusal(const std::string& text, const probe::ProbeResult& asked) {
    if (classify_failure(text) == state::FailureCode::http(401)) return true;
    return asked.auth_error && !asked.auth_error->empty() && text.find(*asked.auth_error) != std::string::npos;
  }

  /// The reconnect half of PostToolUseFailure; true when the server is back.
  /// Whether this hook holds the definition's probe lock (or runs without one: the lock file cannot be used); no when
  /// another hook's probe or reconnect outlasted the wait.
  enum class LockHeld { no, yes };
  bool reconnect_after_failure(const CallTarget& call, const config::Candidate* c, state::FailureCode code, LockHeld held) {
    const std::string& name = call.server;
    const config::Settings& s = server_settings(c, name);
    if (held == LockHeld::no) {
      log(name + " reconnect skipped: another hook is already probing or reconnecting it");
      return false;
    }
    // A name no config defines can still have its reconnect command run (a plain name only: see run_reconnect).
    recover::RecoveryRequest request =
        c != nullptr ? recover::request_for(*c, s, nullptr, recover::Reconnect::when_down)
                     : recover::RecoveryRequest{name, recover::NameOrigin::payload, nullptr, probe::spec_of(s),
                                                s.reconnect_timeout_ms.value, code, recover::Reconnect::when_down, nullptr,
                                                recover::policy_command(s)};
    request.previous_code = code;
    const recover::ReconnectReport report =
        recover::reconnect_and_reprobe(request, code, m_deps.prober, m_deps.runner, m_deps.env);
    switch (report.attempt) {
    case recover::Attempt::none:
    case recover::Attempt::rate_limited: return false; // said already: "rate limited: no reconnect"
    case recover::Attempt::no_command:
    case recover::Attempt::refused: log(name + " reconnect " + recover::describe(report)); return false;
    case recover::Attempt::failed: log(name + " reconnect failed: " + report.reason); return false;
    case recover::Attempt::ok: break;
    }
    if (!report.reprobe) {
      log(name + " reconnect completed but no config was available for a follow-up probe");
      return false;
    }
    if (!report.reprobe->ok) {
      log(name + " reconnect command ran, but health probe still failed: " + report.reprobe->reason);
      return false;
    }
    record(*c, *report.reprobe, state::RestoredBy::post_failure_reconnect);
    log(name + " connection restored");
    return true;
  }

  /// PostToolUse: a successful call proves the server is up. Writes only when that changes something: an unhealthy
  /// mark cleared, or a healthy one past half its TTL extended.
  HookOutcome post_tool_use(const std::string& event, const CallTarget& call) {
    state::StateSnapshot snap = store().read();
    std::optional<std::string> fingerprint;
    if (auto bound = bound_here(snap, call.server)) fingerprint = bound->definition;
    else fingerprint = resolve_target(call, Bind::no).binding.definition;
    const json::object* entry = state::decision_entry(snap.doc, call.server, fingerprint);
    if (entry == nullptr) return allow(event);
    const util::EpochMs now = m_deps.clock.now_ms();
    // A healthy mark carries its TTL (the policy that wrote it); only restoring one needs the settings.
    const auto ttl_of = [&](const ServerEntry& cur) {
      if (auto own = cur.ttl_ms()) return *own;
      return server_settings(nullptr, call.server).ttl_ms.value;
    };
    const auto needs_refresh = [&](const ServerEntry& cur) {
      return cur.unhealthy() || (cur.healthy() && cur.expires_at.value_or(0) - now < ttl_of(cur) / 2);
    };
    if (!needs_refresh(ServerEntry::from_json(*entry))) return allow(event); // runs on every success: write nothing
    bool restored = false;
    update_state([&](json::object& doc) {
      bool changed = false;
      auto refresh = [&](json::object& cur) {
        const ServerEntry fresh = ServerEntry::from_json(cur);
        if (!needs_refresh(fresh)) return;
        changed = true;
        if (fresh.unhealthy()) {
          state::mark_healthy(cur, {now, ttl_of(fresh), fresh.source, state::RestoredBy::tool_success, std::nullopt});
          restored = true;
        } else {
          state::refresh_healthy(cur, now, ttl_of(fresh));
        }
      };
      if (fingerprint && state::decision_entry(doc, call.server, fingerprint) != nullptr) {
        state::record_verdict(doc, {*fingerprint, {}, config::tool_server_name(call.server), {}, std::nullopt, std::nullopt},
                              now, state::Writer::tool_success, refresh);
      } else {
        state::record_unbound(doc, call.server, state::Writer::tool_success, refresh);
      }
      return changed;
    });
    if (restored) log(call.server + " connection restored (a tool call succeeded)");
    return allow(event);
  }

  /// SessionStart: binds the folder, starts one detached re-probe of every server whose mark is missing or stale,
  /// and names the servers known to be down to the model, so it plans around them from the first turn.
  HookOutcome session_start(const std::string& event) {
    const config::Resolution& res = resolution(Bind::yes, std::nullopt);
    const state::StateSnapshot snap = store().read();
    const util::EpochMs now = m_deps.clock.now_ms();
    std::vector<std::string> to_refresh;
    std::vector<messages::SessionNote> notes;
    using Note = messages::SessionNote;
    for (const config::Candidate* c : res.winners()) {
      const json::object* entry = state::decision_entry(snap.doc, c->tool_server, c->fingerprint);
      if (entry && state::health_of(ServerEntry::from_json(*entry), *entry) == state::Health::misconfigured &&
          c->resolved && !c->resolved->unset_vars.empty()) {
        notes.push_back({c->tool_server, Note::Kind::misconfigured, c->resolved->unset_vars.front(), std::nullopt});
        continue;
      }
      const bool skipped = server_settings(c).probe.value == config::ProbeMode::skip; // nothing to refresh
      if (entry == nullptr) {
        if (!skipped) to_refresh.push_back(c->tool_server);
        continue;
      }
      const ServerEntry e = ServerEntry::from_json(*entry);
      const state::Outlook st = state::outlook_of(e, now, retry_bound(), server_settings(c).ttl_ms.value);
      if (state::health_of(e, *entry) == state::Health::needs_auth) {
        notes.push_back({c->tool_server, Note::Kind::needs_auth, {}, std::nullopt});
      }
      if (st.freshness == state::Freshness::in_backoff) {
        notes.push_back({c->tool_server, Note::Kind::down, e.last_error.value_or(""), *st.retry_at - now});
      } else if (st.freshness != state::Freshness::fresh && !skipped) {
        // Down, its retry due: the refresh below probes it now, and the model hears it may come back.
        if (st.freshness == state::Freshness::due && e.unhealthy()) {
          notes.push_back({c->tool_server, Note::Kind::rechecking, e.last_error.value_or(""), std::nullopt});
        }
        to_refresh.push_back(c->tool_server);
      }
    }
    if (!to_refresh.empty() && m_deps.start_refresh) m_deps.start_refresh(inputs().project_dir.string(), to_refresh);
    if (notes.empty()) return allow(event);
    return allow(event, messages::session_start(notes, voice()));
  }

  /// A payload over the limit cannot be checked safely: PreToolUse blocks it (the JS hook's wording, which people
  /// grep for), unless fail-open; the other events record nothing.
  HookOutcome answer_incomplete(const std::string& event_name, Event event) {
    const std::optional<CallTarget>& call = m_hc.target;
    const std::string limit = std::to_string(m_request.input.limit);
    if (event == Event::pre_tool_use) {
      if (!call) {
        if (m_hc.names_tool) return allow(event_name); // not an MCP call
        // The name comes after the cut: it may be an MCP call, and letting it through unchecked is the bypass.
        if (settings().fail_open.value) {
          log("Hook input exceeded " + limit + " bytes before its tool name; allowing the call because fail-open mode is enabled");
          return allow(event_name);
        }
        return block(event_name,
                     {"Hook input exceeded " + limit + " bytes before its tool name",
                      "blocking the call to avoid bypassing MCP health checks", BlockLine::clause},
                     messages::blocked_input_too_large_unnamed(limit));
      }
      if (server_settings(nullptr, call->server).fail_open.value) {
        log("Hook input exceeded " + limit + " bytes while checking " + call->server + "; allowing " + call->tool +
            " because fail-open mode is enabled");
        return allow(event_name);
      }
      return block(event_name,
                   {"Hook input exceeded " + limit + " bytes while checking " + call->server,
                    "blocking " + call->tool + " to avoid bypassing MCP health checks", BlockLine::clause},
                   messages::blocked_input_too_large(call->server, call->tool, limit));
    }
    if (event == Event::post_tool_use_failure && call) {
      log("Hook input exceeded " + limit + " bytes; not recording the failure of " + call->tool + " on " + call->server);
    }
    return allow(event_name);
  }

  // --- Where the servers are: bindings on the hot path, the resolver on the slow one.

  /// A tool name that splits more than one way (`mcp__my__srv__echo`: a server's name may hold `__`) is the
  /// longest server name this folder knows: from its current bindings, else from the configs. A name nothing
  /// defines keeps the first split. One split (the usual case) costs nothing.
  CallTarget settle_split(const CallTarget& first) {
    const std::vector<CallTarget>& splits = m_hc.readings;
    const std::string& tool_name = m_hc.tool_name;
    if (splits.size() < 2) return first;
    auto known = [&](auto&& is_defined) {
      for (const CallTarget& s : splits) {
        if (is_defined(s.server)) {
          trace([&] { return "tool name " + std::string(tool_name) + " splits " + std::to_string(splits.size()) +
                             " ways: the server defined here is " + s.server; });
          return std::optional<CallTarget>(s);
        }
      }
      return std::optional<CallTarget>();
    };
    const state::StateSnapshot snap = store().read();
    if (const std::optional<state::FolderBindings> folder = current_bindings(snap)) {
      if (auto s = known([&](const std::string& server) {
            const auto b = folder->find(config::tool_server_name(server));
            return b && (b->definition || b->standing != "none");
          })) {
        return *s;
      }
      return first;
    }
    const config::Resolution& res = resolution(Bind::no, std::nullopt);
    if (auto s = known([&](const std::string& server) {
          return std::any_of(res.candidates.begin(), res.candidates.end(),
                             [&](const config::Candidate& c) { return c.tool_server == server; });
        })) {
      return *s;
    }
    return first;
  }

  /// The definition the agent starts at `endpoint` (a URL, or a command line: the command alone or with its
  /// arguments), when the agent names a server that way. Reads the configs: there is no name to look up a binding by.
  std::optional<CallTarget> by_endpoint(const std::string& endpoint, const std::string& tool) {
    const config::Resolution& res = resolution(Bind::no, std::nullopt);
    for (const config::Candidate* c : res.winners()) {
      if (!c->resolved) continue;
      bool same = false;
      if (const auto* http = std::get_if<config::HttpServer>(&c->resolved->transport)) {
        same = util::same_url(http->url.for_transport(), endpoint);
      }
      if (const auto* stdio = std::get_if<config::StdioServer>(&c->resolved->transport)) {
        std::string line = stdio->command;
        for (const auto& a : stdio->args) line += " " + a;
        same = stdio->command == endpoint || line == endpoint;
      }
      if (same) {
        trace([&] { return "the server at " + util::redact_url(endpoint) + " is " + c->tool_server; });
        return CallTarget{c->tool_server, tool};
      }
    }
    trace([&] { return "no definition here starts a server at " + util::redact_url(endpoint) + ": not checked"; });
    return std::nullopt;
  }

  /// The discovery inputs of this run: the folder from CLAUDE_PROJECT_DIR, else the payload's cwd.
  const config::DiscoveryInputs& inputs() {
    if (!m_inputs) {
      const std::string& cwd = m_hc.folder;
      // Only the config paths: a cache hit must not pay for resolving every setting.
      std::vector<config::SettingWarning> said_later; // the same warnings come with settings(), off the hot path
      m_inputs = config::discovery_inputs(
          m_deps.env, config::resolve_config_paths(m_deps.env, m_request.overrides, said_later).value, cwd);
      m_inputs->reader = &reader();
      // A call proves the client started a server of that name, so the call's events follow the client's mode;
      // SessionStart (a warm-up no call asked for) keeps the interactive rule: nothing pending is started.
      if (m_event != Event::session_start) {
        m_agent.catalogue.read_start(*m_inputs, m_deps.env);
        if (const auto& client = m_inputs->client) {
          trace([&] { // the values may hold credentials: counted, not shown
            return std::string(m_agent.name) + " was started with " + std::to_string(client->mcp_configs.size()) +
                   " --mcp-config value(s)" + (client->strict ? " and --strict-mcp-config" : "");
          });
        }
      }
    }
    return *m_inputs;
  }

  /// The folder's key in the state file's bindings; headless runs bind apart, their rule being another, and so do
  /// sessions given servers on their command line, and every agent but Claude Code (whose keys predate the others).
  std::string folder_key() {
    const config::DiscoveryInputs& in = inputs();
    std::vector<std::string> how;
    if (in.mode == config::DiscoveryInputs::Mode::headless) how.emplace_back("headless");
    if (in.client) how.push_back("--mcp-config " + in.client->stamp());
    return agent::folder_key(m_agent, in.project_dir.string(), how);
  }

  /// The binding of `server` in this folder when the stored one still holds (no watched file or variable changed):
  /// stats, no config read.
  std::optional<state::Binding> bound_here(const state::StateSnapshot& snap, const std::string& server) {
    const std::optional<state::FolderBindings> folder = current_bindings(snap);
    if (!folder) return std::nullopt;
    return folder->find(config::tool_server_name(server));
  }

  /// This folder's bindings, when they still hold (no watched file or variable changed).
  std::optional<state::FolderBindings> current_bindings(const state::StateSnapshot& snap) {
    std::optional<state::FolderBindings> folder = state::folder_bindings(snap.doc, folder_key());
    if (!folder) return std::nullopt;
    const std::vector<std::filesystem::path> files(folder->files.begin(), folder->files.end());
    if (config::resolution_stamp(files, folder->variables, m_deps.env, reader()) != folder->stamp) return std::nullopt;
    return folder;
  }

  /// Whether resolving records the folder's bindings (PreToolUse, failures and session start do; a success only
  /// reads them).
  enum class Bind { yes, no };

  /// Reads the configs (once per run) and, with Bind::yes, records what every name means in this folder (and
  /// `extra`, a name nothing defines, as such), adopting an undistinguished entry for a winner.
  const config::Resolution& resolution(Bind bind, const std::optional<std::string>& extra) {
    if (!m_resolution) {
      say_setup_warnings();
      m_resolution = m_agent.catalogue.resolve(inputs(), m_deps.env);
    }
    if (bind == Bind::no) return *m_resolution;
    std::vector<std::pair<std::string, state::Binding>> names;
    for (const auto& c : m_resolution->candidates) {
      if (std::none_of(names.begin(), names.end(), [&](const auto& n) { return n.first == c.tool_server; })) {
        names.emplace_back(c.tool_server, binding_for(*m_resolution, c.tool_server));
      }
    }
    if (extra && std::none_of(names.begin(), names.end(), [&](const auto& n) { return n.first == *extra; })) {
      names.emplace_back(*extra, binding_for(*m_resolution, *extra));
    }
    std::vector<std::string> files;
    for (const auto& f : m_resolution->read_files) files.push_back(f.string());
    const std::string stamp = config::resolution_stamp(inputs(), *m_resolution, m_deps.env);
    const util::EpochMs now = m_deps.clock.now_ms();
    update_state([&](json::object& doc) {
      state::bind_folder(doc, folder_key(), stamp, files, m_resolution->variables, names, now);
      // An entry from before definitions were told apart (or the JS hook's) becomes its definition's verdict.
      for (const config::Candidate* c : m_resolution->winners()) {
        if (!state::verdicts(doc).contains(c->fingerprint) && state::decision_entry(doc, c->tool_server, std::nullopt)) {
          state::record_verdict(doc, info_of(*c), now, state::Writer::adopted, [](json::object&) {});
        }
      }
      return true;
    });
    return *m_resolution;
  }

  /// The target of a call, from the configs (see resolution()).
  Target resolve_target(const CallTarget& call, Bind bind = Bind::yes) {
    const config::Resolution& res = resolution(bind, config::tool_server_name(call.server));
    m_candidate = res.winner(call.server);
    return Target{call, binding_for(res, call.server), m_candidate};
  }

  static state::Binding binding_for(const config::Resolution& res, const std::string& server) {
    if (const config::Candidate* c = res.winner(server)) return {c->fingerprint, "active", {}, c->project};
    const std::vector<const config::Candidate*> all = res.candidates_for(server);
    if (all.empty()) {
      // Nothing defines it, as far as could be read: a file that could not be read may be where it is.
      std::string unread;
      for (const config::FileReport& f : res.files) {
        if (f.status != config::FileReport::Status::parse_error && f.status != config::FileReport::Status::unreadable) continue;
        unread += (unread.empty() ? "" : "; ") + f.source.file.string() + " could not be read (" + f.error + ")";
      }
      return {std::nullopt, "none", unread};
    }
    return {std::nullopt, std::string(config::standing_name(all.front()->standing)), all.front()->reason};
  }

  static state::DefinitionInfo info_of(const config::Candidate& c) {
    return {c.fingerprint, c.definition.name,  c.tool_server, std::string(config::scope_name(c.scope)),
            c.project,     c.definition.source.string()};
  }

  /// Allows a call to a name Claude Code starts no server for here, saying why.
  HookOutcome allow_unbound(const std::string& event, const std::string& name, const state::Binding& binding) {
    if (binding.standing == "none") {
      log("No MCP config found for " + name + "; skipping preflight probe");
      if (!binding.reason.empty()) log("it may be defined where mcphealth could not look: " + binding.reason);
    } else {
      log(name + " is not checked: " + binding.reason + "; skipping preflight probe");
    }
    return allow(event);
  }

  // --- Decisions and records.

  /// A decision when the cache holds one: fresh healthy allows, unhealthy in backoff blocks.
  std::optional<HookOutcome> decide_from_cache(const std::string& event, const CallTarget& call, const json::object* entry) {
    const util::EpochMs now = m_deps.clock.now_ms();
    CacheRules rules;
    const std::optional<ServerEntry> read = entry ? std::optional<ServerEntry>(ServerEntry::from_json(*entry)) : std::nullopt;
    // The retry bound needs the settings; a healthy entry (the common hit) does not.
    if (read && read->unhealthy()) rules.retry_bound_ms = retry_bound();
    rules.refresh = refresh_in_background() && m_deps.start_refresh ? Refresh::background : Refresh::inline_probe;
    const std::optional<std::int64_t> claimed = read ? read->ttl_ms() : std::nullopt;
    if (read && rules.refresh == Refresh::background && !claimed) {
      rules.default_ttl_ms = settings().ttl_ms.value; // a mark mcphealth wrote carries its own TTL
    }
    // A healthy mark is fresh no longer past its check than the TTL in force. The common hit, a mark that claims no
    // more than the default TTL, needs no settings for that; a longer claim is held to the environment's TTL, or
    // the policy's when the mark claims more still (a policy may give a server a longer one).
    if (read && read->healthy() && (!claimed || *claimed > config::k_default_ttl_ms)) {
      rules.ttl_bound_ms = settings().ttl_ms.value;
      if (claimed && *claimed > rules.ttl_bound_ms) rules.ttl_bound_ms = server_settings(nullptr, call.server).ttl_ms.value;
    }
    const CacheDecision d = gate::decide_from_cache(entry, now, rules);
    const ServerEntry& e = d.entry;
    const state::Outlook& st = d.outlook;
    trace([&] {
      switch (d.verdict) {
      case CacheVerdict::no_entry: return "cache: no entry for " + call.server;
      case CacheVerdict::allow:
        return "cache: healthy, fresh for " + util::format_duration_short(e.expires_at.value_or(now) - now) + ": allow";
      case CacheVerdict::block_down:
      case CacheVerdict::block_misconfigured:
        return "cache: unhealthy (" + e.last_error.value_or("") + "), retry in " +
               util::format_duration_short(*st.retry_at - now) + ": block";
      case CacheVerdict::allow_and_refresh:
        return "cache: healthy but expired " + util::format_duration_short(st.stale_for_ms) +
               " ago: allow now; a background refresh re-probes it";
      case CacheVerdict::probe: break;
      }
      if (st.freshness == state::Freshness::stale) {
        return "cache: healthy but expired " + util::format_duration_short(st.stale_for_ms) +
               " ago, by more than a TTL (or refresh is inline): probe now";
      }
      if (st.freshness == state::Freshness::due) return std::string("cache: unhealthy, retry due: probe");
      return "cache: status '" + e.status + "' decides nothing: probe";
    });
    if ((d.verdict == CacheVerdict::block_down || d.verdict == CacheVerdict::block_misconfigured) && d.retry_capped) {
      log(call.server + ": nextRetryAt " + util::format_iso8601_ms(*e.next_retry_at) +
          " is further out than any backoff writes; honouring it only until " + util::format_iso8601_ms(*st.retry_at));
    }
    switch (d.verdict) {
    case CacheVerdict::allow: return allow(event);
    case CacheVerdict::block_misconfigured:
      return block(event,
                   {call.server + " is marked misconfigured until " + util::format_iso8601_ms(*st.retry_at),
                    "skipping " + call.tool, BlockLine::clause},
                   messages::blocked_misconfigured(call.server, call.tool,
                                                   d.missing_variable.empty() ? "a variable" : d.missing_variable, voice()));
    case CacheVerdict::block_down: {
      messages::Down down{call.server, call.tool, e.last_error.value_or(""), e.last_failure_code, *st.retry_at - now,
                          std::nullopt, e.failure_count};
      down.client = voice();
      if (e.down_since && *e.down_since <= now) down.down_for_ms = now - *e.down_since;
      return block(event,
                   {call.server + " is marked unhealthy until " + util::format_iso8601_ms(*st.retry_at),
                    "skipping " + call.tool, BlockLine::clause},
                   messages::blocked_from_cache(down));
    }
    case CacheVerdict::allow_and_refresh:
      m_deps.start_refresh(inputs().project_dir.string(), {config::tool_server_name(call.server)});
      return allow(event);
    case CacheVerdict::no_entry:
    case CacheVerdict::probe: break;
    }
    return std::nullopt;
  }

  /// The most a nextRetryAt is honoured past its check: the backoff cap, or the Retry-After cap if larger.
  std::int64_t retry_bound() {
    const std::int64_t cap = m_call ? server_settings(m_candidate, m_call->server).max_backoff_ms.value
                                    : settings().max_backoff_ms.value;
    return state::retry_bound(cap);
  }

  /// `MCPHEALTH_REFRESH=inline` makes a stale mark wait for its probe, as before; `background` (the default) does not.
  bool refresh_in_background() {
    const auto mode = m_deps.env.get("MCPHEALTH_REFRESH");
    return !mode || *mode != "inline";
  }

  /// Records the verdict; returns the retry time it wrote (for a failure), when it was written.
  std::optional<util::EpochMs> record(const config::Candidate& c, const probe::ProbeResult& result,
                                      std::optional<state::RestoredBy> by) {
    const config::Settings& s = server_settings(&c);
    const probe::MarkContext context = probe::mark_context(s, m_deps.clock.now_ms(), c.definition.source.string(), by);
    std::optional<util::EpochMs> retry_at;
    const bool written = update_state([&](json::object& doc) {
      state::record_verdict(doc, info_of(c), context.now, state::Writer::hook, [&](json::object& entry) {
        probe::mark_from_probe(entry, result, context);
        retry_at = ServerEntry::from_json(entry).next_retry_at;
      });
      return true;
    });
    trace([&] {
      if (!written) return std::string("nothing recorded (the state file could not be written)");
      return "recorded definitions." + c.fingerprint.substr(0, 12) + " and servers." + c.tool_server + ": " +
             (result.ok ? "healthy for " + util::format_duration_short(s.ttl_ms.value)
                        : "unhealthy, retry in " + util::format_duration_short(retry_at.value_or(context.now) - context.now));
    });
    return written ? retry_at : std::nullopt;
  }

  /// Allows the call; `context` (at most 500 bytes of it) is what the model is told with it, if anything.
  HookOutcome allow(const std::string& event, std::optional<std::string> context = std::nullopt) {
    HookOutcome out;
    out.event_name = event;
    if (context) out.additional_context = util::cap_utf8(*context, k_max_model_text_bytes);
    return out;
  }

  /// A block's stderr line, as the JS hook wrote it: what was found, what is done about it, and a note after it.
  struct BlockLine {
    /// How the action joins the finding: `X; skipping tool`, or `X. Blocking tool so ...`.
    enum Join { clause, sentence };
    std::string found;
    std::string action;
    Join join = clause;
    std::string after = {};
    std::string with(const std::string& act) const {
      return found + (join == clause ? "; " : ". ") + act + after;
    }
  };

  /// Blocks: the line goes to stderr (and is what exit-code mode shows the model), `for_model` is the designed text
  /// of hook/messages.hpp. Fail-open turns it into an allow, and the line says so instead of the block.
  HookOutcome block(const std::string& event, const BlockLine& line, std::string for_model) {
    const bool fail_open = m_call ? server_settings(m_candidate, m_call->server).fail_open.value : settings().fail_open.value;
    if (fail_open) {
      const std::string allowing = line.join == BlockLine::clause ? "allowing the call because fail-open mode is enabled"
                                                                  : "Allowing the call because fail-open mode is enabled.";
      log(util::cap_utf8(line.with(allowing), k_max_model_text_bytes));
      return allow(event);
    }
    log(util::cap_utf8(line.with(line.action), k_max_model_text_bytes));
    HookOutcome out = allow(event);
    out.decision = HookOutcome::Decision::block;
    out.reason = util::cap_utf8(for_model, k_max_model_text_bytes);
    return out;
  }

  /// Writes through the state file's one writer; says on stderr what went wrong. Returns true when written.
  bool update_state(const StateStore::Mutator& mutate, std::int64_t lock_wait_ms = state::k_lock_wait_ms) {
    const state::UpdateResult r = store().update(mutate, lock_wait_ms);
    if (!r) {
      log(r.error().message);
      return false;
    }
    if (r->moved_aside) {
      log("state file " + store().path().string() + " was not valid; its bytes were moved to " + r->moved_aside->string());
    }
    return true;
  }

  // --- Setup, resolved on first use: a non-MCP call never needs any of it.

  StateStore& store() {
    if (!m_store) m_store.emplace(config::resolve_state_path(m_deps.env, m_request.overrides).value, m_deps.clock);
    return *m_store;
  }

  const config::Settings& settings() {
    if (!m_settings) m_settings = config::resolve_settings(m_deps.env, m_request.overrides);
    return *m_settings;
  }

  /// Said once, and only off the hot path, so a cache hit never prints a warning about the setup.
  void say_setup_warnings() {
    for (const auto& w : m_deps.setup_warnings) log(w);
    for (const auto& w : settings().warnings) log(w.text());
  }

  /// The policy file, read the first time a decision needs it (never on a cache hit). An invalid one is said once
  /// per change of the file (its stamp is remembered in the state file), and then the environment decides.
  const config::Policy& policy() {
    if (m_policy) return *m_policy;
    m_policy = config::load_policy(config::resolve_policy_path(m_deps.env, m_request.overrides), m_deps.env, reader());
    trace([&] {
      switch (m_policy->status) {
      case config::Policy::Status::absent: return "policy " + m_policy->path.value.string() + ": none";
      case config::Policy::Status::ok:
        return "policy " + m_policy->path.value.string() + ": " + std::to_string(m_policy->rules.size()) + " server entries";
      case config::Policy::Status::invalid: break;
      }
      return "policy " + m_policy->path.value.string() + ": not valid, ignored";
    });
    if (m_policy->status == config::Policy::Status::invalid) {
      const state::StateSnapshot snap = store().read();
      if (state::policy_problem_said(snap.doc) != m_policy->stamp) {
        const std::size_t shown = std::min<std::size_t>(m_policy->problems.size(), 3);
        std::string problems;
        for (std::size_t i = 0; i < shown; ++i) problems += (i ? "; " : "") + m_policy->problems[i].text();
        if (m_policy->problems.size() > shown) problems += "; and " + std::to_string(m_policy->problems.size() - shown) + " more";
        log("policy file " + m_policy->path.value.string() + " is not valid, so it is ignored and the environment decides (" +
            problems + "); run mcphealth policy to see every problem");
        const std::string stamp = m_policy->stamp;
        update_state([&](json::object& doc) {
          state::remember_policy_problem(doc, stamp);
          return true;
        });
      }
    }
    return *m_policy;
  }

  /// The settings for one server: the environment's, with the policy laid over them. `c` is its definition when
  /// known (a policy entry can name its project); otherwise `name` (a tool-name server) alone decides.
  const config::Settings& server_settings(const config::Candidate* c, const std::string& name = {}) {
    // Without the candidate (the cache path), the bound definition's project, as its verdict is labelled.
    const std::optional<std::string> project_text = c ? c->project : m_bound_project;
    const std::string key = c ? "definition " + c->fingerprint : "name " + name + "\n" + project_text.value_or("");
    if (!m_server_settings || m_server_settings_key != key) {
      const std::optional<std::filesystem::path> project =
          project_text ? std::optional<std::filesystem::path>(*project_text) : std::nullopt;
      m_server_settings = config::settings_for(settings(), policy(), c ? c->tool_server : config::tool_server_name(name), project);
      m_server_settings_key = key;
    }
    return *m_server_settings;
  }

  /// Allows a call the policy says not to probe (`probe: skip`); a failure mark still blocks (decided before).
  HookOutcome allow_skipped(const std::string& event, const std::string& name) {
    trace([&] { return name + ": probe skipped by the policy (" + server_settings(m_candidate, name).probe.origin.text() + "): allow"; });
    return allow(event);
  }

  std::int64_t probe_lock_wait_ms() {
    const config::Settings& s = server_settings(m_candidate, m_call ? m_call->server : std::string());
    // Long enough for another hook's probe, reconnect and re-probe.
    return config::recovery_budget_ms(s.timeout_ms.value, s.reconnect_timeout_ms.value) + 2000;
  }

  void log(const std::string& line) { m_deps.log(line); }

  /// What reads the configuration files: the seam's, else the disk.
  util::FileReader& reader() const { return m_deps.files ? *m_deps.files : util::disk(); }

  /// The agent as the model's text names it.
  messages::Client voice() const {
    return {std::string(m_agent.name), std::string(m_agent.authenticate), std::string(m_agent.authenticate_short)};
  }

  const HookRequest& m_request;
  HookDeps& m_deps;
  /// The agent that asked, and its payload read into the hook's terms.
  const agent::Agent& m_agent;
  const HookCall m_hc;
  std::optional<StateStore> m_store;
  std::optional<config::Settings> m_settings;
  std::optional<config::Policy> m_policy;
  std::optional<config::Settings> m_server_settings;
  std::string m_server_settings_key;
  /// On the cache path: the project of the definition the folder's binding names (from its verdict's label).
  std::optional<std::string> m_bound_project;
  /// The call being decided, once known, and its definition once resolved.
  std::optional<CallTarget> m_call;
  const config::Candidate* m_candidate = nullptr;
  Event m_event = Event::other;
  std::optional<config::DiscoveryInputs> m_inputs;
  std::optional<config::Resolution> m_resolution;
};

} // namespace

HookOutcome run_hook_engine(const HookRequest& request, HookDeps& deps) {
  HookOutcome out = HookRun(request, deps).run();
  if (deps.trace) {
    deps.trace(std::string("decision: ") + (out.decision == HookOutcome::Decision::block ? "block" : "allow") +
               (out.additional_context ? " (with context for the model)" : ""));
  }
  return out;
}

} // namespace mcphealth::gate
