#pragma once
// The one recovery policy: probe; when the server is down (and not rate limiting), run its reconnect command and
// probe again; say how it came back. The hook, `probe --reconnect` and `watch` all recover through here.
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/util/env.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace mcphealth::recover {

/// Whether a server found down gets its reconnect command.
enum class Reconnect { when_down, never };

/// What a reconnect attempt came to.
enum class Attempt {
  none,              // not tried: the server is up, was not probed, or reconnecting was not asked for
  no_command,        // no reconnect command is configured
  not_for_this_kind, // the outage's row says no restart (a 429 would only burn the rate limit); reason says why
  refused,           // the name came from the payload and is not plain
  failed,            // the command failed or timed out
  ok,                // the command succeeded (the re-probe decides whether the server is back)
};

/// Everything the policy needs about one server.
struct RecoveryRequest {
  /// The name the reconnect variable and `MCPHEALTH_SERVER` use.
  std::string name;
  NameOrigin origin = NameOrigin::config;
  /// What to probe; nothing = no probe is possible (a reconnect may still run, without a re-probe).
  const config::ResolvedServer* server = nullptr;
  probe::ProbeSpec spec;
  std::int64_t reconnect_timeout_ms = 0;
  /// The entry's `lastFailureCode` before this check: a 429 there still forbids a restart.
  state::FailureCode previous_code;
  Reconnect reconnect = Reconnect::when_down;
  /// A probe already made of this server (by a batch): used instead of probing it again.
  const probe::ProbeResult* already_probed = nullptr;
  /// The policy's reconnect command; nothing = the variables' (find_reconnect_command).
  std::optional<ReconnectCommand> command = std::nullopt;
  /// Set when the policy says not to probe this server (`probe: skip`): where it says so. Nothing is started.
  std::optional<std::string> skipped_by = std::nullopt;
  /// The server was found down moments ago (a look younger than a look's period): a probe before the reconnect
  /// would only say so again, so the reconnect runs first and one probe follows it (or, with no reconnect run,
  /// the probe alone).
  bool known_down = false;
  /// Whether a successful reconnect command is followed by a probe: not for a crash loop, whose handshake passes
  /// whatever the command did (only a call can show it stopped failing).
  bool reprobe = true;
};

/// The request for a definition under its settings (policy applied): its probe spec (with what its last verdict
/// `previous` learned about how it answers), reconnect timeout and command, and the last failure code.
RecoveryRequest request_for(const config::Candidate& candidate, const config::Settings& settings,
                            const boost::json::object* previous, Reconnect reconnect,
                            const probe::ProbeResult* already_probed = nullptr);

/// The policy's reconnect command in `settings`, if it sets one.
std::optional<ReconnectCommand> policy_command(const config::Settings& settings);

/// The reconnect command that runs for `server` (its config name) under `settings`: the policy's when it sets one,
/// else the environment's (recover::find_reconnect_command); nothing when neither does.
std::optional<ReconnectCommand> reconnect_command_for(const config::Settings& settings, std::string_view server,
                                                      const util::Environment& env);

/// The outcome of the reconnect half.
struct ReconnectReport {
  Attempt attempt = Attempt::none;
  /// Why the command failed or was refused (empty otherwise).
  std::string reason;
  /// The re-probe after a successful command, when there was something to probe.
  std::optional<probe::ProbeResult> reprobe;
  /// The command as it ran, how it exited and the first line it said (ReconnectOutcome's), when it ran.
  std::string command;
  std::optional<std::string> exit;
  std::string line;
};

/// What to keep of `report` with the verdict (state::ReconnectNote), when a command ran (or was started and timed
/// out, or could not start); nothing when none was tried. `by` is the writer (`hook`, `watch`, `probe`, `refresh`).
std::optional<state::ReconnectNote> reconnect_note(const ReconnectReport& report, util::EpochMs at, std::string by);

/// The outcome of a check.
struct Recovery {
  /// The verdict to record: the re-probe's when a reconnect ran, else the first probe's. A failed re-probe's reason
  /// carries the first probe's reason too.
  probe::ProbeResult result;
  /// Set when the reconnect command brought the server back.
  std::optional<state::RestoredBy> restored_by;
  ReconnectReport reconnect;
};

/// Runs the reconnect command for a server known to be down (`code` is why) and re-probes it. Never runs the
/// command after a 429.
ReconnectReport reconnect_and_reprobe(const RecoveryRequest& request, state::FailureCode code, probe::Prober& prober,
                                      CommandRunner& runner, const util::Environment& env);

/// Probes the server (a definition with an unset `${VAR}` is `misconfigured` without starting anything), and when
/// it is down, reconnects and probes again (see reconnect_and_reprobe). A server `known_down` gets the reconnect
/// and one probe: one server start where it would cost two.
Recovery check_and_recover(const RecoveryRequest& request, probe::Prober& prober, CommandRunner& runner,
                           const util::Environment& env);

/// The sentence for a reconnect report, as the block reason and `probe`'s table show it: `ok`, `timed out after
/// 300 ms`, `skipped: no reconnect command configured`, ...; empty when nothing was tried.
std::string describe(const ReconnectReport& report);

} // namespace mcphealth::recover
