#pragma once
// Re-probing the servers of one folder whose marks are missing or stale, off the agent's path: what the hook
// starts detached when a healthy mark has just expired, and at session start. One probe per definition at a time
// (the probe lock, not waited for: if another process holds it, that one's result will do).
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// What to refresh.
struct RefreshRequest {
  /// Tool-name servers of the folder; empty = every server the agent starts there.
  std::vector<std::string> servers;
  /// Whose servers: the agent whose catalogue says what runs in the folder.
  const agent::Agent* agent = &agent::default_agent();
  /// Look at a down server in its backoff too, when its last look is older than gate::look_again_after_ms (a call
  /// asked for it); such a look runs no reconnect.
  bool look_again = false;
};

/// What a refresh did, per server.
struct RefreshReport {
  /// `name: healthy`, `name: unhealthy (reason)`, `name: skipped (fresh)`, `name: skipped (down, next retry in
  /// 26s)`, `name: skipped (being probed)`, `name: not recorded (why)`.
  std::vector<std::string> lines;
  /// True when a refreshed server is down.
  bool any_down = false;
};

/// Probes (and recovers, with the reconnect command when configured) each chosen server of `inputs.project_dir` whose
/// mark needs a check, and records each verdict.
RefreshReport refresh_stale(const RefreshRequest& request, const config::Settings& settings,
                            const config::DiscoveryInputs& inputs, const util::Environment& env, util::Clock& clock,
                            probe::Prober& prober, recover::CommandRunner& runner);

} // namespace mcphealth::ops
