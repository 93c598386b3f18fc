#include <mcphealth/gate/recorder.hpp>

#include <mcphealth/gate/decide.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/history.hpp>

#include <algorithm>

namespace mcphealth::gate {

namespace json = boost::json;
using state::ServerEntry;

bool Recorder::update_state(const state::Mutator& mutate, const state::Touches& touches, std::int64_t lock_wait_ms) {
  // A write the hook makes anyway also says the hook ran, and with which PATH (doctor; probes outside a session):
  // no write of its own, so the cache hit stays without one.
  const state::HookSeen seen{.agent = std::string(m_reader.agent().id), .at = m_reader.now(),
                             .event = m_reader.call().event_name,
                             .path = m_reader.deps().env.get("PATH").value_or(""),
                             .sdk_version = m_reader.deps().env.get("CLAUDE_AGENT_SDK_VERSION").value_or("")};
  state::Store& store = m_reader.store();
  const state::UpdateResult r = store.update(
      [&](json::object& doc) {
        if (!mutate(doc)) return false;
        state::note_hook_seen(doc, seen);
        return true;
      },
      lock_wait_ms, touches);
  if (!r) {
    m_reader.sink().log(r.error().message);
    return false;
  }
  if (r->moved_aside) {
    m_reader.sink().log("state file " + store.path().string() + " was not valid; its bytes were moved to " +
                        r->moved_aside->string());
  }
  return true;
}

void Recorder::note_seen() {
  update_state([](json::object&) { return true; }, state::Touches::only({}));
}

namespace {
/// The definition a history line is about, from the folder's binding of its server.
state::HistoryEvent about_definition(state::HistoryEvent line, const std::optional<state::Binding>& about) {
  if (about && about->definition) {
    line.definition = about->definition;
    line.project = about->project;
  }
  return line;
}
} // namespace

void Recorder::note_blocked(const std::optional<hook::CallTarget>& call, const std::optional<state::Binding>& about,
                            const hook::HookOutcome& answer) {
  if (!call || answer.decision != hook::HookOutcome::Decision::block) return;
  const state::HistoryEvent line{.at = m_reader.now(), .kind = state::HistoryKind::blocked, .server = call->server,
                                 .by = std::string(m_reader.agent().id), .text = answer.reason,
                                 .event = answer.event_name};
  if (auto problem = m_reader.store().append_history({about_definition(line, about)})) m_reader.sink().log(*problem);
}

void Recorder::note_failed_call(const hook::CallTarget& call, const std::optional<state::Binding>& about,
                                const std::string& text) {
  const state::HistoryEvent line{.at = m_reader.now(), .kind = state::HistoryKind::failed_call,
                                 .server = call.server, .by = std::string(m_reader.agent().id), .text = text,
                                 .event = m_reader.call().event_name};
  if (auto problem = m_reader.store().append_history({about_definition(line, about)})) m_reader.sink().log(*problem);
}

void Recorder::say_policy_problem() {
  const std::optional<PolicyProblem> problem = m_reader.policy_problem();
  if (!problem) return;
  const state::StateSnapshot snap = m_reader.store().read_lazily();
  if (state::policy_problem_said(snap.read_file().doc) == problem->stamp) return;
  m_reader.sink().log(problem->line);
  update_state(
      [&](json::object& doc) {
        state::remember_policy_problem(doc, problem->stamp);
        return true;
      },
      state::Touches::only({}));
}

const config::Resolution& Recorder::bind_folder(const ExtraBinding& extra) {
  const config::Resolution& res = m_reader.read_configs();
  const std::string key = m_reader.folder_key();
  const util::EpochMs at = m_reader.now();
  const state::FolderBind bind = bind_of(m_reader.inputs(), res, m_reader.deps().env, extra);
  if (!state::holds(m_reader.store().bindings(key), bind)) {
    if (auto bound = m_reader.store().bind(key, bind, at); !bound) {
      m_reader.sink().trace([&] { return "folder " + key + " not bound: " + bound.error().message; });
    }
    m_reader.forget_bindings();
  }
  // An entry from before definitions were told apart (or the JS hook's) becomes its definition's verdict.
  std::vector<std::string> fingerprints;
  for (const config::Candidate* c : res.winners()) fingerprints.push_back(c->fingerprint);
  const auto adoptable = [&](const state::StateSnapshot& snap) {
    std::vector<const config::Candidate*> out;
    for (const config::Candidate* c : res.winners()) {
      if (snap.verdict(c->fingerprint) == nullptr &&
          state::decision_entry(snap.read_file().doc, c->tool_server, std::nullopt)) {
        out.push_back(c);
      }
    }
    return out;
  };
  if (adoptable(m_reader.store().read_lazily()).empty()) return res;
  update_state(
      [&](json::object& doc) {
        state::StateSnapshot locked;
        locked.doc = doc;
        const std::vector<const config::Candidate*> adopt = adoptable(locked);
        for (const config::Candidate* c : adopt) {
          state::record_verdict(doc, info_of(*c), at, state::Writer::adopted, [](json::object&) {});
        }
        return !adopt.empty();
      },
      state::Touches::only(fingerprints));
  return res;
}

void Recorder::note_reconnect(const config::Candidate& c, const state::ReconnectNote& note) {
  update_state([&](json::object& doc) {
    state::record_verdict(doc, info_of(c), note.at, state::Writer::hook,
                          [&](json::object& entry) { state::keep_reconnect(entry, note); });
    return true;
  }, state::Touches::only({c.fingerprint}));
}

std::optional<util::EpochMs> Recorder::record(const config::Candidate& c, const probe::ProbeResult& result,
                                              std::optional<state::RestoredBy> by,
                                              const std::optional<state::ReconnectNote>& reconnect) {
  const config::Settings& s = m_reader.server_settings(&c);
  probe::MarkContext context = probe::mark_context(s, m_reader.now(), c.definition.source.string(), by);
  context.reconnect = reconnect;
  std::optional<util::EpochMs> retry_at;
  const bool written = update_state([&](json::object& doc) {
    state::record_verdict(doc, info_of(c), context.now, state::Writer::hook, [&](json::object& entry) {
      probe::mark_from_probe(entry, result, context, m_reader.files());
      retry_at = ServerEntry::from_json(entry).next_retry_at;
    });
    return true;
  }, state::Touches::only({c.fingerprint}));
  m_reader.sink().trace([&] {
    if (!written) return std::string("nothing recorded (the state file could not be written)");
    return "recorded definitions." + c.fingerprint.substr(0, 12) + " and servers." + c.tool_server + ": " +
           (result.ok
                ? "healthy for " + util::format_duration_short(s.ttl_ms.value)
                : "unhealthy, retry in " + util::format_duration_short(retry_at.value_or(context.now) - context.now));
  });
  return written ? retry_at : std::nullopt;
}

namespace {

/// How long a failure mark waits for the state lock: long enough that a burst of writers never drops one (the
/// client's hook timeout is a minute).
constexpr std::int64_t k_mark_lock_wait_ms = 15'000;

} // namespace

MarkWritten Recorder::mark_down(const config::Candidate* c, const std::string& name, state::UnhealthyMark mark,
                                std::int64_t window_ms) {
  MarkWritten out;
  // What the files it waits on are now: a later change of them (a fix deployed, a login) is a change of this.
  const std::vector<std::string>& waits_on = mark.credential_files.empty() ? mark.code_files : mark.credential_files;
  if (const std::optional<state::FilesSeen> seen = probe::files_seen(waits_on, m_reader.files()))
    mark.files_stamp = seen->stamp;
  out.written = update_state(
      [&](json::object& doc) {
        auto mark_entry = [&](json::object& entry) {
          // Counted under the lock, from the entry as it stands: parallel failures of one outage were turned away
          // before (the same outage), so each failed call here is one more in the row.
          const ServerEntry before = ServerEntry::from_json(entry);
          mark.failed_calls = failed_calls_now(before, mark.now, window_ms);
          out.failed_calls = mark.failed_calls;
          if (mark.upstream && !crash_loop(mark.failed_calls) && !before.unhealthy()) {
            // A tool's upstream error alone proves nothing: its count is kept for the next one.
            state::note_failed_call(entry, {.now = mark.now, .failed_calls = mark.failed_calls, .tool = mark.failed_tool});
            out.noted_only = true;
            return;
          }
          if (mark.upstream) mark.error = upstream_reason(mark.failed_calls, mark.code);
          state::mark_unhealthy(entry, mark);
          out.failed_calls = mark.failed_calls;
          out.retry_at = ServerEntry::from_json(entry).next_retry_at.value_or(0);
        };
        if (c != nullptr)
          state::record_verdict(doc, info_of(*c), mark.now, state::Writer::hook, mark_entry);
        else
          state::record_unbound(doc, name, state::Writer::hook, mark_entry);
        return true;
      },
      c != nullptr ? state::Touches::only({c->fingerprint}) : state::Touches::only({}), k_mark_lock_wait_ms);
  return out;
}

bool Recorder::take_success(const hook::CallTarget& call, const std::optional<std::string>& definition,
                            std::int64_t ttl_ms) {
  const util::EpochMs now = m_reader.now();
  bool restored = false;
  update_state([&](json::object& doc) {
    bool changed = false;
    auto apply = [&](json::object& entry) {
      const AfterSuccess did = take_success_in(entry, now, ttl_ms);
      changed = did != AfterSuccess::nothing;
      restored = did == AfterSuccess::restore;
    };
    if (definition && state::decision_entry(doc, call.server, definition) != nullptr) {
      state::record_verdict(doc, {*definition, {}, hook::server_key(call), {}, std::nullopt, std::nullopt}, now,
                            state::Writer::tool_success, apply);
    } else {
      state::record_unbound(doc, call.server, state::Writer::tool_success, apply);
    }
    return changed;
  }, definition ? state::Touches::only({*definition}) : state::Touches::only({}));
  return restored;
}

util::Result<util::RecordLock, util::LockError> Recorder::lock_probe(const std::string& key, std::int64_t wait_ms) {
  return m_reader.store().lock_probe(key, wait_ms);
}

} // namespace mcphealth::gate
