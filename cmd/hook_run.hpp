#pragma once
// One run of the hook, shared by mcphealth's two binaries (docs/developing.md, "Two binaries"):
// - the front, bin/mcphealth: linked static, it starts at the cost of a process start and answers every call that
//   needs only reading (a cache hit, a tool that is not MCP's);
// - the full binary, libexec/mcphealth/mcphealth-full: every command, and every call that probes, records or
//   recovers, which the front hands on to it.
// Both run the same engine (gate/engine.hpp). The front gives it seams that read and refuse everything else, so a
// call is decided by the same code either way, and a call handed on has done nothing yet.
// No CLI11 here: the front does not parse a command line.
#include "common.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/gate/engine.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/reconnect.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth hook`.
struct HookOptions {
  /// `json` (default), `exit-code` or `passthrough`.
  agent::AnswerMode output = agent::AnswerMode::json;
  std::optional<std::string> event;
  /// `--agent`: whose hook this is (agent/agent.hpp); nothing = told from the payload.
  std::optional<std::string> agent;
};

/// The hook's command lines that need no parser, with their options: exactly `hook`, as Claude Code's hook runs it,
/// and `hook --agent ID` for a known agent, as install writes it. Anything else: nothing.
std::optional<HookOptions> plain_hook_command(int argc, const char* const* argv);

/// A read-only run that met a step it may not take: the payload as read from stdin, for the full binary to read.
struct HookHandOff {
  std::string raw;
  /// More came than the input limit: `raw` holds the first `limit` bytes of it.
  bool cut = false;
};

/// Starts a detached re-probe of `servers` of `folder` for `agent` (cmd/refresh.hpp); false when it could not.
using RefreshStarter = std::function<bool(const agent::Agent& agent, const std::string& folder,
                                          const std::vector<std::string>& servers, gate::Refreshing why)>;

/// What a run of the full binary may do beyond reading: probe, reconnect, start refreshes. (It records through the
/// state file.) The front has none of it, and links none of it.
struct HookEffects {
  probe::Prober& prober;
  recover::CommandRunner& runner;
  RefreshStarter start_refresh;
};

/// Runs the hook: reads the payload on stdin, decides, answers. Returns the exit code (0, or 2 for a block in the
/// exit-code and passthrough modes). Without `effects` the run is read-only (the front's): the first step that
/// would start a process, take a lock or write ends it before that step happens, with nothing said or written, and
/// it returns the payload to hand on.
std::variant<int, HookHandOff> run_hook_within(const HookOptions& options, const GlobalOptions& globals,
                                               HookEffects* effects);

/// Writes one `[MCPHealthCheck]` line to stderr in one write (parallel hooks sharing a stderr never interleave
/// inside a line); control characters in it are escaped.
void hook_log_line(std::string_view line);

/// Writes all of `text` to `fd`, or as much as it takes.
void write_all(int fd, std::string_view text);

} // namespace mcphealth::cli
