#pragma once
// The node_exporter textfile-collector format, so a fleet's MCP health reaches Prometheus.
#include <mcphealth/state/health.hpp>
#include <mcphealth/util/result.hpp>

#include <boost/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::probe {

/// One server's figures.
struct MetricRow {
  std::string server;
  /// The definition's fingerprint: two projects may define one name differently, and each is its own series.
  std::string definition;
  state::Health health = state::Health::unknown;
  std::int64_t latency_ms = 0;
  std::optional<std::int64_t> tools;
  std::int64_t consecutive_failures = 0;
  std::int64_t probed_at_ms = 0;
};

/// Renders the rows: `mcphealth_up`, `mcphealth_status` (a state set: one series per health word, 1 for the
/// server's), `mcphealth_probe_duration_seconds`, `mcphealth_tools`, `mcphealth_consecutive_failures`,
/// `mcphealth_last_probe_timestamp_seconds`, each with HELP and TYPE, labelled `server` and (when known)
/// `definition`.
std::string render_prometheus(const std::vector<MetricRow>& rows);

/// One row per verdict in a state file, as its last recorded probe left it (`watch --prometheus`).
std::vector<MetricRow> metrics_from_state(const boost::json::object& doc);

/// Checks that metrics can be written at `path`: its folder exists (mcphealth never creates it). Checked before
/// probing: a typo in the path must fail at once, not write where node_exporter does not read.
util::Result<void> check_textfile_path(const std::filesystem::path& path);

/// Writes the textfile atomically, mode 0644 (node_exporter usually runs as another user), never creating a
/// folder.
util::Result<void> write_textfile(const std::filesystem::path& path, const std::vector<MetricRow>& rows);

/// Escapes a label value (backslash, double quote, newline).
std::string escape_label(const std::string& value);

} // namespace mcphealth::probe
