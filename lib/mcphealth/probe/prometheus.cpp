#include <mcphealth/probe/prometheus.hpp>

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
  auto family = [&](const char* name, const char* help, auto value_of) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
    for (const MetricRow& r : rows) {
      std::optional<std::string> value = value_of(r);
      if (!value) continue;
      out += std::string(name) + "{server=\"" + escape_label(r.server) + "\"";
      if (!r.definition.empty()) out += ",definition=\"" + escape_label(r.definition) + "\"";
      out += "} " + *value + "\n";
    }
  };
  family("mcphealth_up", "1 when the MCP server passed its last probe, else 0.",
         [](const MetricRow& r) { return std::optional<std::string>(r.up ? "1" : "0"); });
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

} // namespace mcphealth::probe
