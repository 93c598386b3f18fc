#pragma once
// `mcphealth hook`: the hook of Claude Code, Gemini CLI and the other agents agent/agents.cpp lists.
#include "common.hpp"
#include "hook_run.hpp"

#include <mcphealth/agent/agent.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace mcphealth::cli {

/// Adds `hook` to `app`.
void register_hook(CLI::App& app, CommandLine& command_line);

/// Runs the hook: reads the payload on stdin, decides, answers; returns the exit code (0, or 2 for a block in the
/// exit-code and passthrough modes).
int run_hook(const HookOptions& options, const GlobalOptions& globals);

/// Handles a command line the hook could not parse: allows the call (exit 0), says why on stderr, and in
/// passthrough mode still echoes the input.
int hook_usage_error(const std::string& message, bool passthrough);

} // namespace mcphealth::cli
