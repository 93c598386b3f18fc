#include "reset.hpp"

#include "output.hpp"

#include <mcphealth/ops/reset.hpp>
#include <mcphealth/ops/status.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/history.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

#include <cstdio>

namespace mcphealth::cli {

namespace json = boost::json;

void register_reset(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<ResetOptions>();
  CLI::App* sub = app.add_subcommand("reset", "Forget servers' health (the next call probes them afresh)");
  sub->add_option("servers", o->servers, "Servers to forget")->type_name("SERVER");
  sub->add_flag("--all", o->all, "Forget every server");
  sub->add_flag("--unhealthy", o->unhealthy, "Forget every server marked unhealthy");
  sub->add_flag("--stale", o->stale,
                "Forget only the superseded verdicts: of definitions no folder is bound to and no agent starts now "
                "(the old verdict of a config since fixed)");
  sub->add_flag("--dry-run", o->dry_run, "Say what would be removed; write nothing");
  sub->add_flag("--json", o->json, "Print {\"removed\":[...],\"dryRun\":...}");
  sub->add_flag("--list", o->list, "Print the names in the cache, one per line, and change nothing");
  sub->add_flag("--strict", o->strict, "A name forgotten already is an error (exit 2) too, not a note");
  sub->footer("Exit: 0 done (or nothing to remove, or a name cached before and forgotten already: scripts re-run "
              "it), 2 usage error, a name never cached (a typo: nothing is reset), one not in the cache with "
              "--strict, or the state file could not be written.");
  sub->callback([o, &command_line] { command_line.exit_code = run_reset(*o, command_line.globals); });
}

namespace {

/// Prints what a reset removed (`labels`: what to call each), as text or JSON.
void print_removed(const ResetOptions& o, const std::vector<std::string>& labels, const std::filesystem::path& state) {
  if (o.json) {
    json::array removed;
    for (const auto& n : labels) removed.push_back(json::value(n));
    print_json(json::object{{"removed", std::move(removed)}, {"dryRun", o.dry_run}});
    return;
  }
  if (labels.empty()) say("nothing to reset in %s\n", state.c_str());
  for (const auto& name : labels) say("%s %s\n", o.dry_run ? "would reset" : "reset", name.c_str());
}

/// `reset --stale`: the verdicts status calls superseded, and nothing else.
int reset_stale(const ResetOptions& o, const util::Environment& env, const config::Settings& settings,
                state::StateStore& store, const state::StateSnapshot& snapshot, util::Clock& clock) {
  const ops::Bound bound = ops::read_bound(settings.state_path.value, env);
  const auto configured = ops::configured_everywhere(discovery_for(env, settings, std::nullopt), env, settings, bound.scope);
  ops::RowSettings row_settings(settings, env);
  const ops::StatusReport report = ops::build_status(snapshot, configured, row_settings, clock.now_ms(), bound.definitions);
  std::vector<std::string> fingerprints;
  std::vector<std::pair<std::string, std::string>> named; // fingerprint, what to call it
  for (const auto& row : report.rows) {
    if (!row.superseded || !row.definition) continue;
    fingerprints.push_back(*row.definition);
    named.emplace_back(*row.definition, row.name + " (superseded definition " + row.definition->substr(0, 12) + ")");
  }
  const ops::ResetResult result = ops::remove_verdicts(store, fingerprints, o.dry_run ? ops::DryRun::yes : ops::DryRun::no);
  if (!o.dry_run && !result.update) {
    util::log::error(result.update.error().message);
    return k_exit_usage;
  }
  std::vector<std::string> labels;
  for (const auto& fp : result.removed) {
    for (const auto& [f, label] : named) {
      if (f == fp) labels.push_back(o.json ? fp : label);
    }
  }
  print_removed(o, labels, settings.state_path.value);
  return k_exit_ok;
}

} // namespace

int run_reset(const ResetOptions& o, const GlobalOptions& globals) {
  util::ProcessEnvironment env;
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  state::StateStore store(settings.state_path.value, clock);
  const state::StateSnapshot snapshot = store.read();
  std::vector<std::string> cached;
  for (const auto& kv : snapshot.servers()) cached.emplace_back(kv.key());
  std::sort(cached.begin(), cached.end());
  if (o.list) {
    for (const auto& name : cached) say("%s\n", name.c_str());
    return k_exit_ok;
  }
  const int modes = (o.servers.empty() ? 0 : 1) + (o.all ? 1 : 0) + (o.unhealthy ? 1 : 0) + (o.stale ? 1 : 0);
  if (modes != 1) {
    util::log::error(modes == 0 ? "name the servers to reset, or use --all, --unhealthy or --stale"
                                : "use server names, --all, --unhealthy or --stale, one of them");
    return k_exit_usage;
  }
  if (o.stale) return reset_stale(o, env, settings, store, snapshot, clock);
  std::vector<std::string> names;
  // A name forgotten already is what reset is for (a script that runs it twice must not fail the second time): one
  // the history remembers, or a config defines. One neither knows is a typo, and nothing is reset.
  std::optional<std::vector<std::string>> seen_before;
  const auto known_before = [&](const std::string& name) {
    if (!seen_before) {
      seen_before.emplace();
      for (const state::HistoryEvent& e : state::read_history(settings.state_path.value).events) seen_before->push_back(e.server);
      const ops::Configured configured = ops::configured_everywhere(discovery_for(env, settings, std::nullopt), env, settings,
                                                                    ops::read_bound(settings.state_path.value, env).scope);
      for (const ops::ConfiguredServer& s : configured.servers) seen_before->push_back(s.name);
      for (const ops::NotStarted& n : configured.not_started) seen_before->push_back(n.name);
    }
    return std::find(seen_before->begin(), seen_before->end(), name) != seen_before->end();
  };
  std::vector<std::string> not_cached;
  for (const auto& name : o.servers) {
    if (std::find(cached.begin(), cached.end(), name) != cached.end()) {
      names.push_back(name);
      continue;
    }
    const auto close = util::closest_match(name, cached);
    const std::string what = "'" + name + "' is not in " + settings.state_path.value.string() +
                             (close ? " (did you mean " + *close + "?)" : std::string()) + "; cached: " + join_names(cached);
    const bool forgotten = known_before(name);
    if (o.strict || !forgotten) {
      util::log::error(what + (forgotten ? std::string() : " (nor was it ever: nothing reset)"));
      return k_exit_usage;
    }
    util::log::warn(what + " (forgotten already: nothing to reset for it)");
  }
  if (!o.servers.empty() && names.empty()) {
    if (o.json) print_json(json::object{{"removed", json::array()}, {"dryRun", o.dry_run}});
    return k_exit_ok;
  }
  if (snapshot.status == state::LoadStatus::newer_version && !o.dry_run) {
    util::log::error(settings.state_path.value.string() + " has a newer version than this mcphealth writes; not changing it");
    return k_exit_usage;
  }
  auto select = [&](const std::string&, const json::object& entry) {
    return o.all || state::ServerEntry::from_json(entry).unhealthy();
  };
  const ops::ResetResult result =
      ops::remove_entries(store, names, select, o.dry_run ? ops::DryRun::yes : ops::DryRun::no);
  if (!o.dry_run && !result.update) {
    util::log::error(result.update.error().message);
    return k_exit_usage;
  }
  print_removed(o, result.removed, settings.state_path.value);
  return k_exit_ok;
}

} // namespace mcphealth::cli
