#include <mcphealth/probe/prometheus.hpp>

#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

#include <cstdio>

namespace mcphealth::probe {

std::string escape_label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

namespace {
/// Milliseconds as seconds with three decimals, written without floating point (no `1.5E0`, no locale).
std::string ms_as_seconds(std::int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ms / 1000), static_cast<long long>(ms % 1000));
  return buf;
}
} // namespace

std::string render_prometheus(const std::vector<MetricRow>& rows) {
  std::string out;
  auto labels = [](const MetricRow& r) {
    std::string out = "server=\"" + escape_label(r.server) + "\"";
    if (!r.definition.empty()) out += ",definition=\"" + escape_label(r.definition) + "\"";
    return out;
  };
  auto family = [&](const char* name, const char* help, auto value_of) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
    for (const MetricRow& r : rows) {
      std::optional<std::string> value = value_of(r);
      if (!value) continue;
      out += std::string(name) + "{" + labels(r) + "} " + *value + "\n";
    }
  };
  family("mcphealth_up", "1 when the MCP server is up (healthy, reachable, needs-auth, alive-silent), else 0.",
         [](const MetricRow& r) { return std::optional<std::string>(state::is_up(r.health) ? "1" : "0"); });
  // A state set, as Prometheus writes enums: one series per value, 1 for the current one, so
  // `mcphealth_status{status="alive-silent"} == 1` finds every hung server.
  out += "# HELP mcphealth_status The server's health, one series per health word: 1 for the current one.\n"
         "# TYPE mcphealth_status gauge\n";
  for (const MetricRow& r : rows) {
    for (state::Health h : state::k_all_health) {
      out += "mcphealth_status{" + labels(r) + ",status=\"" + std::string(state::health_name(h)) + "\"} " +
             (h == r.health ? "1" : "0") + "\n";
    }
  }
  family("mcphealth_probe_duration_seconds", "How long the last probe took.",
         [](const MetricRow& r) { return std::optional<std::string>(ms_as_seconds(r.latency_ms)); });
  family("mcphealth_tools", "Tools the server listed in its first tools/list page.", [](const MetricRow& r) {
    return r.tools ? std::optional<std::string>(std::to_string(*r.tools)) : std::nullopt;
  });
  family("mcphealth_consecutive_failures", "Failed probes and reported failures in a row.",
         [](const MetricRow& r) { return std::optional<std::string>(std::to_string(r.consecutive_failures)); });
  family("mcphealth_last_probe_timestamp_seconds", "When the last probe ran, in Unix seconds.",
         [](const MetricRow& r) { return std::optional<std::string>(ms_as_seconds(r.probed_at_ms)); });
  return out;
}

std::vector<MetricRow> metrics_from_state(const boost::json::object& doc) {
  std::vector<MetricRow> rows;
  for (const auto& kv : state::verdicts(doc)) {
    if (!kv.value().is_object()) continue;
    const boost::json::object& v = kv.value().get_object();
    const state::ServerEntry e = state::ServerEntry::from_json(v);
    const std::optional<state::ProbeDetails> details = state::probe_details(v);
    rows.push_back({state::verdict_tool_server(v).value_or(std::string(kv.key())), std::string(kv.key()),
                    state::health_of(e, v), details ? details->latency_ms : 0, details ? details->tools : std::nullopt,
                    e.failure_count, e.checked_at.value_or(0)});
  }
  return rows;
}

util::Result<void> check_textfile_path(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return util::fail("the folder " + dir.string() + " does not exist (mcphealth never creates it: create it, or fix the path)");
  }
  return util::ok();
}

util::Result<void> write_textfile(const std::filesystem::path& path, const std::vector<MetricRow>& rows) {
  if (auto usable = check_textfile_path(path); !usable) return usable;
  return util::atomic_replace(path, render_prometheus(rows), 0644, util::Folders::must_exist);
}

} // namespace mcphealth::probe
