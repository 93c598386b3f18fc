#pragma once
// `mcphealth watch`'s core: the transitions between two readings of the state file (whoever wrote them: a hook,
// probe, refresh, reset or this watcher), and a background prober that probes each definition when it is due
// (an unhealthy one when its retry comes, a healthy one shortly before its mark expires), with jitter, recovering
// through the one recovery policy.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/ops/status.hpp>
#include <mcphealth/probe/batch.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <boost/json.hpp>

#include <atomic>
#include <map>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// One transition of one server (a definition's verdict, or an entry without a definition).
struct WatchEvent {
  util::EpochMs ts = 0;
  std::string server;
  /// `down`, `still-down`, `recovered`, `reset`, `appeared`, `removed`.
  std::string event;
  /// The health before and after, in the one vocabulary (`healthy`, `alive-silent`, `unhealthy`, `misconfigured`,
  /// ...), or `none` (not in the state file).
  std::string from;
  std::string to;
  std::int64_t failure_count = 0;
  std::string reason;
  /// `hook`, `probe`, `refresh`, `watch`, `tool-success`, `reset`, or `unknown` (a writer that does not say).
  std::string by;
  std::optional<std::string> definition;
  std::optional<std::string> project;
  std::optional<std::string> scope;

  /// True when the server's side changed (down, recovered, reset, appeared, removed); false for `still-down`, one
  /// more failed check of an outage already told. Only changes run `--exec` and fill the view's list: a night's
  /// retries would push the real events off it and notify at every one.
  bool changes_side() const { return event != "still-down"; }
};

/// The transitions from `before` to `after`, seen at `now`. A healthy mark that is only refreshed is not one.
std::vector<WatchEvent> transitions(const state::StateSnapshot& before, const state::StateSnapshot& after, util::EpochMs now);

/// One event as a JSON object: `ts` (ISO-8601), `server`, `event`, `from`, `to`, `failureCount`, `reason`, `by`,
/// and `definition`, `project`, `scope` where known.
boost::json::object event_json(const WatchEvent& event);

/// Whether probe times are spread apart (a long-running watcher) or everything not fresh is due now (one sweep).
enum class Jitter { yes, no };

/// When a definition should next be probed in the background: without a verdict, just after `seen_at` (when the
/// watcher first saw it); with a stale one, now; an unhealthy one at its honoured retry time; a healthy one a tenth
/// of the TTL (at least a second) before its mark expires, or `every_ms` after its check when that comes sooner
/// (`watch --every`). A jitter derived from the fingerprint spreads servers apart. Without jitter (one sweep,
/// `--once`) every definition is due now, as `probe --all` probes them.
util::EpochMs next_probe_at(const boost::json::object* verdict, const std::string& fingerprint, util::EpochMs now,
                            util::EpochMs seen_at, gate::RuleSettings& settings, Jitter jitter = Jitter::yes,
                            std::int64_t every_ms = 0);

/// What one sweep did.
struct Sweep {
  /// When the next definition is due.
  util::EpochMs next_at = 0;
  /// Why this sweep's verdicts were not recorded (the state file could not be written), when they were not.
  std::optional<std::string> not_recorded;
};

/// The background prober's work.
class Watcher {
public:
  /// `only`: that agent's servers alone (nothing: every agent's).
  /// `path`: whether `env`'s PATH is the agent's (probe::not_on_this_path).
  Watcher(const config::Settings& settings, config::DiscoveryInputs base, const util::Environment& env, util::Clock& clock,
          std::int64_t resolve_every_ms, Jitter jitter, const agent::Agent* only = nullptr,
          probe::PathOrigin path = probe::PathOrigin::agents, std::int64_t every_ms = 0);

  /// How far a sweep has come: probes ended of how many, and since when it runs.
  using Progress = std::function<void(std::size_t done, std::size_t total, util::EpochMs since)>;

  /// Probes every definition that is due (all at once), recovers and records them; a probe cut short by `stop` is
  /// not recorded. While the probes run, `waiting` is called about every second on this thread (a view redraws).
  Sweep sweep(const std::atomic<bool>& stop, const Progress& waiting = {});

  /// How many definitions it watches (after the last sweep).
  std::size_t watched() const { return m_candidates.size(); }

private:
  const config::Settings& m_settings;
  config::DiscoveryInputs m_base;
  const util::Environment& m_env;
  util::Clock& m_clock;
  std::int64_t m_resolve_every_ms;
  Jitter m_jitter;
  const agent::Agent* m_only;
  probe::PathOrigin m_path;
  std::int64_t m_every_ms;
  util::EpochMs m_resolved_at = 0;
  std::vector<agent::AgentFolder> m_folders;
  std::vector<const config::Candidate*> m_candidates;
  /// When each definition (by fingerprint) was first seen: the anchor of its first probe's jitter.
  std::map<std::string, util::EpochMs> m_seen_at;
};

/// How far the sweep under way has come.
struct SweepProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::int64_t elapsed_ms = 0;
};

/// Where a watch's findings go: the front end prints events, draws the view, or both.
class WatchSink {
public:
  virtual ~WatchSink() = default;
  /// Each transition, as it is seen.
  virtual void transition(const WatchEvent& event) = 0;
  /// A problem worth a line on stderr (a sweep not recorded, an --exec that failed, metrics not written).
  virtual void warning(const std::string& text) = 0;
  /// The state as it stands after a turn, for a view (only when WatchOptions::report_status); also about every
  /// second while a sweep's probes run, the state as it stood before them.
  virtual void status(const StatusReport& report) = 0;
  /// While a sweep's probes run: how many have ended, of how many, and for how long it has run; nothing once it is
  /// over. Said before each status() of a sweep.
  virtual void sweeping(const std::optional<SweepProgress>& progress) = 0;
};

/// What a watch does each turn.
struct WatchPlan {
  /// Probe what is due (the background prober), re-reading the configs every `interval_ms`.
  bool probe = false;
  std::int64_t interval_ms = 60'000;
  Jitter jitter = Jitter::yes;
  /// Run this with `/bin/sh -c` for each transition, the event's JSON line on its stdin, `MCPHEALTH_SERVER` set.
  std::optional<std::string> exec;
  std::int64_t exec_timeout_ms = 5000;
  /// Rewrite node_exporter textfile metrics here after each turn.
  std::optional<std::filesystem::path> prometheus;
  /// Build the status report (for a view, or --once's exit code), re-reading the configs every `interval_ms`.
  bool report_status = false;
  /// Only this agent's servers, probed and shown (nothing: every agent's).
  const agent::Agent* agent = nullptr;
  /// Whether the environment's PATH is the agent's (ops::probe_path).
  probe::PathOrigin path_origin = probe::PathOrigin::agents;
  /// Re-probe a healthy server at least this often (`--every`); 0: shortly before its mark expires.
  std::int64_t every_ms = 0;
};

/// The watch loop's turn, without the waiting: probe what is due, read the state file, hand each transition to the
/// sink (and to --exec, through the command runner), write metrics, report the state. The front end waits between
/// turns (for a change of the file, a key, a signal) and draws.
class WatchLoop {
public:
  WatchLoop(const config::Settings& settings, const config::DiscoveryInputs& inputs, const util::Environment& env,
            util::Clock& clock, recover::CommandRunner& runner, WatchPlan plan, WatchSink& sink);
  ~WatchLoop();
  WatchLoop(const WatchLoop&) = delete;
  WatchLoop& operator=(const WatchLoop&) = delete;

  /// One turn; `stop` cuts probes short (their results are not recorded). Returns when the next is due.
  util::EpochMs turn(const std::atomic<bool>& stop);
  /// Whether the last status report had a server down (--once's exit code).
  bool something_down() const { return m_down; }

private:
  /// Builds the status report of `now_state` and hands it to the sink.
  void report(const state::StateSnapshot& now_state);

  const config::Settings& m_settings;
  const config::DiscoveryInputs& m_inputs;
  const util::Environment& m_env;
  util::Clock& m_clock;
  recover::CommandRunner& m_runner;
  WatchPlan m_plan;
  WatchSink& m_sink;
  std::optional<Watcher> m_watcher;
  state::StateStore m_store;
  state::StateSnapshot m_before;
  Configured m_configured;
  util::EpochMs m_configured_at = 0;
  bool m_configured_once = false;
  /// The definitions some folder is bound to, read with m_configured.
  std::vector<std::string> m_bound;
  bool m_down = false;
};

} // namespace mcphealth::ops
