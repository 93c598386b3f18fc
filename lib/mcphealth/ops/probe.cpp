#include <mcphealth/ops/probe.hpp>

#include <mcphealth/config/variables_file.hpp>

#include <mcphealth/ops/status.hpp>

#include <mcphealth/gate/bindings.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/probe/prometheus.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>

namespace mcphealth::ops {

namespace fs = std::filesystem;
namespace json = boost::json;

bool ProbeReport::any_down() const {
  return std::any_of(rows.begin(), rows.end(), [](const ProbeRow& r) { return r.down(); });
}

bool ProbeReport::any_local_fault() const {
  return std::any_of(rows.begin(), rows.end(), [](const ProbeRow& r) { return r.result.kind == probe::Kind::local_fault; });
}

namespace {

/// One folder as one agent sees it.
using Folder = agent::AgentFolder;

/// Each file once, though two agents read it (Claude Code's and Copilot CLI's `.mcp.json`).
void where_it_looked(const config::Resolution& res, std::vector<std::string>& looked) {
  for (const auto& f : res.files) {
    const std::string line = f.source.file.string() + " (" + f.source.scope + ")";
    if (std::find(looked.begin(), looked.end(), line) == looked.end()) looked.push_back(line);
  }
}

/// Every distinct winning definition to probe (the first folder that uses it names it), or why there is none.
std::vector<const config::Candidate*> choose(const ProbeRequest& request, const std::vector<Folder>& folders,
                                              std::optional<std::string>& error) {
  std::vector<const config::Candidate*> out;
  auto add = [&](const config::Candidate* c) {
    if (std::none_of(out.begin(), out.end(), [&](const auto* o) { return o->fingerprint == c->fingerprint; })) out.push_back(c);
  };
  std::vector<std::string> known;
  for (const auto& f : folders) {
    for (const auto* c : f.resolution.winners()) {
      if (std::find(known.begin(), known.end(), c->tool_server) == known.end()) known.push_back(c->tool_server);
    }
  }
  if (request.all) {
    for (const auto& f : folders) {
      for (const auto* c : f.resolution.winners()) add(c);
    }
    if (out.empty()) {
      std::vector<std::string> looked;
      for (const auto& f : folders) {
        if (f.inputs.project_dir == folders.front().inputs.project_dir) where_it_looked(f.resolution, looked);
      }
      error = "no MCP servers that the agents would start were found; looked in:";
      for (const auto& l : looked) *error += "\n  " + l;
    }
    return out;
  }
  for (const auto& name : request.servers) {
    const std::size_t before = out.size();
    for (const auto& f : folders) {
      for (const auto* c : f.resolution.winners()) {
        if (c->tool_server == f.resolution.key_of(name)) add(c);
      }
    }
    if (out.size() == before) {
      for (const auto& f : folders) {
        if (!f.here) continue;
        if (auto why = why_not_started(not_started_in(f.resolution, *f.agent), name)) {
          error = *why;
          return {};
        }
      }
      error = util::unknown_name("server", name, known);
      return {};
    }
  }
  return out;
}

/// Writes the node_exporter textfile (atomically, 0644: node_exporter usually runs as another user).
util::Result<void> write_prometheus(const fs::path& path, const std::vector<ProbeRow>& rows, const state::StateSnapshot& before) {
  std::vector<probe::MetricRow> metrics;
  for (const ProbeRow& row : rows) {
    const json::object* prev = state::decision_entry(before.doc, row.name, row.fingerprint);
    const std::int64_t failures = prev ? state::ServerEntry::from_json(*prev).failure_count : 0;
    const probe::ProbeResult& r = row.result;
    metrics.push_back({row.name, row.fingerprint, probe::health_of(r), r.latency_ms, r.tool_count, r.ok ? 0 : failures + 1,
                       row.probed_at});
  }
  return probe::write_textfile(path, metrics);
}

} // namespace

std::optional<probe::ProbeResult> not_in_this_environment(const config::Candidate& c, const util::Environment& env,
                                                          const std::vector<std::string>& bound) {
  if (!c.resolved || c.resolved->unset_vars.empty()) return std::nullopt;
  // Bound by a hook: the agent's own environment lacks it too (the same definition), and the probe is the agent's.
  if (std::find(bound.begin(), bound.end(), c.fingerprint) != bound.end()) return std::nullopt;
  probe::ProbeResult r;
  r.kind = probe::Kind::not_probed;
  const std::string& name = c.resolved->unset_vars.front();
  r.reason = "not probed: " + name + " is not set in this environment; put it in " +
             config::variables_file(util::home_dir(env)).string() +
             " (the variables file the service and a probe from cron read), or probe from the agent's own shell";
  return r;
}

std::optional<std::string> not_the_agents(const config::Candidate& c, const std::vector<std::string>& bound) {
  std::vector<std::string> used;
  config::referenced_variables(boost::json::value(c.definition.raw), used);
  std::erase_if(used, [](const std::string& v) { return v == "PATH" || v == "HOME"; });
  if (used.empty() || std::find(bound.begin(), bound.end(), c.fingerprint) != bound.end()) return std::nullopt;
  return "not recorded: " + c.tool_server + " is built from " + util::join(used, ", ") +
         ", and no agent's hook has used the definition this environment builds (another value than the agent's, or "
         "no session has started it yet): a verdict from here could be another definition's";
}

ProbeReport run_probes(const ProbeRequest& request, const config::Settings& settings, const config::DiscoveryInputs& base,
                       const util::Environment& env, util::Clock& clock) {
  ProbeReport report;
  if (request.prometheus) {
    if (auto usable = probe::check_textfile_path(*request.prometheus); !usable) {
      report.error = "--prometheus " + request.prometheus->string() + ": " + usable.error().message;
      return report;
    }
  }
  // The folders in use (agent::folders_in_use), `--project` alone when given; read before anything is probed.
  state::StateStore store(settings.state_path.value, clock);
  const state::StateSnapshot before = store.read();
  const std::vector<Folder> folders =
      agent::folders_in_use(base, env, [&] {
        agent::FolderScope scope = read_bound(settings.state_path.value, env).scope;
        scope.agents = request.agents;
        scope.project = request.project;
        return scope;
      }());
  for (const auto& f : folders) {
    for (const auto& file : f.resolution.files) {
      if (file.status == config::FileReport::Status::parse_error || file.status == config::FileReport::Status::unreadable) {
        std::string warning = file.source.file.string() + ": " + file.error + util::at_line(file.line, file.column);
        // Once, though two agents read the file.
        if (std::find(report.warnings.begin(), report.warnings.end(), warning) == report.warnings.end())
          report.warnings.push_back(std::move(warning));
      }
    }
  }
  const std::vector<const config::Candidate*> chosen = choose(request, folders, report.error);
  if (report.error) return report;
  const config::Policy policy = config::load_policy(settings.policy_path, env, util::disk(), base.project_dir);
  for (const auto& problem : policy.problems) {
    report.warnings.push_back("policy " + policy.path.value.string() + " ignored: " + problem.text());
  }
  std::vector<config::Settings> own;
  for (const config::Candidate* c : chosen) own.push_back(config::unhurried(config::settings_for(settings, policy, *c), env));

  // Judged with the agent's environment, or not at all (issue 53 item 1): a definition that needs a variable this
  // environment lacks is not started (its verdict would be this environment's, not the server's), and one that
  // builds from variables is recorded only where a hook bound it (the agent's own definition).
  const std::vector<std::string> bound = read_bound(settings.state_path.value, env).definitions;
  std::vector<std::optional<probe::ProbeResult>> not_here(chosen.size());
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    // A look that records nothing (--no-update) shows what this environment gives: no verdict is at stake.
    if (request.environment == ProbeEnvironment::own && request.record == Record::yes)
      not_here[i] = not_in_this_environment(*chosen[i], env, bound);
  }
  // A definition the policy skips is never started: the recovery policy says so.
  std::vector<probe::BatchItem> items;
  std::vector<std::optional<std::size_t>> item_of(chosen.size());
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (own[i].probe.value == config::ProbeMode::skip || not_here[i]) continue;
    item_of[i] = items.size();
    const json::object* prev = state::decision_entry(before.doc, chosen[i]->tool_server, chosen[i]->fingerprint);
    items.push_back({chosen[i]->tool_server, *chosen[i]->resolved, probe::spec_of(own[i], prev)});
  }
  std::vector<probe::BatchOutcome> outcomes =
      probe::probe_batch(items, request.parallel, [&] { return std::make_unique<probe::LiveProber>(clock); }, clock,
                         request.progress);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (!item_of[i]) continue;
    if (auto r = probe::not_on_this_path(*chosen[i]->resolved, request.path_origin, env.get("PATH").value_or("")))
      outcomes[*item_of[i]].result = *r;
  }

  recover::ShellRunner runner(clock, env);
  probe::LiveProber prober(clock);
  std::vector<probe::ProbedServer> to_record;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const config::Candidate& c = *chosen[i];
    const json::object* prev = state::decision_entry(before.doc, c.tool_server, c.fingerprint);
    const probe::ProbeResult* already = not_here[i] ? &*not_here[i] : item_of[i] ? &outcomes[*item_of[i]].result : nullptr;
    const recover::RecoveryRequest rr = recover::request_for(c, own[i], prev, request.reconnect, already);
    const recover::Recovery recovery = recover::check_and_recover(rr, prober, runner, env);
    const util::EpochMs probed_at = item_of[i] ? outcomes[*item_of[i]].started_at : clock.now_ms();
    // What it records is what it prints: a breaker's passing handshake is held (probe::held_for_trial).
    const probe::ProbeResult seen = prev && recovery.result.ok
                                        ? probe::held_for_trial(prev, recovery.result,
                                                                probe::files_seen(state::ServerEntry::from_json(*prev).code_files, util::disk()))
                                        : recovery.result;
    ProbeRow row{c.tool_server, c.definition.name, seen, probed_at,
                 config::transport_name(c.resolved->transport), c.definition.source.string(),
                 std::string(config::scope_name(c.scope)), c.project, c.fingerprint, std::nullopt};
    if (recovery.reconnect.attempt != recover::Attempt::none) row.reconnect = recover::describe(recovery.reconnect);
    for (const Folder& f : folders) {
      const auto winners = f.resolution.winners();
      if (std::find(winners.begin(), winners.end(), &c) == winners.end()) continue;
      row.agent = f.agent;
      break;
    }
    const state::DefinitionInfo who{c.fingerprint, c.definition.name, c.tool_server, row.scope, c.project, row.source, c.shape};
    probe::MarkContext context = probe::mark_context(own[i], clock.now_ms(), row.source, recovery.restored_by);
    context.reconnect = recover::reconnect_note(recovery.reconnect, context.now, "probe");
    if (request.environment == ProbeEnvironment::own) row.not_recorded = not_the_agents(c, bound);
    if (!row.not_recorded) to_record.push_back({who, recovery.result, row.probed_at, std::move(context)}); // held when marked
    report.rows.push_back(std::move(row));
  }
  // Every server: in name order, as the table promises (a name that several definitions have keeps their order).
  if (request.servers.empty()) {
    std::stable_sort(report.rows.begin(), report.rows.end(), [](const ProbeRow& a, const ProbeRow& b) { return a.name < b.name; });
  }

  if (request.record == Record::yes) {
    std::vector<std::string> skipped;
    const util::EpochMs now = clock.now_ms();
    // Each folder's bindings too, so the hook's next call there is a cache hit; a folder whose bindings still
    // hold is not written again.
    for (const auto& f : folders) {
      const std::string key = agent::folder_key(*f.agent, f.inputs.project_dir.string());
      // Not where this environment builds a definition the agent's hook has not bound: that binding is the agent's.
      const std::vector<const config::Candidate*> winners = f.resolution.winners();
      if (request.environment == ProbeEnvironment::own &&
          std::any_of(winners.begin(), winners.end(),
                      [&](const config::Candidate* c) { return not_the_agents(*c, bound).has_value(); }))
        continue;
      const state::FolderBind bind = gate::bind_of(f.inputs, f.resolution, env);
      if (state::holds(store.bindings(key), bind)) continue;
      if (auto bound = store.bind(key, bind, now); !bound) {
        report.warnings.push_back("folder " + key + " not bound: " + bound.error().message);
      }
    }
    const state::UpdateResult written = store.update([&](json::object& doc) {
      probe::record_probes(doc, to_record, state::Writer::probe, util::disk(), skipped);
      return true;
    });
    if (!written) report.warnings.push_back(written.error().message);
    else if (written->moved_aside) report.warnings.push_back("the state file was not valid; moved to " + written->moved_aside->string());
    for (const auto& name : skipped) report.warnings.push_back(name + ": a newer check was recorded meanwhile; kept it");
  }
  if (request.prometheus) {
    if (auto written = write_prometheus(*request.prometheus, report.rows, before); !written) {
      report.error = "cannot write " + request.prometheus->string() + ": " + written.error().message;
    }
  }
  return report;
}

} // namespace mcphealth::ops
