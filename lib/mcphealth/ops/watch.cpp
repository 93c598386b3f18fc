#include <mcphealth/ops/watch.hpp>

#include <mcphealth/ops/probe.hpp>
#include <mcphealth/ops/reset.hpp>

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/policy.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/probe/prometheus.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/fields.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <map>

namespace mcphealth::ops {

namespace json = boost::json;

namespace {

/// The last `n` lines of a child's stderr that say something, joined with ` | `, cut to 300 bytes: what a failed
/// command said, in one warning line.
std::string last_lines(const std::string& text, std::size_t n) {
  std::vector<std::string> lines;
  for (const std::string& line : util::split_lines(text)) {
    if (std::string said = util::trim(line); !said.empty()) lines.push_back(util::escape_control(said));
  }
  std::string out;
  for (std::size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + lines[i];
  return util::cap_utf8(out, 300);
}

/// Every entry that stands for a server: the verdicts by fingerprint, and the entries without a definition by name.
std::map<std::string, const json::object*> entries_of(const state::StateSnapshot& snap) {
  std::map<std::string, const json::object*> out;
  for (const auto& kv : state::verdicts(snap.doc)) {
    if (kv.value().is_object()) out["definition " + std::string(kv.key())] = &kv.value().get_object();
  }
  for (const auto& kv : snap.servers()) {
    if (kv.value().is_object() && !state::definition_of(kv.value().get_object())) {
      out["server " + std::string(kv.key())] = &kv.value().get_object();
    }
  }
  return out;
}

/// Which side of a transition an entry is on: only up and down count; no entry, or a status that is neither,
/// is no verdict. Derived from the entry's health, which the event names.
enum class Side { none, up, down };
Side side_of(state::Health h) {
  return h == state::Health::unknown ? Side::none : state::is_down(h) ? Side::down : Side::up;
}
state::Health health_at(const json::object* e) {
  return e ? state::health_of(state::ServerEntry::from_json(*e), *e) : state::Health::unknown;
}

/// How the event names each side: the one vocabulary (state/health.hpp), or `none`.
std::string health_word(state::Health h) {
  return side_of(h) == Side::none ? "none" : std::string(state::health_name(h));
}

WatchEvent event_for(const std::string& key, const json::object* before, const json::object* after, util::EpochMs now) {
  const json::object* e = after ? after : before;
  WatchEvent ev;
  ev.ts = now;
  const state::VerdictLabel label = state::label_of(*e);
  ev.server = label.tool_server.value_or(key.substr(key.find(' ') + 1));
  ev.from = health_word(health_at(before));
  ev.to = health_word(health_at(after));
  ev.failure_count = state::ServerEntry::from_json(*e).failure_count;
  ev.reason = after ? state::ServerEntry::from_json(*after).last_error.value_or("") : std::string();
  ev.by = after ? state::updated_by(*after).value_or("unknown") : std::string("reset");
  if (key.rfind("definition ", 0) == 0) ev.definition = key.substr(11);
  ev.project = label.project;
  ev.scope = label.scope;
  return ev;
}

} // namespace

std::vector<WatchEvent> transitions(const state::StateSnapshot& before, const state::StateSnapshot& after, util::EpochMs now) {
  const auto old_entries = entries_of(before);
  const auto new_entries = entries_of(after);
  std::vector<WatchEvent> out;
  for (const auto& [key, entry] : new_entries) {
    auto it = old_entries.find(key);
    const json::object* prev = it == old_entries.end() ? nullptr : it->second;
    const Side from = side_of(health_at(prev)), to = side_of(health_at(entry));
    WatchEvent ev = event_for(key, prev, entry, now);
    if (prev == nullptr) {
      // A verdict adopted from an entry without a definition is the same server going on, not a new one.
      if (state::updated_by(*entry) == std::optional<std::string>(state::writer_name(state::Writer::adopted))) continue;
      ev.event = to == Side::down ? "down" : "appeared";
    } else if (from != Side::down && to == Side::down) {
      ev.event = "down";
    } else if (from == Side::down && to == Side::down) {
      if (state::ServerEntry::from_json(*entry).checked_at == state::ServerEntry::from_json(*prev).checked_at) continue;
      ev.event = "still-down";
    } else if (from == Side::down && to == Side::up) {
      ev.event = "recovered";
      if (state::ServerEntry::from_json(*entry).restored_by == state::RestoredBy::tool_success) ev.by = "tool-success";
    } else {
      continue; // healthy, refreshed: not a transition
    }
    out.push_back(std::move(ev));
  }
  for (const auto& [key, entry] : old_entries) {
    if (new_entries.count(key)) continue;
    // An entry without a definition that became a verdict of the same server: not gone.
    const std::optional<std::string> name = key.rfind("server ", 0) == 0 ? std::optional(key.substr(7)) : std::nullopt;
    const bool adopted = name && std::any_of(new_entries.begin(), new_entries.end(), [&name](const auto& kv) {
                           return kv.first.rfind("definition ", 0) == 0 && state::verdict_tool_server(*kv.second) == name;
                         });
    if (adopted) continue;
    WatchEvent ev = event_for(key, entry, nullptr, now);
    // Only `reset` removes a server's entries; the 30-day clean-up drops verdicts no one has checked for a month.
    const auto checked = state::ServerEntry::from_json(*entry).checked_at;
    ev.event = checked && *checked + state::k_keep_unused_ms < now ? "removed" : "reset";
    if (ev.event == "removed") ev.by = "cleanup";
    out.push_back(std::move(ev));
  }
  return out;
}

json::object event_json(const WatchEvent& e) {
  auto opt = [](const std::optional<std::string>& s) { return s ? json::value(*s) : json::value(nullptr); };
  return json::object{{"ts", util::format_iso8601_ms(e.ts)},
                      {"server", e.server},
                      {"event", e.event},
                      {"from", e.from},
                      {"to", e.to},
                      {state::field::failure_count, e.failure_count},
                      {"reason", e.reason},
                      {"by", e.by},
                      {"definition", opt(e.definition)},
                      {"project", opt(e.project)},
                      {"scope", opt(e.scope)}};
}

util::EpochMs next_probe_at(const json::object* verdict, const std::string& fingerprint, util::EpochMs now,
                            util::EpochMs seen_at, gate::RuleSettings& settings, Jitter jitter, std::int64_t every_ms) {
  if (jitter == Jitter::no) return now; // one sweep probes everything, as `probe --all` does
  // A stable spread per definition: the same server is not probed at the same offset as its neighbours.
  const std::uint64_t h = jitter == Jitter::yes ? std::stoull(config::hash_hex(fingerprint), nullptr, 16) : 0;
  if (verdict == nullptr) return std::min(now, seen_at) + static_cast<std::int64_t>(h % 1000);
  const state::ServerEntry e = state::ServerEntry::from_json(*verdict);
  const state::Outlook st = gate::outlook_under(e, now, gate::cache_rules(&e, settings));
  switch (st.freshness) {
  case state::Freshness::fresh: {
    const std::int64_t ttl = settings.server().ttl_ms.value;
    const std::int64_t lead = std::max<std::int64_t>(1000, ttl / 10);
    const std::int64_t spread = std::max<std::int64_t>(1, std::min<std::int64_t>(2000, ttl / 20));
    // A long-running watcher re-probes it before it expires, or at its own cadence when that is sooner.
    util::EpochMs at = *e.expires_at - lead - static_cast<std::int64_t>(h % static_cast<std::uint64_t>(spread));
    if (every_ms > 0 && e.checked_at) at = std::min(at, *e.checked_at + every_ms);
    return std::max(now, at);
  }
  case state::Freshness::in_backoff: return *st.retry_at + static_cast<std::int64_t>(h % 250);
  case state::Freshness::due:
    // A breaker's retry is a trial call, the agent's: a probe sees only its handshake, and holds it (it proves
    // nothing, short of a fix deployed). Once a TTL after its last look, not at every turn.
    if (state::fails_on_calls(e) && e.checked_at) {
      return std::max(now, *e.checked_at + settings.server().ttl_ms.value + static_cast<std::int64_t>(h % 250));
    }
    break;
  case state::Freshness::stale:
  case state::Freshness::unknown: break;
  }
  return now;
}

Watcher::Watcher(const config::Settings& settings, config::DiscoveryInputs base, const util::Environment& env,
                 util::Clock& clock, std::int64_t resolve_every_ms, Jitter jitter, const agent::Agent* only,
                 probe::PathOrigin path, std::int64_t every_ms)
    : m_settings(settings), m_base(std::move(base)), m_env(env), m_clock(clock), m_resolve_every_ms(resolve_every_ms),
      m_jitter(jitter), m_only(only), m_path(path), m_every_ms(every_ms) {}

Sweep Watcher::sweep(const std::atomic<bool>& stop, const Progress& waiting) {
  Sweep out;
  util::EpochMs now = m_clock.now_ms();
  state::StateStore store(m_settings.state_path.value, m_clock);
  const state::StateSnapshot before = store.read();
  if (m_folders.empty() || now - m_resolved_at >= m_resolve_every_ms) {
    // The folders in use, as status counts them (agent::folders_in_use); a definition two agents share is one
    // candidate.
    agent::FolderScope scope = read_bound(m_settings.state_path.value, m_env).scope;
    if (m_only != nullptr) scope.agents = {m_only};
    m_folders = agent::folders_in_use(m_base, m_env, scope);
    m_resolved_at = now;
    // Once a resolve: what no agent uses any more goes once its TTL has run out (the verdict of a rotated token, of a
    // moved folder, the mirror entry of a name seen once), judged against every agent's configs, as status judges.
    {
      const Bound all = read_bound(m_settings.state_path.value, m_env);
      const std::optional<Configured> configured = configured_everywhere(m_base, m_env, m_settings, all.scope);
      RowSettings row_settings(m_settings, m_env);
      const StatusReport seen = build_status(before, configured, row_settings, now, all.definitions);
      (void)forget_what_no_agent_uses(store, seen, m_settings.ttl_ms.value);
    }
    m_candidates.clear();
    for (const auto& f : m_folders) {
      for (const auto* c : f.resolution.winners()) {
        if (std::none_of(m_candidates.begin(), m_candidates.end(), [&](const auto* o) { return o->fingerprint == c->fingerprint; })) {
          m_candidates.push_back(c);
          m_seen_at.emplace(c->fingerprint, now);
        }
      }
    }
  }
  const config::Policy policy = config::load_policy(m_settings.policy_path, m_env, util::disk(), m_base.project_dir);
  // A service judges with the agent's environment or not at all, as a probe from cron does (ops/probe.hpp): a
  // definition that needs a variable it lacks is not started, one built from variables is probed only where a hook
  // bound it.
  const std::vector<std::string> bound = read_bound(m_settings.state_path.value, m_env).definitions;
  std::vector<const config::Candidate*> due;
  std::vector<config::Settings> own;
  std::vector<probe::BatchItem> items;
  for (const auto* c : m_candidates) {
    config::Settings s = config::unhurried(config::settings_for(m_settings, policy, *c), m_env);
    gate::ResolvedRuleSettings rules(m_settings, s, gate::Refresh::background);
    if (not_in_this_environment(*c, m_env, bound) || not_the_agents(*c, bound)) continue;
    if (s.probe.value == config::ProbeMode::skip ||
        next_probe_at(state::decision_entry(before.doc, c->tool_server, c->fingerprint), c->fingerprint, now,
                      m_seen_at[c->fingerprint], rules, m_jitter, m_every_ms) > now) {
      continue;
    }
    due.push_back(c);
    const json::object* prev = state::decision_entry(before.doc, c->tool_server, c->fingerprint);
    items.push_back({c->tool_server, *c->resolved, probe::spec_of(s, prev)});
    own.push_back(std::move(s));
  }
  if (!due.empty()) {
    probe::LiveProber prober(m_clock);
    std::atomic<std::size_t> ended{0};
    const util::EpochMs began = m_clock.now_ms();
    probe::BatchWaiting tick;
    if (waiting) tick = [&] { waiting(ended.load(), items.size(), began); };
    std::vector<probe::BatchOutcome> outcomes = probe::probe_batch(
        items, probe::default_parallelism(), [&] { return std::make_unique<probe::LiveProber>(m_clock); }, m_clock,
        [&](std::size_t done, std::size_t, const std::string&) { ended.store(done); }, tick);
    for (std::size_t i = 0; i < due.size(); ++i) {
      if (auto r = probe::not_on_this_path(*due[i]->resolved, m_path, m_env.get("PATH").value_or(""))) outcomes[i].result = *r;
    }
    if (stop.load()) { // probes cut short by a signal say nothing about the servers
      out.next_at = m_clock.now_ms();
      return out;
    }
    recover::ShellRunner runner(m_clock, m_env);
    std::vector<probe::ProbedServer> probed;
    std::size_t item = 0;
    for (std::size_t i = 0; i < due.size(); ++i) {
      const config::Candidate* c = due[i];
      const probe::BatchOutcome* o = &outcomes[item++];
      const json::object* prev = state::decision_entry(before.doc, c->tool_server, c->fingerprint);
      const recover::RecoveryRequest rr =
          recover::request_for(*c, own[i], prev, recover::Reconnect::when_down, o ? &o->result : nullptr);
      const recover::Recovery recovery = recover::check_and_recover(rr, prober, runner, m_env);
      const std::string scope(config::scope_name(c->scope));
      probe::MarkContext context =
          probe::mark_context(own[i], m_clock.now_ms(), c->definition.source.string(), recovery.restored_by);
      context.reconnect = recover::reconnect_note(recovery.reconnect, context.now, "watch");
      probed.push_back({{c->fingerprint, c->definition.name, c->tool_server, scope, c->project, c->definition.source.string(),
                         c->shape},
                        recovery.result,
                        o ? o->started_at : now,
                        std::move(context)});
    }
    std::vector<std::string> skipped;
    const state::UpdateResult written =
        store.update([&](json::object& doc) { return probe::record_probes(doc, probed, state::Writer::watch, util::disk(), skipped); });
    if (!written) out.not_recorded = written.error().message;
  }
  // The next wake-up: the earliest due time, or the next re-resolve.
  now = m_clock.now_ms();
  const state::StateSnapshot after = store.read();
  util::EpochMs next = m_resolved_at + m_resolve_every_ms;
  for (const auto* c : m_candidates) {
    const config::Settings s = config::settings_for(m_settings, policy, *c);
    if (s.probe.value == config::ProbeMode::skip || not_in_this_environment(*c, m_env, bound) || not_the_agents(*c, bound))
      continue;
    gate::ResolvedRuleSettings rules(m_settings, s, gate::Refresh::background);
    next = std::min(next, next_probe_at(state::decision_entry(after.doc, c->tool_server, c->fingerprint), c->fingerprint, now,
                                        m_seen_at[c->fingerprint], rules, m_jitter, m_every_ms));
  }
  out.next_at = std::max(next, now);
  return out;
}

WatchLoop::WatchLoop(const config::Settings& settings, const config::DiscoveryInputs& inputs, const util::Environment& env,
                     util::Clock& clock, recover::CommandRunner& runner, WatchPlan plan, WatchSink& sink)
    : m_settings(settings), m_inputs(inputs), m_env(env), m_clock(clock), m_runner(runner), m_plan(std::move(plan)),
      m_sink(sink), m_store(settings.state_path.value, clock), m_before(m_store.read()) {
  if (m_plan.probe) m_watcher.emplace(settings, inputs, env, clock, m_plan.interval_ms, m_plan.jitter, m_plan.agent, m_plan.path_origin,
                                      m_plan.every_ms);
}

WatchLoop::~WatchLoop() = default;

util::EpochMs WatchLoop::turn(const std::atomic<bool>& stop) {
  util::EpochMs next = m_clock.now_ms() + 1000; // a view's "ago / retry in" columns move every second
  if (m_watcher) {
    // A view stays live while the probes run (a hung server's take its whole timeout): the state as it stood, its
    // columns moving, and how far the sweep has come.
    Watcher::Progress waiting;
    if (m_plan.report_status) {
      waiting = [&](std::size_t done, std::size_t total, util::EpochMs since) {
        m_sink.sweeping(SweepProgress{done, total, m_clock.now_ms() - since});
        report(m_store.read()); // with what hooks wrote meanwhile
      };
    }
    const Sweep sweep = m_watcher->sweep(stop, waiting);
    if (m_plan.report_status) m_sink.sweeping(std::nullopt);
    if (stop.load()) return next;
    if (sweep.not_recorded) m_sink.warning("this sweep's verdicts were not recorded: " + *sweep.not_recorded);
    next = std::min(next, sweep.next_at);
  }
  const state::StateSnapshot after = m_store.read();
  for (const WatchEvent& ev : transitions(m_before, after, m_clock.now_ms())) {
    m_sink.transition(ev);
    if (!m_plan.exec || !ev.changes_side()) continue;
    const proc::CommandResult r =
        m_runner.run_shell(*m_plan.exec, ev.server, m_plan.exec_timeout_ms, json::serialize(event_json(ev)) + "\n");
    if (!r.succeeded()) {
      const std::string said = last_lines(r.err, 3);
      m_sink.warning("--exec for " + ev.server + " " + ev.event + ": " +
                     (r.status == proc::CommandResult::Status::timed_out ? std::string("timed out")
                      : r.error.empty()                                 ? "exited with " + r.exit.describe()
                                                                        : r.error) +
                     (said.empty() ? std::string() : ": " + said));
    }
  }
  m_before = after;
  if (m_plan.prometheus && m_watcher) {
    if (auto written = probe::write_textfile(*m_plan.prometheus, probe::metrics_from_state(after.doc)); !written) {
      m_sink.warning("cannot write " + m_plan.prometheus->string() + ": " + written.error().message);
    }
  }
  if (m_plan.report_status) report(after);
  return next;
}

void WatchLoop::report(const state::StateSnapshot& now_state) {
  {
    const util::EpochMs now = m_clock.now_ms();
    if (!m_configured_once || now - m_configured_at > m_plan.interval_ms) {
      Bound bound = read_bound(m_settings.state_path.value, m_env);
      m_configured = configured_everywhere(m_inputs, m_env, m_settings, bound.scope);
      m_bound = std::move(bound.definitions);
      m_configured_at = now;
      m_configured_once = true;
    }
    RowSettings row_settings(m_settings, m_env);
    StatusReport report = build_status(now_state, m_configured, row_settings, now, m_bound);
    // The verdicts in force (superseded ones are not shown), of the agent asked about.
    RowSelection rows;
    if (m_plan.agent) rows.agent = std::string(m_plan.agent->id);
    (void)select_rows(report, rows);
    // The state file's own problems first (not writable, moved aside, newer): a view shows them in its header.
    std::vector<std::string> warnings = state_warnings(m_settings.state_path.value, now_state, m_settings);
    warnings.insert(warnings.end(), report.warnings.begin(), report.warnings.end());
    report.warnings = std::move(warnings);
    m_down = std::any_of(report.rows.begin(), report.rows.end(), [](const auto& r) { return r.down(); });
    m_sink.status(report);
  }
}

} // namespace mcphealth::ops
