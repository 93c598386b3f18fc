#pragma once
// What the gate's engine is given: the hook's request, and the outside world as seams (clock, environment, prober,
// command runner, files, state). Apart from the engine (gate/engine.hpp), so the reader and the recorder it runs
// with take them without including the engine that runs them.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/hook/outcome.hpp>
#include <mcphealth/hook/payload.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::gate {

// The hook's vocabulary, which the engine decides in.
using hook::CallTarget;
using hook::Event;
using hook::HookCall;
using hook::HookInput;
using hook::HookOutcome;
using hook::k_log_prefix;
using hook::k_max_model_text_bytes;

/// What a background refresh is for: marks missing or stale, or a look at down servers a call asked for before
/// their backoff ends.
enum class Refreshing { stale, look_again };

/// The outside world as the engine sees it.
struct HookDeps {
  util::Clock& clock;
  const util::Environment& env;
  probe::Prober& prober;
  recover::CommandRunner& runner;
  /// Receives each stderr line without its prefix.
  std::function<void(std::string_view)> log;
  /// Problems found while setting up (a malformed variable); said when the hook goes past the cache (a cache hit
  /// and a non-MCP call print nothing).
  std::vector<std::string> setup_warnings = {};
  /// Starts a detached re-probe of some servers (tool names) of a folder, which outlives this run; nothing = no
  /// background refresh (the stale mark waits for an inline probe).
  std::function<void(const std::string& folder, const std::vector<std::string>& servers, Refreshing why)>
      start_refresh = {};
  /// Receives each step of the decision path (`-v`): what the cache said, which file and scope define the server,
  /// what a probe saw and how long it took, what was written. Empty (the default) = no trace, and no text is made.
  std::function<void(std::string_view)> trace = {};
  /// What reads (and stats) the configuration files; nothing = the disk. A test records through it what a
  /// decision looked at.
  util::FileReader* files = nullptr;
  /// Where the state lives; nothing = the state file at the resolved path. A test gives one in memory.
  state::Store* store = nullptr;
};

/// One invocation.
struct HookRequest {
  HookInput input;
  /// The agent whose hook this is; nothing = Claude Code.
  const agent::Agent* agent = nullptr;
  /// That agent, Claude Code when none is set.
  const agent::Agent& client() const;
  /// `--event`, when given.
  std::optional<std::string> event_flag;
  config::SettingsOverrides overrides;
};

} // namespace mcphealth::gate
