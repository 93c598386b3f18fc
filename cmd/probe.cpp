#include "probe.hpp"

#include "output.hpp"

#include <mcphealth/config/server.hpp>
#include <mcphealth/hook/reconnect.hpp>
#include <mcphealth/probe/batch.hpp>
#include <mcphealth/probe/prometheus.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>

#include <algorithm>
#include <cstdio>

namespace mcphealth::cli {

namespace json = boost::json;

void register_probe(CLI::App& app, Invocation& invocation) {
  auto o = std::make_shared<ProbeCommandOptions>();
  CLI::App* sub = app.add_subcommand("probe", "Probe MCP servers for real (MCP handshake), record the results");
  sub->add_option("servers", o->servers, "Servers to probe (names from the config files)")->type_name("SERVER");
  sub->add_flag("--all", o->all, "Probe every configured server");
  sub->add_option("--depth", o->depth,
                  "liveness (process up / HTTP status), handshake (MCP answer or needs-auth only), auto (default: "
                  "handshake; a silent live stdio server and a reachable HTTP endpoint count as up)")
      ->check(CLI::IsMember({"liveness", "handshake", "auto"}));
  sub->add_option("--protocol", o->protocol,
                  "modern (2026-07-28 server/discover), legacy (initialize), auto (default: modern, then legacy)")
      ->check(CLI::IsMember({"modern", "legacy", "auto"}));
  sub->add_option("--timeout-ms", o->timeout_ms,
                  "Per-server timeout in ms (default: $MCPHEALTH_TIMEOUT_MS or $ECC_MCP_HEALTH_TIMEOUT_MS, else 5000)")
      ->type_name("MS")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{3'600'000}));
  sub->add_option("--parallel", o->parallel, "At most N probes at a time (default 0: all at once)")->type_name("N");
  sub->add_flag("--json", o->json, "Print {\"servers\":[...]} with every result field");
  sub->add_flag("--no-update", o->no_update, "Do not write the state file");
  sub->add_flag("--reconnect", o->reconnect, "Run the reconnect command for servers found down, then probe them again");
  sub->add_option("--prometheus", o->prometheus, "Also write node_exporter textfile metrics to FILE (atomically)")
      ->type_name("FILE");
  sub->add_option("--cwd", o->cwd, "Project dir used to find configs (default: $CLAUDE_PROJECT_DIR, else the current dir)")
      ->type_name("DIR");
  sub->add_flag("-q,--quiet", o->quiet, "Print nothing; the exit code says it all");
  sub->footer("Exit: 0 nothing unhealthy (needs-auth and alive-silent count as up), 1 something unhealthy, "
              "2 usage or config error.");
  sub->callback([o, &invocation] { invocation.exit_code = run_probe(*o, invocation.globals); });
}

namespace {

std::string transport_name(const config::Transport& t) {
  if (const auto* h = std::get_if<config::HttpServer>(&t)) return h->type;
  if (std::holds_alternative<config::StdioServer>(t)) return "stdio";
  return "unsupported";
}

/// The word for a result: healthy, needs-auth, alive-silent, reachable, unhealthy, not-probed.
std::string verdict(const probe::ProbeResult& r) {
  if (r.kind == probe::Kind::not_probed) return "not-probed";
  if (!r.ok) return "unhealthy";
  switch (r.kind) {
  case probe::Kind::needs_auth: return "needs-auth";
  case probe::Kind::alive_silent: return "alive-silent";
  case probe::Kind::reachable: return "reachable";
  default: return "healthy";
  }
}

Cell verdict_cell(const probe::ProbeResult& r) {
  const std::string v = verdict(r);
  if (v == "healthy") return {"✔ healthy", Color::green};
  if (v == "reachable") return {"✔ reachable", Color::green};
  if (v == "needs-auth") return {"! needs auth", Color::yellow};
  if (v == "alive-silent") return {"~ alive, silent", Color::yellow};
  if (v == "not-probed") return {"? not probed", Color::dim};
  return {"✘ down", Color::red};
}

struct Row {
  probe::BatchOutcome outcome;
  std::string transport;
  std::string source;
  std::optional<std::string> reconnect;
};

json::object row_json(const Row& row) {
  const probe::ProbeResult& r = row.outcome.result;
  json::object o;
  o["name"] = row.outcome.name;
  o["status"] = verdict(r);
  o["ok"] = r.ok;
  o["kind"] = probe::kind_name(r.kind);
  o["transport"] = row.transport;
  o["latencyMs"] = r.latency_ms;
  o["protocolVersion"] = r.protocol_version ? json::value(*r.protocol_version) : json::value(nullptr);
  o["serverName"] = r.server_name ? json::value(*r.server_name) : json::value(nullptr);
  o["serverVersion"] = r.server_version ? json::value(*r.server_version) : json::value(nullptr);
  o["tools"] = r.tool_count ? json::value(*r.tool_count) : json::value(nullptr);
  o["httpStatus"] = r.http_status ? json::value(*r.http_status) : json::value(nullptr);
  o["retryAfterMs"] = r.retry_after_ms ? json::value(*r.retry_after_ms) : json::value(nullptr);
  o["failureCode"] = r.code.to_json();
  o["reason"] = r.reason.empty() ? json::value(nullptr) : json::value(r.reason);
  o["source"] = row.source;
  o["probedAt"] = row.outcome.started_at;
  o["reconnect"] = row.reconnect ? json::value(*row.reconnect) : json::value(nullptr);
  return o;
}

std::vector<std::string> names_of(const std::vector<config::ServerDefinition>& defs) {
  std::vector<std::string> out;
  for (const auto& d : defs) out.push_back(d.name);
  return out;
}

std::string where_it_looked(const std::vector<config::ConfigSource>& sources) {
  std::string out;
  for (const auto& s : sources) out += "\n  " + s.file.string() + " (" + s.scope + ")";
  return out;
}

} // namespace

namespace {

/// The definitions to probe, or nothing after saying why (exit 2).
std::optional<std::vector<config::ServerDefinition>> choose_servers(const ProbeCommandOptions& o,
                                                                    config::ConfigReader& reader) {
  if (o.all == !o.servers.empty()) {
    util::log::error(o.all ? "name servers or use --all, not both"
                           : "name the servers to probe, or use --all (see mcphealth probe --help)");
    return std::nullopt;
  }
  for (const auto& report : reader.reports()) {
    if (report.status == config::FileReport::Status::parse_error || report.status == config::FileReport::Status::unreadable) {
      util::log::warn(report.source.file.string() + ": " + report.error +
                      (report.line ? " at line " + std::to_string(report.line) + ", column " + std::to_string(report.column) : ""));
    }
  }
  const std::vector<config::ServerDefinition> defined = reader.all_winners();
  if (defined.empty()) {
    util::log::error("no MCP servers found; looked in:" + where_it_looked(reader.sources()));
    return std::nullopt;
  }
  if (o.all) return defined;
  std::vector<config::ServerDefinition> chosen;
  for (const auto& name : o.servers) {
    auto def = reader.find(name);
    if (!def) {
      util::log::error("unknown server '" + name + "'; configured: " + join_names(names_of(defined)));
      return std::nullopt;
    }
    chosen.push_back(*def);
  }
  return chosen;
}

/// With --reconnect: runs the reconnect command for each server found down (never after a 429) and probes it again.
/// Returns, per row, the `restoredBy` to record.
std::vector<std::optional<std::string>> reconnect_down(std::vector<Row>& rows, const std::vector<probe::BatchItem>& items,
                                                       const state::StateSnapshot& before, const probe::ProbeOptions& options,
                                                       std::int64_t timeout, const config::Settings& settings,
                                                       const util::Environment& env, util::Clock& clock) {
  std::vector<std::optional<std::string>> restored_by(rows.size());
  hook::ShellRunner runner(clock);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    probe::ProbeResult& r = rows[i].outcome.result;
    const json::object* prev = before.server(rows[i].outcome.name);
    const state::FailureCode last_code =
        r.code.present() ? r.code : (prev ? state::ServerEntry::from_json(*prev).last_failure_code : state::FailureCode{});
    if (r.ok || r.kind == probe::Kind::not_probed || last_code.is_rate_limit()) continue;
    auto command = hook::find_reconnect_command(rows[i].outcome.name, env);
    if (!command) {
      rows[i].reconnect = "skipped: no reconnect command configured";
      continue;
    }
    hook::ReconnectOutcome rc =
        hook::run_reconnect(*command, rows[i].outcome.name, /*defined=*/true, settings.reconnect_timeout_ms.value, runner);
    rows[i].reconnect = rc.status == hook::ReconnectOutcome::Status::ok ? "ok" : "failed: " + rc.reason;
    if (rc.status != hook::ReconnectOutcome::Status::ok) continue;
    probe::LiveProber prober(clock, options);
    probe::ProbeResult again = prober.probe(items[i].server, timeout);
    if (again.ok) restored_by[i] = "reconnect-command";
    else again.reason = r.reason + "; reconnect reprobe failed: " + again.reason;
    r = again;
  }
  return restored_by;
}

/// Writes the node_exporter textfile (atomically, 0644: node_exporter usually runs as another user).
std::string write_prometheus(const std::string& path, const std::vector<Row>& rows, const state::StateSnapshot& before) {
  std::vector<probe::MetricRow> metrics;
  for (const Row& row : rows) {
    const json::object* prev = before.server(row.outcome.name);
    const std::int64_t failures = prev ? state::ServerEntry::from_json(*prev).failure_count : 0;
    const probe::ProbeResult& r = row.outcome.result;
    metrics.push_back({row.outcome.name, r.ok, r.latency_ms, r.tool_count, r.ok ? 0 : failures + 1, row.outcome.started_at});
  }
  return util::atomic_replace(path, probe::render_prometheus(metrics), 0644);
}

void print_table(const std::vector<Row>& rows) {
  Table table({"SERVER", "RESULT", "LATENCY", "TOOLS", "PROTOCOL", "REASON"});
  for (const Row& row : rows) {
    const probe::ProbeResult& r = row.outcome.result;
    std::string reason = r.reason;
    if (r.http_status && r.ok) reason = "HTTP " + std::to_string(*r.http_status);
    if (row.reconnect) reason += (reason.empty() ? "" : "; ") + std::string("reconnect ") + *row.reconnect;
    table.add({{row.outcome.name},
               verdict_cell(r),
               {std::to_string(r.latency_ms) + " ms"},
               {r.tool_count ? std::to_string(*r.tool_count) : "-"},
               {r.protocol_version.value_or("-")},
               {reason}});
  }
  std::fputs(table.render(use_color(stdout), terminal_width()).c_str(), stdout);
}

} // namespace

int run_probe(const ProbeCommandOptions& o, const GlobalOptions& globals) {
  util::ProcessEnvironment env;
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  warn_all(settings.warnings);
  const config::DiscoveryInputs inputs = discovery_for(env, settings, o.cwd);
  config::ConfigReader reader(config::search_order(inputs), inputs.project_dir);
  const std::optional<std::vector<config::ServerDefinition>> chosen = choose_servers(o, reader);
  if (!chosen) return k_exit_usage;

  probe::ProbeOptions options;
  options.depth = *probe::parse_depth(o.depth);
  options.protocol = *probe::parse_protocol(o.protocol);
  const std::int64_t timeout = o.timeout_ms.value_or(settings.timeout_ms.value);
  std::vector<probe::BatchItem> items;
  for (const auto& def : *chosen) {
    config::ResolvedServer server = config::resolve_server(def, env);
    for (const auto& var : server.unset_vars) util::log::warn(def.name + ": ${" + var + "} is not set");
    items.push_back({def.name, std::move(server)});
  }
  const std::vector<probe::BatchOutcome> outcomes = probe::probe_batch(
      items, timeout, o.parallel, [&] { return std::make_unique<probe::LiveProber>(clock, options); }, clock);

  state::StateStore store(settings.state_path.value, clock);
  const state::StateSnapshot before = store.read();
  std::vector<Row> rows;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    rows.push_back({outcomes[i], transport_name(items[i].server.transport), (*chosen)[i].source.string(), std::nullopt});
  }
  std::vector<std::optional<std::string>> restored_by(rows.size());
  if (o.reconnect) restored_by = reconnect_down(rows, items, before, options, timeout, settings, env, clock);

  if (!o.no_update) {
    std::vector<probe::ProbedServer> to_record;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      to_record.push_back({rows[i].outcome.name, rows[i].outcome.result, rows[i].outcome.started_at,
                           {clock.now_ms(), settings.ttl_ms.value, settings.backoff_ms.value,
                            settings.max_backoff_ms.value, rows[i].source, restored_by[i]}});
    }
    std::vector<std::string> skipped;
    const state::UpdateResult written = probe::record_probes(store, to_record, skipped);
    if (!written.ok()) util::log::warn(written.message);
    if (written.moved_aside) util::log::warn("the state file was not valid; moved to " + written.moved_aside->string());
    for (const auto& name : skipped) util::log::info(name + ": a newer check was recorded meanwhile; kept it");
  }
  if (o.prometheus) {
    if (std::string err = write_prometheus(*o.prometheus, rows, before); !err.empty()) {
      util::log::error("cannot write " + *o.prometheus + ": " + err);
      return k_exit_usage;
    }
  }

  const bool any_down = std::any_of(rows.begin(), rows.end(), [](const Row& row) {
    return !row.outcome.result.ok && row.outcome.result.kind != probe::Kind::not_probed;
  });
  if (o.json) {
    json::array servers;
    for (const Row& row : rows) servers.push_back(row_json(row));
    if (!o.quiet) std::fputs(util::pretty_json(json::object{{"servers", std::move(servers)}}).c_str(), stdout);
  } else if (!o.quiet) {
    print_table(rows);
  }
  return any_down ? k_exit_unhealthy : k_exit_ok;
}

} // namespace mcphealth::cli
