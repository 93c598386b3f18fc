#pragma once
// The gate: the hook's decisions, for any agent: gate a call before it runs (PreToolUse), record a failed one
// (PostToolUseFailure), take a successful one as proof of health (PostToolUse), and warm the cache as a session
// starts (SessionStart). The rules name one step at a time (gate/steps.hpp); this is their executor, which performs
// each (a read, a probe, a write, the answer) through seams (clock, environment, state store, prober, command
// runner) and decides nothing; the front end only reads stdin and renders the outcome.
#include <mcphealth/gate/deps.hpp>
#include <mcphealth/hook/outcome.hpp>

namespace mcphealth::gate {

/// Runs one hook invocation.
HookOutcome run_hook_engine(const HookRequest& request, HookDeps& deps);

} // namespace mcphealth::gate
