#include "probe.hpp"

#include "choices.hpp"

#include "output.hpp"

#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/variables_file.hpp>
#include <mcphealth/ops/hints.hpp>
#include <mcphealth/ops/probe.hpp>
#include <mcphealth/probe/batch.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace mcphealth::cli {

namespace json = boost::json;

void register_probe(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<ProbeCommandOptions>();
  CLI::App* sub = app.add_subcommand("probe", "Probe MCP servers for real (MCP handshake), record the results");
  sub->add_option("servers", o->servers, "Servers to probe (as tool names spell them: every definition of that name is probed)")->type_name("SERVER");
  sub->add_flag("--all", o->all,
                "Probe every server the agents would start: Claude Code's in every folder it knows (~/.claude.json "
                "projects), in this one, and user and plugin scope; the other agents' in this one; each distinct "
                "definition once");
  sub->add_option("--depth", o->depth,
                  "liveness (process up / HTTP status), handshake (MCP answer or needs-auth only), auto (default: "
                  "handshake; a silent live stdio server and a reachable HTTP endpoint count as up). Overrides the "
                  "policy file and MCPHEALTH_PROBE_DEPTH for every server")
      ->transform(one_of<config::ProbeMode>({{"liveness", config::ProbeMode::liveness},
                                             {"handshake", config::ProbeMode::handshake},
                                             {"auto", config::ProbeMode::automatic}}))
      ->type_name("DEPTH");
  sub->add_option("--protocol", o->protocol,
                  "modern (2026-07-28 server/discover), legacy (initialize), auto (default: modern, then legacy). "
                  "Overrides the policy file for every server")
      ->transform(one_of<config::ProtocolMode>({{"modern", config::ProtocolMode::modern},
                                                {"legacy", config::ProtocolMode::legacy},
                                                {"auto", config::ProtocolMode::automatic}}))
      ->type_name("PROTOCOL");
  sub->add_option("--timeout-ms", o->timeout_ms,
                  "Per-server timeout in ms, for every server (default: the policy file's timeoutMs, else "
                  "$MCPHEALTH_TIMEOUT_MS or $ECC_MCP_HEALTH_TIMEOUT_MS, else Claude Code's start-up timeout: $MCP_TIMEOUT, else 30000)")
      ->type_name("MS")
      ->check(whole_number(1, 3'600'000));
  sub->add_option("--parallel", o->parallel,
                  "At most N local servers starting, or busy, at a time until the first starts show what a start "
                  "costs, then as many as the cores get through in 70% of the timeout; one that has started and "
                  "waits for its answer holds no slot (default: one per core, at least 3, the pace Claude Code "
                  "starts local servers at; 0: all at once)")
      ->type_name("N")
      ->check(whole_number(0, 4096));
  add_format_options(*sub, o->format);
  sub->add_flag("--unhealthy", o->unhealthy, "Print only the servers found down (the exit code still counts all)");
  sub->add_flag("--no-update", o->no_update, "Do not write the state file");
  sub->add_flag("--reconnect", o->reconnect, "Run the reconnect command for servers found down, then probe them again");
  sub->add_option("--prometheus", o->prometheus, "Also write node_exporter textfile metrics to FILE (atomically)")
      ->type_name("FILE");
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  sub->add_option("--agent", o->agent, "Only this agent's servers (" + agent::agent_ids() + "); default: every agent's")
      ->type_name("ID")
      ->check(one_of_words(ids));
  sub->add_option("--project", o->project, "Only the servers Claude Code starts in DIR (with --all or names)")
      ->type_name("DIR");
  sub->add_option("--cwd", o->cwd, "Project dir used to find configs (default: $CLAUDE_PROJECT_DIR, else the current dir)")
      ->type_name("DIR")->check(existing_folder());
  sub->add_flag("-q,--quiet", o->quiet,
                "Print nothing unless a server is down, then only those (for cron: mail only when it matters); "
                "warnings only with -v");
  sub->footer("Exit: 0 nothing unhealthy (needs-auth and alive-silent count as up), 1 something unhealthy, "
              "2 usage or config error, 3 a probe could not run on this machine (no descriptors, memory or "
              "processes; nothing recorded for it).");
  sub->callback([o, &command_line] { command_line.exit_code = run_probe(*o, command_line.globals); });
}

namespace {


json::value optional_value(const std::optional<std::string>& v) { return v ? json::value(*v) : json::value(nullptr); }
template <typename T>
json::value optional_value(const std::optional<T>& v) { return v ? json::value(*v) : json::value(nullptr); }

std::string hint_of(const ops::ProbeRow& row) {
  const probe::ProbeResult& r = row.result;
  return ops::hint_for({probe::health_of(r), r.kind, r.reason, r.http_status, row.agent});
}

json::object row_json(const ops::ProbeRow& row) {
  const probe::ProbeResult& r = row.result;
  json::object o;
  o["name"] = row.name;
  o["server"] = row.server;
  o["status"] = state::health_name(probe::health_of(r));
  o["ok"] = r.ok;
  o["kind"] = probe::kind_name(r.kind);
  // How a process that exited ended: its exit code as a number, or the signal that ended it by name.
  const std::optional<std::string>& ended = r.exit_status;
  const bool code =
      ended && !ended->empty() && ended->find_first_not_of("0123456789") == std::string::npos && ended->size() < 4;
  o["exit"] = code ? json::value(std::stoi(*ended)) : json::value(nullptr);
  o["signal"] = ended && !code ? json::value(*ended) : json::value(nullptr);
  o["transport"] = row.transport;
  o["latencyMs"] = r.latency_ms;
  o["protocolVersion"] = optional_value(r.protocol_version);
  o["serverName"] = optional_value(r.server_name);
  o["serverVersion"] = optional_value(r.server_version);
  o["tools"] = optional_value(r.tool_count);
  o["httpStatus"] = optional_value(r.http_status);
  o["retryAfterMs"] = optional_value(r.retry_after_ms);
  o["failureCode"] = r.code.to_json();
  o["reason"] = r.reason.empty() ? json::value(nullptr) : json::value(r.reason);
  o["source"] = row.source;
  o["scope"] = row.scope;
  o["project"] = optional_value(row.project);
  o["definition"] = row.fingerprint;
  o["probedAt"] = row.probed_at;
  o["reconnect"] = optional_value(row.reconnect);
  o["notRecorded"] = optional_value(row.not_recorded);
  const std::string hint = hint_of(row);
  o["hint"] = hint.empty() ? json::value(nullptr) : json::value(hint);
  return o;
}

void print_table(const std::vector<ops::ProbeRow>& rows, std::optional<std::size_t> width) {
  // Narrow, the least needed columns go first (the protocol, the tools, the latency, the scope): the reason keeps
  // room, and no line passes the window's edge.
  Table table({"SERVER", "RESULT", "LATENCY", "TOOLS", "PROTOCOL", "SCOPE", "REASON"}, {4, 3, 2, 5});
  std::string hints;
  for (const ops::ProbeRow& row : rows) {
    const probe::ProbeResult& r = row.result;
    std::string reason = util::last_meaningful_line(r.reason);
    if (r.exit_status) reason = "exit " + *r.exit_status + ": " + reason;
    if (r.http_status && r.ok) reason = "HTTP " + std::to_string(*r.http_status);
    if (row.reconnect) reason += (reason.empty() ? "" : "; ") + std::string("reconnect ") + *row.reconnect;
    std::string scope = row.scope;
    if (row.project) scope += " " + *row.project;
    table.add({{row.name},
               health_cell(probe::health_of(r)),
               {std::to_string(r.latency_ms) + " ms"},
               {r.tool_count ? std::to_string(*r.tool_count) : "-"},
               {r.protocol_version.value_or("-")},
               {scope},
               {reason}});
    hints += hint_lines(row.name, hint_of(row), reason, width);
    if (row.not_recorded) hints += util::escape_control(row.name) + ": " + util::escape_control(*row.not_recorded) + "\n";
  }
  std::string out = table.render(use_color(stdout), width);
  if (!hints.empty()) out += "\n" + hints;
  std::fputs(out.c_str(), stdout);
}

} // namespace

int run_probe(const ProbeCommandOptions& o, const GlobalOptions& globals) {
  if (o.all == !o.servers.empty()) {
    util::log::error(o.all ? "name servers or use --all, not both"
                           : "name the servers to probe, or use --all (see mcphealth probe --help)");
    return k_exit_usage;
  }
  util::ProcessEnvironment process_env;
  // What cron and a service lack, the variables file gives: the settings and variables this environment does not
  // set (config/variables_file.hpp).
  const util::OverlayEnvironment own_env(
      process_env, config::variables_to_take(process_env, config::variables_file(util::home_dir(process_env))));
  util::SystemClock clock;
  config::SettingsOverrides overrides = globals.overrides();
  if (o.depth) overrides.probe = *o.depth;
  if (o.protocol) overrides.protocol = *o.protocol;
  overrides.timeout_ms = o.timeout_ms;
  const config::Settings settings = config::resolve_settings(own_env, overrides);
  // Servers start as the agent starts them: with the PATH its hook last ran with, not cron's /usr/bin:/bin.
  const ops::ProbePath agent_path = probe_path_for(settings.state_path.value, o.agent, own_env);
  const util::OverlayEnvironment env(own_env, {{"PATH", agent_path.path}});
  // -q is for cron, which mails whatever is printed: warnings only when asked for with -v.
  const bool say_warnings = !o.quiet || globals.verbosity > 0;
  if (say_warnings) warn_all(settings.warnings);

  ops::ProbeRequest request;
  request.servers = o.servers;
  request.all = o.all;
  if (o.agent) request.agents = {agent::find_agent(*o.agent)};
  if (o.project) request.project = *o.project;
  request.parallel = o.parallel.value_or(probe::default_parallelism());
  request.record = o.no_update ? ops::Record::no : ops::Record::yes;
  request.reconnect = o.reconnect ? recover::Reconnect::when_down : recover::Reconnect::never;
  if (o.prometheus) request.prometheus = *o.prometheus;
  request.path_origin = agent_path.origin;
  if (agent_path.differs && say_warnings && agent_path.seen) {
    const agent::Agent* seen_by = agent::find_agent(agent_path.seen->agent);
    util::log::warn("servers start with the PATH " + std::string(seen_by ? seen_by->name : agent_path.seen->agent) +
                    "'s hook ran with " + util::format_duration_short(clock.now_ms() - agent_path.seen->at) +
                    " ago, not this one's (" + agent_path.path + ")");
  }
  // On a terminal, a run that takes a while says how far it is, on one line of stderr that it clears at the end.
  const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO) != 0 && std::getenv("TERM") != nullptr &&
                             std::string_view(std::getenv("TERM")) != "dumb";
  const util::EpochMs began = clock.now_ms();
  bool progress_shown = false;
  if (show_progress) {
    request.progress = [&](std::size_t done, std::size_t total, const std::string& name) {
      if (done == total || clock.now_ms() - began < 1000) return;
      std::fprintf(stderr, "\r\033[Kprobing: %zu of %zu done (%s)", done, total,
                   util::escape_control(util::cap_utf8(name, 40)).c_str());
      std::fflush(stderr);
      progress_shown = true;
    };
  }
  const ops::ProbeReport report = ops::run_probes(request, settings, discovery_for(env, settings, o.cwd), env, clock);
  if (progress_shown) std::fputs("\r\033[K", stderr);

  if (say_warnings) {
    for (const auto& w : report.warnings) util::log::warn(w);
  }
  if (report.error) {
    // One log line per line: the logger writes a newline inside a message as `\n` (it never splits a line).
    for (const auto& line : util::split_lines(*report.error)) util::log::error(line);
    return k_exit_usage;
  }
  // A local fault makes the run incomplete: it says more than "something is down", so it wins.
  const int code = report.any_local_fault() ? k_exit_local_fault : report.any_down() ? k_exit_unhealthy : k_exit_ok;
  std::vector<ops::ProbeRow> rows = report.rows;
  if (o.unhealthy || o.quiet) {
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const ops::ProbeRow& r) { return !r.down(); }), rows.end());
    if (o.quiet && rows.empty()) return code;
  }
  switch (o.format) {
  case Format::json: {
    json::array servers;
    for (const auto& row : rows) servers.push_back(row_json(row));
    print_json(json::object{{"servers", std::move(servers)}});
    break;
  }
  case Format::name:
    for (const auto& row : rows) say("%s\n", row.name.c_str());
    break;
  case Format::table:
  case Format::wide:
    if (rows.empty()) std::printf("nothing is down\n");
    else print_table(rows, o.format == Format::wide ? std::nullopt : terminal_width());
    break;
  }
  return code;
}

} // namespace mcphealth::cli
