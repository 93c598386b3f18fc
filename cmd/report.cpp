#include "report.hpp"

#include "output.hpp"

#include <mcphealth/config/settings.hpp>
#include <mcphealth/ops/report.hpp>
#include <mcphealth/state/history.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>

#include <cstdio>
#include <ctime>

namespace mcphealth::cli {

void register_report(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand("report", "What happened while nobody watched: outages and blocked calls");
  sub->add_option("servers", o->servers, "Only these servers")->type_name("SERVER");
  sub->add_option("--since", o->since,
                  "How far back: a length (90s, 30m, 12h, 7d, 1h30m), a local clock time, its last occurrence (22:00, "
                  "06:30:15), or a UTC time (2026-12-03T02:00:00Z)")
      ->type_name("WHEN")
      ->default_str("24h");
  sub->add_flag("--json", o->json, "Print the report as JSON");
  sub->footer("Reads the history kept beside the state file (<state>.history.jsonl, at most about 1 MiB: the oldest "
              "lines go first).\nExit: 0 nothing is down at the end of the window, 1 an outage is still open, 2 usage "
              "error.");
  sub->callback([o, &command_line] { command_line.exit_code = run_report(*o, command_line.globals); });
}

namespace {

void print_text(const ops::Report& r, bool verbose) {
  say("since %s (local time; now %s)\n", local_time(r.since, r.now), local_time(r.now, r.now));
  if (r.servers.empty()) {
    say("nothing went down, and no call was blocked\n");
    return;
  }
  // One line first: what a person reading it in the morning needs before the details.
  say("%s\n", std::to_string(r.outages) + (r.outages == 1 ? " outage, " : " outages, ") + std::to_string(r.failed) +
                 (r.failed == 1 ? " failed call" : " failed calls") + " reached the model, " + std::to_string(r.blocked) +
                 (r.blocked == 1 ? " call" : " calls") + " blocked; " +
                 (r.still_down == 0 ? std::string("nothing is down now") : std::to_string(r.still_down) + " still down"));
  for (const ops::ServerReport& s : r.servers) {
    if (s.flaps >= state::k_flapping_outages) {
      say("%s\n", s.name + ": flapping: " + std::to_string(s.outages.size()) + " outages, down again within a TTL of "
                                                                                  "coming back " +
                     std::to_string(s.flaps) + " times in a row");
    }
    std::int64_t in_outages = 0;
    for (const ops::Outage& o : s.outages) in_outages += o.failed;
    if (s.failed > in_outages) {
      // Failures the server's reconnect answered at once: no outage stayed open, and the model read each.
      say("%s\n", s.name + ": " + std::to_string(s.failed - in_outages) +
                     (s.failed - in_outages == 1 ? " failed call" : " failed calls") +
                     " reached the model outside an open outage (restored right after)");
    }
    for (const ops::Outage& o : s.outages) {
      std::string line = s.name + ": ";
      line += o.down_at ? "down " + local_time(*o.down_at, r.now) : std::string("down before the window");
      if (!o.down_by.empty()) line += " (" + o.down_by + ")";
      if (o.up_at) {
        line += std::string(o.forgotten ? ", reset " : ", back ") + local_time(*o.up_at, r.now);
        if (!o.up_by.empty() && !o.forgotten) line += " (" + o.up_by + ")";
      } else {
        line += s.retired.empty() ? ", still down" : ", retired (" + s.retired + ")";
      }
      if (const auto length = o.length_ms(r.now)) line += ", " + util::format_duration_short(*length);
      line += "; " + (o.failed > 0 ? std::to_string(o.failed) + (o.failed == 1 ? " failed call, " : " failed calls, ")
                                   : std::string()) +
              std::to_string(o.blocked) + (o.blocked == 1 ? " call" : " calls") + " blocked";
      if (!o.agents.empty()) line += " (" + join_names(o.agents) + ")";
      say("%s\n", line);
      if (!o.why.empty()) say("  why: %s\n", util::last_meaningful_line(o.why));
      if (verbose && !o.told.empty()) say("  the model was told: %s\n", o.told);
    }
  }
  for (const ops::ServerReport& s : r.servers) {
    // A reconnect that failed is said only on the hook's stderr, which the agent hides: said here.
    if (s.last_reconnect && !s.last_reconnect->ok) {
      say("%s\n", s.name + ": " + util::escape_control(s.last_reconnect->text()) + " (" +
                     (s.last_reconnect->by.empty() ? std::string() : "by " + s.last_reconnect->by + ", ") +
                     local_time(s.last_reconnect->at, r.now) + ")");
    }
  }
  for (const ops::ServerReport& s : r.servers) {
    if (!s.still_down()) continue;
    std::string line = "still down: " + s.name;
    if (s.diagnosis && !s.diagnosis->why.empty()) line += ": " + s.diagnosis->why;
    if (s.diagnosis && !s.diagnosis->fix.empty()) line += "; fix: " + s.diagnosis->fix;
    say("%s\n", line);
  }
}

} // namespace

int run_report(const ReportOptions& o, const GlobalOptions& globals) {
  util::ProcessEnvironment env;
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  const util::EpochMs now = clock.now_ms();
  const auto since = ops::parse_since(o.since, now);
  if (!since) {
    util::log::error("--since " + o.since + ": " + since.error().message);
    return k_exit_usage;
  }
  const std::filesystem::path& state_file = settings.state_path.value;
  if (state::is_cache_off(state_file)) util::log::warn("the cache is off (" + state_file.string() + "): no history is kept");
  // All of it (at most about 1 MiB): an outage that began before the window and is still open belongs in it.
  const state::History history = state::read_history(state_file);
  // A server down again within a TTL of coming back flaps, as the hook counts it (state::flapping).
  ops::Report report = ops::build_report(history, *since, now, o.servers, settings.ttl_ms.value);
  if (!report.servers.empty()) {
    // The state now: what a server still down is found to be, and which names two definitions share (a `db` of
    // another project that had nothing to report is still another `db`).
    const state::StateSnapshot snap = state::StateStore(state_file, clock).read();
    ops::name_servers(report, ops::names_defined_twice(snap.doc));
    // A definition status calls retired (a token rotated, a folder moved) keeps no outage open: it would count for
    // good, as the folders its old sessions bound still point at it.
    const ops::Bound bound = ops::read_bound(state_file, env);
    const std::optional<ops::Configured> configured =
        ops::configured_everywhere(discovery_for(env, settings, std::nullopt), env, settings, bound.scope);
    ops::RowSettings row_settings(settings, env);
    const ops::StatusReport status = ops::build_status(snap, configured, row_settings, now, bound.definitions);
    for (ops::ServerReport& s : report.servers) {
      const bool was_down = s.still_down();
      for (const ops::StatusRow& row : status.rows) {
        if (s.definition && row.definition == s.definition && !row.retired_because.empty()) s.retired = row.retired_because;
      }
      if (was_down && !s.still_down()) --report.still_down;
      if (s.still_down()) s.diagnosis = ops::current_diagnosis(snap.doc, s);
      s.last_reconnect = ops::last_reconnect_in(snap.doc, s, *since);
    }
  }
  if (report.unreadable > 0) {
    util::log::warn(std::to_string(report.unreadable) + " line(s) of " + state::history_path(state_file).string() +
                    " did not read as history and were passed over");
  }
  for (const std::string& file : history.unread_files) util::log::warn("history not read: " + file);
  if (o.json) {
    print_json(ops::report_json(report));
  } else {
    print_text(report, globals.verbosity > 0);
  }
  return report.still_down > 0 ? k_exit_unhealthy : k_exit_ok;
}

} // namespace mcphealth::cli
