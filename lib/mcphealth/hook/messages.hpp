#pragma once
// What the model reads. Every sentence Claude sees from the hook (`permissionDecisionReason`, `additionalContext`)
// is made here, on one pattern: what is wrong with which server, since when and until when in relative terms, and
// what to do instead. The `[MCPHealthCheck] ...` lines on stderr are the JS hook's and stay as they are; these
// are for the model, and each has a test and a row in docs/hook.md's table.
#include <mcphealth/state/entry.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::hook::messages {

/// A duration as the model should read it: "30 seconds", "4 minutes", "2 hours", never "0". A time still to come
/// rounds up ("for the next 5 minutes" until the last second), a time gone by rounds down ("down for 3 minutes").
enum class Round { up, down };
std::string in_words(std::int64_t ms, Round round = Round::up);

/// The agent the model works in, as the advice names it.
struct Client {
  std::string name = "Claude Code";
  /// What the user does to authenticate a server there, whole and short.
  std::string authenticate = "run /mcp in Claude Code";
  std::string authenticate_short = "run /mcp";
  /// Who falls back to other tools in a block's stderr line: `Claude` for Claude Code (the JS hook's words, which
  /// people grep), the agent's name for the others.
  std::string falls_back = "Claude";
  /// What the agent does with a server it cannot start when a session begins: Claude Code drops its tools for the
  /// session (a re-check that finds it back does not bring them back; /mcp does).
  enum class AtStart { keeps_trying, drops_for_the_session };
  AtStart down_at_start = AtStart::keeps_trying;
};

/// What is known about a server that is down.
struct Down {
  std::string server; ///< as tool names spell it
  std::string tool;   ///< the tool the call was for (blocks only)
  /// What went wrong, as recorded (a traceback is cut to its last meaningful line here).
  std::string reason;
  state::FailureCode code = {};
  /// Until the next check, from now; nothing when no mark was recorded.
  std::optional<std::int64_t> blocked_for_ms = std::nullopt;
  /// Since the first failure in a row, when known.
  std::optional<std::int64_t> down_for_ms = std::nullopt;
  std::int64_t failures = 0;
  /// Failed calls in a row, when they prove a crash loop (gate::crash_loop): the server starts and answers its
  /// handshake, and fails on calls. 0: not one.
  std::int64_t failed_calls = 0;
  /// The tool the last failed call was for, when known.
  std::string failed_tool = {};
  /// The failed calls were a tool's upstream errors (state::Breaker::upstream): the server answers, its upstream
  /// does not.
  bool upstream = false;
  /// The reconnect command ran (or was started) and the server is still down.
  bool restart_tried = false;
  /// The server refuses the credentials its definition sends (not an OAuth login the user can redo in the agent).
  bool credentials_refused = false;
  Client client = {};
};

/// What every block's reason starts with. Claude Code 2.1.332 shows the model a deny as `PreToolUse:<tool> hook
/// error: <reason>`, which reads like a broken hook; the lead says the block is meant, and by whom.
inline constexpr std::string_view k_block_lead =
    "Blocked on purpose by mcphealth, the MCP health check (not a hook failure). ";

/// PreToolUse, a probe just found the server down.
std::string blocked_after_probe(const Down& d);
/// PreToolUse, the cache says the server is down and its retry has not come.
std::string blocked_from_cache(const Down& d);
/// PreToolUse, the definition uses a variable that is not set (`missing` = its name): Claude Code cannot start it.
std::string blocked_misconfigured(const std::string& server, const std::string& tool, const std::string& missing,
                                  const Client& client = {});
/// PreToolUse, the payload was over the input limit and could not be checked.
std::string blocked_input_too_large(const std::string& server, const std::string& tool, const std::string& limit);
/// PreToolUse, the input was over the limit before its tool name: which tool it is for cannot be told.
std::string blocked_input_too_large_unnamed(const std::string& limit);

/// PostToolUseFailure, the failure marked the server down.
std::string failed_and_marked_down(const Down& d);
/// PostToolUseFailure, the failure showed the server in trouble but nothing could be recorded.
std::string failed_not_recorded(const Down& d);
/// PostToolUseFailure, the reconnect command restarted the server and it answers again.
std::string failed_then_restored(const std::string& server, const state::FailureCode& code);

/// SessionStart: one line naming every server known to be down, each with why and for how long.
struct SessionNote {
  std::string server;
  /// `rechecking`: it was down and its retry is due: a refresh probes it as the session starts.
  enum class Kind { down, misconfigured, needs_auth, rechecking } kind = Kind::down;
  std::string detail; ///< the reason (down, rechecking), the unset variable (misconfigured)
  std::optional<std::int64_t> blocked_for_ms = std::nullopt;
};
std::string session_start(const std::vector<SessionNote>& notes, const Client& client = {});

} // namespace mcphealth::hook::messages
