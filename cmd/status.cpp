#include "status.hpp"

#include "statusline.hpp"

#include "choices.hpp"
#include "output.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/ops/status.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <filesystem>
#include <cstdio>

namespace mcphealth::cli {

namespace json = boost::json;

void register_status(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<StatusOptions>();
  CLI::App* sub = app.add_subcommand("status", "Show the health cache: what is up, down, in backoff, and why");
  sub->add_option("servers", o->servers, "Only these servers")->type_name("SERVER");
  add_format_options(*sub, o->format);
  CLI::Option* names = sub->add_flag_callback("--names", [o] { o->format = Format::name; }, "Same as -o name");
  for (const char* other : {"--output", "--json", "--wide"}) names->excludes(sub->get_option(other));
  CLI::Option* statusline = sub->add_flag(
      "--statusline", o->statusline,
      "One short line for a shell prompt or Claude Code's status line, e.g. `mcp 5✔ 1✘ agentmemory` (reads only "
      "the state file)");
  for (const char* other : {"--output", "--json", "--wide", "--names"}) statusline->excludes(sub->get_option(other));
  sub->add_flag("--unhealthy", o->unhealthy, "Only the servers that are down (unhealthy or misconfigured)");
  sub->add_flag("--superseded", o->superseded,
                "Also the superseded verdicts: of definitions nothing uses now (a config since fixed); never counted");
  sub->add_flag("-q,--quiet", o->quiet, "Print nothing; the exit code says it all");
  sub->add_flag("--here", o->here,
                "Only the servers an agent starts in this folder (--cwd): the exit code then judges what --statusline "
                "counts, not a down server of another project");
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  CLI::Option* agent_option =
      sub->add_option("--agent", o->agent, "Only the servers that agent starts: " + agent::agent_ids())
          ->type_name("ID")
          ->check(one_of_words(ids));
  agent_option->excludes(statusline);
  sub->add_option("--cwd", o->cwd, "Project dir used to know what is configured (default: $CLAUDE_PROJECT_DIR, else the current dir)")
      ->type_name("DIR")->check(existing_folder());
  sub->footer("Exit: 0 nothing unhealthy, 1 a server is unhealthy (retry due or not; with --here, one this folder "
              "starts), 2 error. Never writes, never probes.");
  sub->callback([o, &command_line] { command_line.exit_code = run_status(*o, command_line.globals); });
}

namespace {

Cell status_cell(const ops::StatusRow& row) { return health_cell(row.health); }

/// The NEXT CHECK column, in words that read without the manual: how long a healthy verdict is taken as it is
/// (`good for 1m59s`: no call probes it until then; `on next call` once that is over), when a down one is tried again (`retry in 29s`, `retry due`),
/// and that a misconfigured one is checked again but needs a fix first (`recheck in 29s, fix first`).
std::string timing(const ops::StatusRow& row) {
  if (row.superseded) return "superseded";
  if (row.fresh_ms) {
    return *row.fresh_ms > 0 ? "good for " + util::format_duration_short(*row.fresh_ms) : std::string("on next call");
  }
  if (row.retry_in_ms && row.breaker != state::Breaker::none) {
    // A breaker's next check is a call let through, not a probe (gate::CacheDecision::trial_call).
    std::string when = *row.retry_in_ms > 0 ? "next trial call in " + util::format_duration_short(*row.retry_in_ms)
                                            : std::string("trial call due");
    if (row.pinned_at_cap) when += " (at the longest backoff)";
    return when;
  }
  if (row.retry_in_ms) {
    const bool misconfigured = row.health == state::Health::misconfigured;
    const std::string word = misconfigured ? "recheck" : "retry";
    std::string when = *row.retry_in_ms > 0 ? word + " in " + util::format_duration_short(*row.retry_in_ms) : word + " due";
    if (row.pinned_at_cap) when += " (at the longest backoff)";
    return misconfigured ? when + ", fix first" : when;
  }
  return "-";
}

/// The DOWN FOR column: how long the current outage has lasted, and since when (`6h12m, since 02:14:07`).
std::string down_for(const ops::StatusRow& row) {
  if (!row.down_for_ms || !row.entry.down_since) return "-";
  return util::format_duration_short(*row.down_for_ms) + ", since " +
         local_time(*row.entry.down_since, *row.entry.down_since + *row.down_for_ms);
}

json::value opt(const std::optional<std::int64_t>& v) { return v ? json::value(*v) : json::value(nullptr); }

json::object row_json(const ops::StatusRow& row) {
  json::object o;
  o["name"] = row.name;
  o["status"] = state::health_name(row.health);
  o["definition"] = row.definition ? json::value(*row.definition) : json::value(nullptr);
  o["scope"] = row.scope ? json::value(*row.scope) : json::value(nullptr);
  json::array agents;
  for (const auto& a : row.agents) agents.emplace_back(a);
  o["agents"] = std::move(agents);
  o["superseded"] = row.superseded;
  o["project"] = row.project ? json::value(*row.project) : json::value(nullptr);
  o["entry"] = row.cached ? json::value(row.raw) : json::value(nullptr);
  o["configured"] = row.configured ? json::value(*row.configured) : json::value(nullptr);
  o["configSource"] = row.config_source ? json::value(*row.config_source) : json::value(nullptr);
  o["ageMs"] = opt(row.age_ms);
  o["downForMs"] = opt(row.down_for_ms);
  o["freshForMs"] = opt(row.fresh_ms);
  o["retryInMs"] = opt(row.retry_in_ms);
  o["retryDue"] = row.retry_in_ms ? json::value(*row.retry_in_ms <= 0) : json::value(nullptr);
  o["pinnedAtBackoffCap"] = row.pinned_at_cap;
  o["flapping"] = row.cached && row.entry.unhealthy() && state::flapping(row.entry);
  o["breaker"] = row.breaker == state::Breaker::none     ? json::value(nullptr)
                 : row.breaker == state::Breaker::upstream ? json::value("upstream")
                                                           : json::value("crash-loop");
  o["lastErrorLine"] = row.entry.last_error ? json::value(row.why) : json::value(nullptr);
  o["hint"] = row.hint.empty() ? json::value(nullptr) : json::value(row.hint);
  o["lastReconnect"] = row.entry.last_reconnect ? json::value(row.entry.last_reconnect->to_json()) : json::value(nullptr);
  o["retiredBecause"] = row.retired_because.empty() ? json::value(nullptr) : json::value(row.retired_because);
  return o;
}

} // namespace

namespace {

int run_statusline(const StatusOptions& o, const GlobalOptions& globals) {
  const auto line = status_line_of(globals, o.cwd,
                                   {o.servers, o.unhealthy ? ops::RowSelection::Only::down : ops::RowSelection::Only::all,
                                    std::nullopt, o.superseded});
  if (!line) {
    util::log::error(line.error().message);
    if (line.error().is(NoStatusLine::state_unreadable) && !o.quiet) std::printf("mcp ?\n");
    return k_exit_usage;
  }
  if (!o.quiet) say("%s\n", line->text.c_str());
  return line->any_down ? k_exit_unhealthy : k_exit_ok;
}

} // namespace

int run_status(const StatusOptions& o, const GlobalOptions& globals) {
  if (o.statusline) return run_statusline(o, globals);
  util::ProcessEnvironment env;
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  const state::StateSnapshot snapshot = state::load_state(settings.state_path.value);
  if (snapshot.status == state::LoadStatus::unreadable) {
    // Not "nothing is down": nothing is known. Say so, and exit with the error code.
    util::log::error("cannot read the state file " + settings.state_path.value.string() + ": " + snapshot.error);
    return k_exit_usage;
  }

  // Read through, never written through: every verdict the hooks learn would be lost without a word.
  std::error_code ec;
  if (std::filesystem::is_symlink(settings.state_path.value, ec)) {
    util::log::warn("the state file " + settings.state_path.value.string() + " is a symlink: mcphealth reads it but never "
                    "writes through one, so nothing the hooks or probes learn is recorded; set MCPHEALTH_STATE_PATH "
                    "(or --state) to the file it points at");
  }

  // Every folder Claude Code knows: a definition some project still uses is never "gone".
  const ops::Bound bound = ops::read_bound(settings.state_path.value, env);
  const std::optional<ops::Configured> configured =
      ops::configured_everywhere(discovery_for(env, settings, o.cwd), env, settings, bound.scope);
  ops::RowSettings row_settings(settings, env);
  ops::StatusReport report = ops::build_status(snapshot, configured, row_settings, clock.now_ms(), bound.definitions);
  const std::size_t superseded =
      std::count_if(report.rows.begin(), report.rows.end(), [](const ops::StatusRow& r) { return r.superseded; });
  const ops::RowSelection selection{o.servers, o.unhealthy ? ops::RowSelection::Only::down : ops::RowSelection::Only::all,
                                    o.agent, o.superseded, o.here};
  if (auto chosen = ops::select_rows(report, selection); !chosen) {
    util::log::error(chosen.error().message);
    return k_exit_usage;
  }
  std::vector<std::string> warnings = ops::state_warnings(settings.state_path.value, snapshot, settings);
  warnings.insert(warnings.end(), report.warnings.begin(), report.warnings.end());
  // A note is no warning on every run (cron mails it, a statusline re-runs it): in the JSON, and with -v.
  if (o.format == Format::json) warnings.insert(warnings.end(), report.notes.begin(), report.notes.end());
  const bool any_unhealthy =
      std::any_of(report.rows.begin(), report.rows.end(), [](const auto& r) { return r.down(); });
  const int code = any_unhealthy ? k_exit_unhealthy : k_exit_ok;
  if (o.quiet) return code;
  if (o.format == Format::name) {
    for (const auto& row : report.rows) say("%s\n", row.name.c_str());
    return code;
  }
  if (o.format == Format::json) {
    json::array servers;
    for (const auto& row : report.rows) servers.push_back(row_json(row));
    json::array warning_list;
    for (const auto& w : warnings) warning_list.push_back(json::value(w));
    json::object out{{"stateFile", settings.state_path.value.string()},
                     {"stateFileStatus", snapshot.status == state::LoadStatus::ok        ? "ok"
                                         : snapshot.status == state::LoadStatus::missing ? "missing"
                                         : snapshot.status == state::LoadStatus::corrupt ? "corrupt"
                                         : snapshot.status == state::LoadStatus::newer_version ? "newer-version"
                                                                                                : "unreadable"},
                     {"now", clock.now_ms()},
                     {"servers", std::move(servers)},
                     {"warnings", std::move(warning_list)}};
    print_json(out);
    return code;
  }
  for (const auto& w : warnings) util::log::warn(w);
  for (const auto& n : report.notes) util::log::info(n);
  if (superseded > 0 && !o.superseded) {
    util::log::info(std::to_string(superseded) + " superseded verdict" + (superseded == 1 ? "" : "s") +
                    " not shown (a definition nothing uses now: --superseded shows them, reset --stale removes them)");
  }
  if (report.rows.empty()) {
    const agent::Agent* only = o.agent ? agent::find_agent(*o.agent) : nullptr;
    if (o.unhealthy) std::printf("nothing is down\n");
    else if (only) say("%s starts no server here\n", std::string(only->name).c_str());
    else say("no servers in %s and none configured\n", settings.state_path.value.c_str());
    return code;
  }
  const auto width = o.format == Format::wide ? std::nullopt : terminal_width();
  std::fputs(render_status_table(report, use_color(stdout), width).c_str(), stdout);
  return code;
}

std::string render_status_table(const ops::StatusReport& report, bool color, std::optional<std::size_t> width,
                                bool hints_too) {
  // Narrow, the least needed columns go first: the failure code, the count, when it was checked, the scope.
  Table table({"SERVER", "STATUS", "DOWN FOR", "SCOPE", "FAILS", "FAILURE", "LAST CHECK", "NEXT CHECK", "LAST ERROR"}, {5, 4, 6, 3});
  std::string hints;
  for (const auto& row : report.rows) {
    const std::string code_text = row.entry.last_failure_code.text();
    std::string scope = row.scope ? *row.scope + (row.project ? " " + tilde(*row.project) : std::string()) : "-";
    // Which agents start it, when that is not Claude Code alone.
    if (!row.agents.empty() && !(row.agents.size() == 1 && row.agents.front() == agent::default_agent().id)) {
      std::string who;
      for (const auto& a : row.agents) who += (who.empty() ? "" : ", ") + a;
      scope += " [" + who + "]";
    }
    const std::string name = ops::display_name(row, report.rows);
    table.add({{name},
               status_cell(row),
               {down_for(row)},
               {scope},
               {row.cached ? std::to_string(row.entry.failure_count) : "-"},
               {code_text.empty() ? "-" : code_text},
               {row.age_ms ? util::format_duration_short(*row.age_ms) + " ago" : "never"},
               {timing(row), row.retry_in_ms && *row.retry_in_ms <= 0 ? Color::yellow : Color::none},
               {row.why}});
    if (!row.superseded) hints += hint_lines(name, row.hint, row.why, width);
    // A reconnect that failed is said only on the hook's stderr, which the agent hides: shown while it is down.
    if (!row.superseded && row.down() && row.entry.last_reconnect && !row.entry.last_reconnect->ok) {
      hints += "reconnect: " + util::escape_control(name) + ": " + util::escape_control(row.entry.last_reconnect->text()) +
               (row.entry.last_reconnect->by.empty() ? std::string() : " (by " + row.entry.last_reconnect->by + ")") +
               "\n";
    }
  }
  std::string out = table.render(color, width);
  if (hints_too && !hints.empty()) out += "\n" + hints;
  return out;
}

} // namespace mcphealth::cli
