#include <mcphealth/gate/engine.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/gate/bindings.hpp>
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/gate/plan.hpp>
#include <mcphealth/gate/reader.hpp>
#include <mcphealth/gate/recorder.hpp>
#include <mcphealth/gate/steps.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/hook/messages.hpp>
#include <mcphealth/probe/record.hpp>
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

namespace {

/// The settings the rules ask for, read through the run's Reader on first use.
class ReaderInputs final : public RuleInputs {
public:
  explicit ReaderInputs(Reader& reader) : m_reader(reader) {}
  const config::Settings& environment() override { return m_reader.settings(); }
  const config::Settings& server() override { return m_reader.call_settings(); }
  bool policy_has_project_rules() override { return m_reader.policy().has_project_rules(); }
  Refresh refresh() override {
    return m_reader.refresh_in_background() && m_reader.deps().start_refresh ? Refresh::background
                                                                             : Refresh::inline_probe;
  }
  const config::Settings& of(const config::Candidate& c) override { return m_reader.server_settings(&c); }
  std::vector<std::string> credential_files() override {
    return m_reader.agent().catalogue.credential_files(m_reader.deps().env);
  }

private:
  Reader& m_reader;
};

/// The most steps one event takes; more is a fault in the rules, and the call is allowed.
constexpr int k_max_steps = 64;

/// Runs one hook invocation: reads the event and the call, then performs the steps each event's rules name
/// (gate/steps.hpp) until one answers, and carries that answer out. It chooses nothing itself.
class Executor {
public:
  Executor(const HookRequest& request, HookDeps& deps)
      : m_sink(deps), m_reader(request, deps, m_sink), m_recorder(m_reader), m_inputs(m_reader) {}

  HookOutcome run() {
    HookOutcome out = dispatch();
    m_recorder.say_policy_problem();
    return out;
  }

private:
  /// Decides: the event from the payload, the target from the tool name, then that event's steps.
  HookOutcome dispatch() {
    const hook::HookCall& hc = m_reader.call();
    const HookRequest& request = m_reader.request();
    const agent::Agent& agent = m_reader.agent();
    const std::string& event_name = hc.event_name;
    const Event event = hc.event;
    m_sink.trace([&] {
      return "event " + event_name + " (" + hc.event_source + ")" +
             (&agent == &agent::default_agent() ? std::string() : ", from " + std::string(agent.name));
    });
    if (event == Event::other && request.event_flag && !request.event_flag->empty()) {
      // A typo in the registered command would switch the gate off without a word.
      std::string known;
      for (std::string_view name : agent.dialect.event_names())
        known += (known.empty() ? "" : ", ") + std::string(name);
      m_sink.log("--event " + event_name + " is not an event mcphealth acts on (" + known +
                "): ignoring this call, which is allowed unchecked");
    }
    if (request.input.incomplete) {
      if (hc.target) set_call(*hc.target); // a block gives way to that server's fail-open
      return carry_out(answer_incomplete(event_name, event, hc.target, hc.names_tool, request.input.limit));
    }
    if (event == Event::session_start) {
      SessionFacts f{facts_of(event_name, {})};
      return run_steps(f);
    }
    std::optional<CallTarget> call = hc.target;
    if (call && call->server.empty() && hc.endpoint) call = m_reader.by_endpoint(*hc.endpoint, call->tool);
    if (call) call = m_reader.settle_split(*call);
    if (!call) {
      m_sink.trace([&] {
        return "tool " + (hc.names_tool ? hc.tool_name : std::string("(none)")) + " is not an MCP tool: allow";
      });
      return carry_out(allow(event_name));
    }
    if (call->server.size() > state::k_max_name_bytes) {
      m_sink.log("the server name in " + event_name + " is " + std::to_string(call->server.size()) +
                " bytes, longer than any MCP server's (at most " + std::to_string(state::k_max_name_bytes) +
                "): not checked, nothing recorded");
      return carry_out(allow(event_name));
    }
    set_call(*call);
    m_sink.trace([&] { return "tool on server " + call->server + ": " + call->tool; });
    if (request.input.parse_error) {
      m_sink.log("the hook input is not valid JSON (" + *request.input.parse_error + "); " + event_name + " of " +
                call->tool + " on " + call->server + " is decided from the fields found in its text");
    }
    switch (event) {
    case Event::pre_tool_use: {
      PreFacts f{facts_of(event_name, *call)};
      return run_steps(f);
    }
    case Event::post_tool_use_failure: {
      FailureFacts f = failure_facts(event_name, *call,
                                     {hc.failure_text, hc.tool_input, m_reader.now() - hc.duration_ms, hc.interrupted});
      return run_steps(f);
    }
    case Event::post_tool_use: {
      SuccessFacts f{facts_of(event_name, *call)};
      return run_steps(f);
    }
    case Event::session_start:
    case Event::other: break;
    }
    return carry_out(allow(event_name));
  }

  void set_call(const CallTarget& call) {
    m_call = call;
    m_reader.set_call(call);
  }

  CallFacts facts_of(const std::string& event, const CallTarget& call) const {
    return {event, call, m_reader.now(), m_reader.voice(), m_sink.tracing()};
  }

  FailureFacts failure_facts(const std::string& event, const CallTarget& call, FailedCall failed) {
    FailureFacts f{facts_of(event, call), std::move(failed), {}};
    f.reading = hook::read_failure(f.failed.text, f.failed.tool_input, m_reader.agent().dialect.failure_wordings());
    m_sink.trace([&] {
      const hook::FailureReading& r = f.reading;
      return "failure text: " + std::string(hook::failure_says_name(r.says)) +
             (r.code ? " (" + r.code->text() + ")" : std::string()) +
             (r.wording.empty() ? (r.code ? std::string(", generic words: a lead, not proof") : std::string())
                                : " (the client's wording \"" + std::string(r.wording) + "\")");
    });
    return f;
  }

  /// The loop: asks the event's rules for the next step, says its lines, performs it, and feeds back what it
  /// found, until a step answers. The probe lock taken lives as long as this loop.
  template <typename Facts>
  HookOutcome run_steps(Facts& f) {
    std::optional<util::Result<util::RecordLock, util::LockError>> lock;
    for (int i = 0; i < k_max_steps; ++i) {
      f.c.now = m_reader.now();
      const Step s = next(f, m_inputs);
      for (const std::string& line : s.traced) m_sink.trace([&] { return line; });
      for (const std::string& line : s.said) m_sink.log(line);
      if (const Plan* plan = s.answer()) return carry_out(*plan, binding_of(f));
      if (const auto* take = std::get_if<step::LockProbe>(&s.what)) {
        if constexpr (requires { f.lock; }) {
          lock.emplace(m_recorder.lock_probe(take->key, take->wait_ms));
          f.lock = *lock                                           ? LockState::held
                   : lock->error().is(util::LockFailure::timed_out) ? LockState::timed_out
                                                                    : LockState::unusable;
          m_sink.trace([&] {
            return f.lock == LockState::held
                       ? std::string("probe lock taken") + ((*lock)->waited() ? " after waiting" : "")
                       : "probe lock not taken (" + lock->error().message + "): going ahead";
          });
          continue;
        } else {
          break;
        }
      }
      if (!std::visit([&](const auto& what) { return perform(what, f); }, s.what)) break;
    }
    m_sink.log(f.c.event + " of " + f.c.call.tool + " on " + f.c.call.server +
               ": mcphealth's rules did not come to an answer (an internal error); allowing the call");
    return carry_out(allow(f.c.event));
  }

  // --- The steps, each performed as it says. A step of another event's rules is an internal error.

  template <typename What, typename Facts>
  bool perform(const What&, Facts&) {
    return false;
  }

  template <typename Facts>
  bool perform(const step::ReadState& s, Facts& f) {
    state::StateSnapshot snap = m_reader.store().read_lazily();
    // A snapshot reads its verdicts as they are asked for: those of the definitions known now are read now, so
    // the rules see them as they stood, not as this run's own writes left them.
    if constexpr (!std::is_same_v<Facts, SessionFacts>) {
      if (f.target) {
        if (f.target->binding.definition) (void)snap.verdict(*f.target->binding.definition);
        if (f.target->candidate != nullptr) (void)snap.verdict(f.target->candidate->fingerprint);
      }
      if (f.bound.found() && f.bound->definition) (void)snap.verdict(*f.bound->definition);
    }
    m_sink.trace([&] {
      // Read now when traced (its status is worth saying); otherwise when a rule needs more than a verdict.
      return "state file " + m_reader.store().path().string() + (s.under_lock ? " (again, under the lock): " : ": ") +
             std::string(state::load_status_words(snap.read_file().status));
    });
    if constexpr (std::is_same_v<Facts, PreFacts>) {
      f.reread = f.reread || s.under_lock;
    } else if constexpr (std::is_same_v<Facts, FailureFacts>) {
      if (s.under_lock) {
        f.under_lock = std::move(snap);
        return true;
      }
    }
    f.state = std::move(snap);
    return true;
  }

  template <typename Facts>
  bool perform(const step::ReadBinding&, Facts& f) {
    if constexpr (std::is_same_v<Facts, SessionFacts>) {
      return false;
    } else {
      f.bound = m_reader.bound_here(f.c.call);
      m_sink.trace([&] {
        const std::optional<state::Binding>& b = f.bound.answer();
        return "folder " + m_reader.folder_key() + ": " +
               (b ? "bindings current; " + f.c.call.server + " is " +
                        (b->definition ? "definition " + b->definition->substr(0, 12) : b->standing)
                  : "no current bindings for " + f.c.call.server);
      });
      return true;
    }
  }

  template <typename Facts>
  bool perform(const step::FindTarget& s, Facts& f) {
    if constexpr (std::is_same_v<Facts, SessionFacts>) {
      return false;
    } else {
      m_sink.trace([&] { return "reading the configs for " + f.c.call.server; });
      Target t = m_reader.target(f.c.call);
      if (s.bind) m_recorder.bind_folder(std::pair{binding_key(f.c.call), t.binding});
      if constexpr (std::is_same_v<Facts, FailureFacts>) f.target_bound = f.target_bound || s.bind;
      m_sink.trace([&] {
        const config::Candidate* c = t.candidate;
        const std::string& server = f.c.call.server;
        return c ? server + " is defined in " + c->definition.source.string() + " (" +
                       std::string(config::scope_name(c->scope)) + " scope), definition " + c->fingerprint.substr(0, 12)
                 : server + ": no definition " + std::string(m_reader.agent().name) + " starts here (" +
                       t.binding.standing + (t.binding.reason.empty() ? "" : ": " + t.binding.reason) + ")";
      });
      f.target = std::move(t);
      return true;
    }
  }

  bool perform(const step::StatWaitedFiles& s, PreFacts& f) {
    f.waited_seen = probe::files_seen(s.files, m_reader.files());
    m_sink.trace([&] {
      const std::optional<state::FilesSeen>& seen = f.waited_seen.answer();
      std::string newest = "none is there";
      if (seen && seen->newest)
        newest = "the newest changed " + util::format_duration_short(m_reader.now() - *seen->newest) + " ago";
      return "stat'ed the " + std::to_string(s.files.size()) + " files " + f.c.call.server +
             "'s failed calls recorded: " + newest;
    });
    return true;
  }

  bool perform(const step::ReadMissedFailure&, PreFacts& f) {
    f.missed = m_reader.agent().dialect.missed_failure(m_reader.call(), f.c.call);
    return true;
  }

  /// A failed call the agent fired no event for (Codex CLI), read from its record of the session: taken as its
  /// failure event would have been, in a run of the failure's own steps; the call being decided then meets the mark.
  bool perform(const step::TakeMissedFailure& s, PreFacts& f) {
    m_sink.trace([&] {
      return "the session's record says its last call to " + f.c.call.server + " failed (" + s.missed.text +
             "): read as the failure event the agent does not send";
    });
    FailureFacts failure = failure_facts(
        f.c.event, f.c.call,
        {s.missed.text, nullptr, s.missed.ended_at_ms - s.missed.duration_ms, false, s.missed.ended_at_ms});
    (void)run_steps(failure);
    f.missed_taken = true;
    return true;
  }

  bool perform(const step::ProbeAndRecover& s, PreFacts& f) {
    const HookDeps& deps = m_reader.deps();
    f.probe_began = m_reader.now();
    f.recovery = recover::check_and_recover(s.request, deps.prober, deps.runner, deps.env);
    m_sink.trace([&] {
      const probe::ProbeResult& result = f.recovery->result;
      std::string text = "probe of " + f.c.call.server + ": " + probe::kind_name(result.kind) + " (" +
                         std::string(state::health_name(probe::health_of(result))) + ") in " +
                         std::to_string(m_reader.now() - f.probe_began) + " ms";
      if (result.protocol_version) text += ", protocol " + *result.protocol_version;
      if (!result.ok && !result.reason.empty()) text += ": " + util::last_meaningful_line(result.reason);
      if (f.recovery->reconnect.attempt != recover::Attempt::none)
        text += "; reconnect " + recover::describe(f.recovery->reconnect);
      return text;
    });
    return true;
  }

  template <typename Facts>
  bool perform(const step::RecordProbe& s, Facts& f) {
    if constexpr (std::is_same_v<Facts, PreFacts>) {
      f.recorded = m_recorder.record(*s.candidate, s.result, s.restored_by, s.reconnect);
      return true;
    } else if constexpr (std::is_same_v<Facts, FailureFacts>) {
      m_recorder.record(*s.candidate, s.result, s.restored_by, s.reconnect);
      f.restored = true;
      return true;
    } else {
      return false;
    }
  }

  bool perform(const step::AskServer& s, FailureFacts& f) {
    const util::EpochMs began = m_reader.now();
    f.asked = m_reader.deps().prober.probe(*s.server, s.spec);
    m_sink.trace([&] {
      return "asked " + f.c.call.server + " whether it is up: " + probe::kind_name(f.asked->kind) + " in " +
             std::to_string(m_reader.now() - began) + " ms" +
             (f.asked->ok || f.asked->reason.empty() ? "" : ": " + util::last_meaningful_line(f.asked->reason));
    });
    return true;
  }

  bool perform(const step::MarkDown& s, FailureFacts& f) {
    f.marked = m_recorder.mark_down(s.candidate, s.name, s.mark, s.window_ms);
    return true;
  }

  bool perform(const step::NoteFailedCall&, FailureFacts& f) {
    m_recorder.note_failed_call(f.c.call, binding_of(f), f.failed.text);
    f.noted = true;
    return true;
  }

  bool perform(const step::Reconnect& s, FailureFacts& f) {
    const HookDeps& deps = m_reader.deps();
    const util::EpochMs began = m_reader.now();
    f.reconnect = recover::reconnect_and_reprobe(s.request, s.code, deps.prober, deps.runner, deps.env);
    // What the command did is kept with the verdict whatever follows (a failed command has no re-probe to record).
    if (s.candidate != nullptr) {
      if (auto note = recover::reconnect_note(*f.reconnect, m_reader.now(), "hook"))
        m_recorder.note_reconnect(*s.candidate, *note);
    }
    m_sink.trace([&] {
      std::string text = "reconnect of " + f.c.call.server + ": the command " + recover::describe(*f.reconnect);
      if (const auto& again = f.reconnect->reprobe) {
        text += "; the re-probe: " + std::string(probe::kind_name(again->kind)) +
                (again->ok || again->reason.empty() ? "" : ": " + util::last_meaningful_line(again->reason));
      }
      return text + " (" + std::to_string(m_reader.now() - began) + " ms in all)";
    });
    return true;
  }

  bool perform(const step::TakeSuccess& s, SuccessFacts& f) {
    f.restored = m_recorder.take_success(f.c.call, s.definition, s.ttl_ms);
    return true;
  }

  bool perform(const step::NoteSeen&, SessionFacts& f) {
    m_recorder.note_seen();
    f.seen = true;
    return true;
  }

  bool perform(const step::BindFolder&, SessionFacts& f) {
    f.resolution = &m_recorder.bind_folder();
    return true;
  }

  /// The folder's binding of the call's server as the steps found it (the configs' target, else the stored
  /// binding), for the history's lines: which of two servers of one name they are about.
  template <typename Facts>
  static std::optional<state::Binding> binding_of(const Facts& f) {
    if constexpr (requires { f.target; }) {
      if (f.target) return f.target->binding;
    }
    if constexpr (requires { f.bound; }) {
      if (f.bound.found()) return *f.bound;
    }
    return std::nullopt;
  }

  /// Carries an answer out: a block is settled against fail-open (read only now: an allow needs no settings), its
  /// lines said, its refresh started, a block added to the history (of the definition `about` binds, when known).
  HookOutcome carry_out(Plan plan, const std::optional<state::Binding>& about = std::nullopt) {
    if (plan.block_line) plan = settle(std::move(plan), m_reader.fail_open());
    for (const std::string& line : plan.said) m_sink.log(line);
    if (!plan.refresh.empty() && m_reader.deps().start_refresh) {
      m_reader.deps().start_refresh(m_reader.inputs().project_dir.string(), plan.refresh, Refreshing::stale);
    }
    if (!plan.look.empty() && m_reader.deps().start_refresh) {
      m_reader.deps().start_refresh(m_reader.inputs().project_dir.string(), plan.look, Refreshing::look_again);
    }
    m_recorder.note_blocked(m_call, about, plan.answer);
    return plan.answer;
  }

  Sink m_sink;
  Reader m_reader;
  Recorder m_recorder;
  ReaderInputs m_inputs;
  std::optional<CallTarget> m_call;
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
