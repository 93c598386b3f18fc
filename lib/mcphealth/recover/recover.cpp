#include <mcphealth/recover/recover.hpp>

#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::recover {

ReconnectReport reconnect_and_reprobe(const RecoveryRequest& request, state::FailureCode code, probe::Prober& prober,
                                      CommandRunner& runner, const util::Environment& env) {
  ReconnectReport report;
  if (request.reconnect == Reconnect::never) return report;
  if (state::row_of(code).after_failure == state::AfterFailure::no_reconnect) {
    report.attempt = Attempt::not_for_this_kind;
    report.reason = std::string(state::row_of(code).why_no_reconnect);
    return report;
  }
  // The request carries the policy's command when it sets one (request_for); else the environment decides, as
  // reconnect_command_for says.
  const std::optional<ReconnectCommand> command = request.command ? request.command : find_reconnect_command(request.name, env);
  if (!command) {
    report.attempt = Attempt::no_command;
    return report;
  }
  const ReconnectOutcome rc = run_reconnect(*command, request.name, request.origin, request.reconnect_timeout_ms, runner);
  switch (rc.status) {
  case ReconnectOutcome::Status::refused: report.attempt = Attempt::refused; break;
  case ReconnectOutcome::Status::failed: report.attempt = Attempt::failed; break;
  case ReconnectOutcome::Status::ok: report.attempt = Attempt::ok; break;
  }
  report.reason = rc.reason;
  report.command = rc.command;
  report.exit = rc.exit;
  report.line = rc.line;
  if (report.attempt == Attempt::ok && request.server != nullptr && request.reprobe) {
    report.reprobe = prober.probe(*request.server, request.spec);
  }
  return report;
}

Recovery check_and_recover(const RecoveryRequest& request, probe::Prober& prober, CommandRunner& runner,
                           const util::Environment& env) {
  Recovery out;
  if (request.server == nullptr) return out;
  if (request.skipped_by) {
    out.result.kind = probe::Kind::skipped;
    out.result.reason = "not probed: probe is skip (" + *request.skipped_by + ")";
    return out;
  }
  // Down a moment ago (known_down): no probe before the reconnect, which would only say so again.
  const bool probe_first =
      !request.known_down || request.already_probed != nullptr || !request.server->unset_vars.empty();
  if (probe_first) {
    out.result = request.already_probed ? *request.already_probed : prober.probe(*request.server, request.spec);
    if (out.result.ok || out.result.kind == probe::Kind::not_probed || out.result.kind == probe::Kind::local_fault)
      return out;
    if (!request.server->unset_vars.empty()) {
      // Claude Code starts it with the literal ${VAR} text, as the probe did; it failed, and a restart would not
      // set the variable: misconfigured, with what the server said.
      out.result.kind = probe::Kind::misconfigured;
      out.result.reason = "misconfigured: ${" + request.server->unset_vars.front() + "} is not set" +
                          (out.result.reason.empty() ? std::string() : " (" + out.result.reason + ")");
      return out;
    }
  }
  const state::FailureCode code = out.result.code.present() ? out.result.code : request.previous_code;
  out.reconnect = reconnect_and_reprobe(request, code, prober, runner, env);
  if (!out.reconnect.reprobe) {
    // No reconnect ran (or none re-probed): a server not probed yet gets its one probe now.
    if (!probe_first) out.result = prober.probe(*request.server, request.spec);
    return out;
  }
  probe::ProbeResult again = *out.reconnect.reprobe;
  if (again.ok) {
    out.restored_by = state::RestoredBy::reconnect_command;
  } else {
    again.reason =
        (probe_first ? out.result.reason + "; " : std::string()) + "reconnect reprobe failed: " + again.reason;
  }
  out.result = std::move(again);
  return out;
}

std::optional<ReconnectCommand> policy_command(const config::Settings& settings) {
  if (!settings.reconnect.value) return std::nullopt;
  const config::ReconnectSpec& spec = *settings.reconnect.value;
  return ReconnectCommand{spec.shell, spec.argv, settings.reconnect.origin.text()};
}

std::optional<ReconnectCommand> reconnect_command_for(const config::Settings& settings, std::string_view server,
                                                      const util::Environment& env) {
  if (auto own = policy_command(settings)) return own;
  return find_reconnect_command(server, env);
}

RecoveryRequest request_for(const config::Candidate& candidate, const config::Settings& settings,
                            const boost::json::object* previous, Reconnect reconnect,
                            const probe::ProbeResult* already_probed) {
  return {candidate.definition.name,
          NameOrigin::config,
          candidate.resolved ? &*candidate.resolved : nullptr,
          probe::spec_of(settings, previous),
          settings.reconnect_timeout_ms.value,
          previous ? state::ServerEntry::from_json(*previous).last_failure_code : state::FailureCode{},
          reconnect,
          already_probed,
          policy_command(settings),
          settings.probe.value == config::ProbeMode::skip ? std::optional(settings.probe.origin.text()) : std::nullopt};
}

std::optional<state::ReconnectNote> reconnect_note(const ReconnectReport& report, util::EpochMs at, std::string by) {
  if (report.attempt != Attempt::ok && report.attempt != Attempt::failed) return std::nullopt;
  state::ReconnectNote note;
  note.at = at;
  note.command = report.command;
  note.ok = report.attempt == Attempt::ok;
  note.exit = report.exit;
  // A command that did not exit (timed out, could not start) says why instead of what it printed.
  note.line = !report.line.empty() ? report.line : util::cap_utf8(util::escape_control(report.reason), 300);
  note.by = std::move(by);
  return note;
}

std::string describe(const ReconnectReport& report) {
  switch (report.attempt) {
  case Attempt::none: return {};
  case Attempt::no_command: return "skipped: no reconnect command configured";
  case Attempt::not_for_this_kind: return "skipped: " + report.reason;
  case Attempt::refused: return "skipped: " + report.reason;
  case Attempt::failed: return report.reason;
  case Attempt::ok: return "ok";
  }
  return {};
}

} // namespace mcphealth::recover
