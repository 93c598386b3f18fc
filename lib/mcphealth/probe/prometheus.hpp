#pragma once
// The node_exporter textfile-collector format, so a fleet's MCP health reaches Prometheus.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::probe {

/// One server's figures.
struct MetricRow {
  std::string server;
  /// The definition's fingerprint: two projects may define one name differently, and each is its own series.
  std::string definition;
  bool up = false;
  std::int64_t latency_ms = 0;
  std::optional<std::int64_t> tools;
  std::int64_t consecutive_failures = 0;
  std::int64_t probed_at_ms = 0;
};

/// Renders the rows: `mcphealth_up`, `mcphealth_probe_duration_seconds`, `mcphealth_tools`,
/// `mcphealth_consecutive_failures`, `mcphealth_last_probe_timestamp_seconds`, each with HELP and TYPE, labelled
/// `server` and (when known) `definition`.
std::string render_prometheus(const std::vector<MetricRow>& rows);

/// Escapes a label value (backslash, double quote, newline).
std::string escape_label(const std::string& value);

} // namespace mcphealth::probe
