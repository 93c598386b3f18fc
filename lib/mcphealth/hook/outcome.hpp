#pragma once
// What the hook decided, before any agent's answer format: the agent's dialect (agent/agent.hpp) turns it into
// that agent's JSON and exit code.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::hook {

/// The most text that reaches the model (a block reason, additional context), in bytes: util::cap_utf8 cuts there
/// without splitting a UTF-8 sequence.
inline constexpr std::size_t k_max_model_text_bytes = 500;
/// The prefix of every line the hook writes to stderr; people grep for it.
inline constexpr std::string_view k_log_prefix = "[MCPHealthCheck] ";

/// What the hook decided.
struct HookOutcome {
  enum class Decision { allow, block };
  Decision decision = Decision::allow;
  /// The event acted on.
  std::string event_name;
  /// For a block: the reason shown to the model in json mode (hook/messages.hpp; at most 500 bytes).
  /// (The JS hook's `[MCPHealthCheck]` line goes to stderr, which exit-code and passthrough modes show the model.)
  std::string reason;
  /// For PostToolUseFailure that leaves a server down: what the model is told.
  std::optional<std::string> additional_context;
};

} // namespace mcphealth::hook
