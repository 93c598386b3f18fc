#pragma once
// `mcphealth probe`'s work: choose the definitions Claude Code uses (in one folder, or in every folder it knows),
// probe each distinct definition once, recover through the one policy, record every verdict (and every folder's
// bindings) in one locked write, and write Prometheus metrics. The front end only prints the rows.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/probe/batch.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/state/history.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// Whether a probe run writes the state file.
enum class Record { yes, no };

/// What to probe, and how.
/// Whose environment a probe runs in: the agent's (a hook's refresh, the agent's own shell: it builds the agent's
/// definitions), or its own (cron's, a service's, a shell's: it may build others, or lack a variable the agent has).
enum class ProbeEnvironment { agents, own };

struct ProbeRequest {
  /// Names (as tool names or config files spell them); empty with `all`.
  std::vector<std::string> servers;
  bool all = false;
  /// `--project DIR`: only that folder; otherwise `all` covers every folder in `~/.claude.json` and this one.
  std::optional<std::filesystem::path> project;
  /// Whose servers: these agents' (empty: every agent's). Claude Code's are found in every folder it knows; another
  /// agent's in this folder (or `project`). A definition two agents share is probed once.
  std::vector<const agent::Agent*> agents;
  /// At most this many probes at a time (0 = all at once).
  std::size_t parallel = 0;
  Record record = Record::yes;
  recover::Reconnect reconnect = recover::Reconnect::never;
  /// Where to write node_exporter textfile metrics, if anywhere.
  std::optional<std::filesystem::path> prometheus;
  /// Whether the environment's PATH is the one the agent starts servers with (probe_path).
  probe::PathOrigin path_origin = probe::PathOrigin::agents;
  /// Told as each probe ends (a terminal's progress line); nothing = nobody is told.
  probe::BatchProgress progress = {};
  /// Own: when recording, a definition that needs a variable this environment lacks is not started
  /// (not_in_this_environment), and one built from variables is recorded only where a hook bound it
  /// (not_the_agents). With `record` no, nothing is at stake: every definition is probed as this environment builds it.
  ProbeEnvironment environment = ProbeEnvironment::own;
};

/// For a probe in its own environment: "not probed" for `c` when it needs a variable `env` does not set and no hook
/// bound this definition (`bound`): its verdict would be this environment's, not the server's. Says where the
/// variable goes. Nothing otherwise (a bound one lacks the variable where the agent runs too: it is probed).
std::optional<probe::ProbeResult> not_in_this_environment(const config::Candidate& c, const util::Environment& env,
                                                          const std::vector<std::string>& bound);

/// For a probe in its own environment: why `c`'s verdict is not recorded, when `c` is built from variables and no
/// hook bound its definition (`bound`: every definition a folder's bindings point at). Nothing when it may be.
std::optional<std::string> not_the_agents(const config::Candidate& c, const std::vector<std::string>& bound);

/// One probed definition.
struct ProbeRow {
  /// The name as tool names spell it.
  std::string name;
  /// The name in its config file.
  std::string server;
  probe::ProbeResult result;
  util::EpochMs probed_at = 0;
  /// `stdio`, `http`, `sse` or `unsupported`.
  std::string transport;
  std::string source;
  std::string scope;
  std::optional<std::string> project;
  std::string fingerprint;
  /// What the reconnect attempt came to (`ok`, a failure, `skipped: ...`), when one was considered.
  std::optional<std::string> reconnect;
  /// The agent of the first folder that starts it: whose words its hint uses.
  const agent::Agent* agent = nullptr;
  /// Why its verdict was not recorded (not_the_agents), when it was not.
  std::optional<std::string> not_recorded = std::nullopt;

  /// Down (unhealthy or misconfigured): what makes `probe` exit 1.
  bool down() const { return state::is_down(probe::health_of(result)); }
};

/// Everything a probe run found.
struct ProbeReport {
  std::vector<ProbeRow> rows;
  /// Worth saying on stderr: config files that do not parse, newer checks kept, a failed state write.
  std::vector<std::string> warnings;
  /// A usage or config error that stopped the run (exit 2): an unknown name, no servers, an unwritable metrics file.
  std::optional<std::string> error;
  /// True when a row is down (needs-auth and alive-silent are up; not-probed is neither).
  bool any_down() const;
  /// True when a probe could not run here (no descriptors, memory, processes): the run is incomplete, exit 3.
  bool any_local_fault() const;
};

/// The PATH a probe outside a session starts servers with.
struct ProbePath {
  std::string path;
  probe::PathOrigin origin = probe::PathOrigin::unknown;
  /// The hook that recorded it: which agent, when.
  std::optional<state::HookSeen> seen;
  /// True when it is not this process's own PATH.
  bool differs = false;
};

/// The PATH the agent's hook last ran with (state::hooks_seen: of one of `agents` when any are named, else the
/// most recent), else `own`'s, which is then not known to be the agent's. Probes outside a session start servers
/// with it, so a probe from cron (PATH=/usr/bin:/bin) finds a server where the agent does.
ProbePath probe_path(const boost::json::object& state_doc, const std::vector<const agent::Agent*>& agents,
                     const util::Environment& own);

/// Runs the probes, each definition with its settings (`settings` with the policy file's entries for it laid
/// over; a server whose policy says `probe: skip` gets a `skipped` row and no verdict). `base` gives the folder
/// named servers are looked up in (and, for `all`, one more folder).
ProbeReport run_probes(const ProbeRequest& request, const config::Settings& settings, const config::DiscoveryInputs& base,
                       const util::Environment& env, util::Clock& clock);

} // namespace mcphealth::ops
