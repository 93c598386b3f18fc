#pragma once
// `mcphealth doctor`: the evening question, is the gate on? For each agent on this machine: its version against the
// versions tested, where mcphealth's hook is registered, whether that command starts and is mcphealth, whether the
// agent runs it (trust), when the hook was last seen running, and whether the agent's configs read; then the state
// file and the history. Each problem comes with what to do about it.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// One thing checked.
struct Check {
  enum class Verdict { ok, note, problem };
  Verdict verdict = Verdict::ok;
  /// What was checked, in a word or two: `version`, `registered`, `starts`, `trusted`, `seen`, `configs`, `state`.
  std::string what;
  /// What was found.
  std::string found;
  /// For a note or a problem: what to do about it.
  std::string fix = {};
};

/// `ok`, `note`, `problem`.
std::string_view verdict_name(Check::Verdict verdict);

/// One agent, as doctor found it.
struct AgentCheckup {
  const agent::Agent* agent = nullptr;
  /// Whether the agent is on this machine: its folder, or its program on PATH.
  bool installed = false;
  /// Its version, when its program said one.
  std::optional<std::string> version = std::nullopt;
  std::vector<Check> checks = {};
  /// True when the hook is registered but whether the agent runs it could not be checked (Codex CLI skips an
  /// untrusted hook without a word, and `codex` was not there to ask): its own verdict, not gated.
  bool trust_unverified = false;
  /// True when nothing checked is a problem: mcphealth gates its MCP calls.
  bool gated() const;
  /// The verdict in words: `gated`, `registered, trust unverified` or `NOT gated`.
  std::string_view verdict() const;
};

/// The whole checkup.
struct Checkup {
  std::vector<AgentCheckup> agents;
  /// The state file and the history, for every agent.
  std::vector<Check> common;
  /// True when some agent is installed, every installed agent is gated, and no common check is a problem.
  bool ok() const;
};

/// What doctor reads and runs.
struct DoctorInputs {
  const util::Environment& env;
  const config::Settings& settings;
  /// The folder whose project files count (the current one), as the other commands read it.
  config::DiscoveryInputs base;
  /// Only these agents; empty = every agent.
  std::vector<const agent::Agent*> only = {};
  /// Runs `claude --version` and the registered hook's `mcphealth --version` (a seam: tests give a fake).
  recover::CommandRunner& runner;
  util::Clock& clock;
};

/// Checks every agent (or `only`'s), installed or not, and the common ground.
Checkup run_checkup(const DoctorInputs& in);

/// The checkup as `doctor --json` prints it.
boost::json::object checkup_json(const Checkup& checkup);


} // namespace mcphealth::ops
