#pragma once
// The hook's input: bounded reading of stdin, the event name, and which MCP server and tool a call targets.
#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::hook {

/// The payload as read.
struct HookInput {
  /// The bytes read (at most the limit): what passthrough mode echoes.
  std::string raw;
  /// True when `raw` is not the whole payload: it exceeded the limit, or `ECC_HOOK_INPUT_TRUNCATED` says the caller
  /// cut it.
  bool incomplete = false;
  /// The limit that applied.
  std::int64_t limit = 0;
  /// The parsed payload. When the input does not parse, the fields the gate needs (`hook_event_name`,
  /// `tool_name`, `cwd`, `error`, `server`, `mcp_server`) taken from its text.
  boost::json::object payload;
  /// Why the input did not parse as a JSON object, when it did not.
  std::optional<std::string> parse_error;
};

/// Whether the caller says it already cut the payload (`ECC_HOOK_INPUT_TRUNCATED`).
enum class CutByCaller { no, yes };

/// Reads `fd` up to `limit` bytes, then drains and discards the rest so the writer never blocks.
HookInput read_input(int fd, std::int64_t limit, CutByCaller cut);

/// Parses `raw` into `input.payload`; for input that is not a JSON object, sets `parse_error` and takes the gate's
/// fields from the raw text, so that no argument a tool is given can switch the gate off.
void parse_payload(HookInput& input);

/// The hook events the hook acts on.
enum class Event { pre_tool_use, post_tool_use_failure, post_tool_use, session_start, other };

/// Maps an event name to the event; unknown names are `other`.
Event event_from_name(std::string_view name);

/// The server and tool a call is aimed at.
struct CallTarget {
  std::string server;
  std::string tool;
  /// The client's own word on which of its definitions the call goes to (Claude Code's `mcp_server.source`:
  /// `user`, `project`, `local`, `dynamic`, ...); nothing when the payload does not say.
  std::optional<std::string> source = std::nullopt;
  /// True when `server` is a configured name's key as mcphealth keeps it (config::Candidate::tool_server), found by
  /// the agent's own spelling (HookCall::respell), not a tool name's spelling of it.
  bool keyed = false;
};

/// The key `call`'s server is kept under: its key when it is one, else the tool-name spelling of its name.
std::string server_key(const CallTarget& call);

/// For an agent that renames some servers' tools (Qwen Code): the call `tool_name` is, if it is a tool of the
/// server kept under `key` as the agent spells it; nothing otherwise.
using Respell = std::optional<CallTarget> (*)(std::string_view tool_name, std::string_view key);

/// Finds the target. The client's word first: an `mcp_server` object (`{"name", "source"}`, Claude Code 2.1.290 and
/// later, the Agent SDK) names the server, so a tool name that splits several ways is not guessed at. Then
/// `mcp__<server>__<tool...>` from `tool_name`; only for other tool names, the explicit fields (`server`,
/// `mcp_server` as a string, `tool_input.server`, `tool_input.mcp_server`, `tool_input.connector`).
std::optional<CallTarget> find_target(const boost::json::object& payload);

/// True when the payload names the server itself (`mcp_server.name`): then its tool name is not split by guessing.
bool names_server_itself(const boost::json::object& payload);

/// The same from raw (truncated) text, by searching for the fields' names. The client's `mcp_server.source` is not
/// looked for there: a tool's input comes before it, and may spell the same field.
std::optional<CallTarget> find_target_in_raw(std::string_view raw);

/// Finds the first string value of `"key": "..."` in raw JSON text, unescaping simple escapes.
std::optional<std::string> find_raw_string_field(std::string_view raw, std::string_view key);

/// A top-level string field of the payload (`hook_event_name`, `tool_name`): from the parsed object, or, when the
/// payload was cut, from its raw text (find_raw_string_field). Every agent's dialect reads its fields so.
std::optional<std::string> string_field(const HookInput& input, std::string_view key);

/// Splits an MCP tool name `mcp__<server>__<tool...>` at its first `__`; nothing for other names.
std::optional<CallTarget> split_mcp_tool_name(std::string_view tool_name);

/// Every way `name` splits at one `sep` into a server and a tool (neither empty), longest server first: for agents
/// whose tool names are `<server><sep><tool>` with no prefix (Copilot CLI's `-`, opencode's `_`), where a
/// server's name may hold `sep` and only the configured names can tell which split is meant.
std::vector<CallTarget> splits_at(std::string_view name, char sep);

/// Every way an MCP tool name splits into server and tool, longest server first: a server's own name may hold
/// `__` (`my__srv`, or `x..y` and `trail_` as tool names spell them), so `mcp__my__srv__echo` is `my__srv` +
/// `echo` or `my` + `srv__echo`; which one is meant only the names that exist can tell. Nothing for other names.
std::vector<CallTarget> mcp_tool_name_splits(std::string_view tool_name);

/// One hook call in the hook's own terms, whatever agent sent it: the agent's dialect (agent/agent.hpp) reads its
/// payload into this, and the engine decides from this alone.
struct HookCall {
  /// The event as the agent names it (`PreToolUse`, `BeforeTool`), and what it means here.
  std::string event_name;
  Event event = Event::other;
  /// Where the event's name came from, for the trace: `--event`, the payload's field, a variable, the default.
  std::string event_source;
  /// The tool's name as the agent gives it; empty when the payload names none.
  std::string tool_name;
  /// True when the payload names a tool at all (a truncated payload may stop before it).
  bool names_tool = false;
  /// The server and tool the call is for; nothing when it is not an MCP tool.
  std::optional<CallTarget> target;
  /// When the agent names the server by where it is rather than by name (Cursor: its URL, or its command line):
  /// that, for the engine to find among the definitions; the target's server is then empty.
  std::optional<std::string> endpoint;
  /// When the tool name splits more than one way (a server's name may hold the separator): every split, longest
  /// server first. Only the names that exist can tell which is meant; empty when there is one reading.
  std::vector<CallTarget> readings;
  /// When the agent renames some servers' tools so that a tool name does not spell its server (Qwen Code's hash
  /// suffix): how to tell, for each configured name, whether this tool name is one of its tools.
  Respell respell = nullptr;
  /// The folder the agent runs in, as its payload says (empty: not said).
  std::string folder;
  /// For a failed call: every text the agent gives about the failure, one per line.
  std::string failure_text;
  /// The user stopped the call (Esc): no failure of the server.
  bool interrupted = false;
  /// How long the failed call ran, when the agent says.
  std::int64_t duration_ms = 0;
  /// The tool's arguments, when given as an object: inside the input's parsed payload, so valid while that input is.
  const boost::json::object* tool_input = nullptr;
  /// The agent's own record of the session, when it keeps one a missed failure can be read from (Codex CLI's
  /// rollout file, `transcript_path`); empty otherwise.
  std::string transcript;
};

/// A failed call the agent fired no hook for, as its own record of the session tells it (Dialect::missed_failure).
struct MissedFailure {
  /// The failure's text, as the failure event would have carried it.
  std::string text;
  /// When the call ended, and how long it ran.
  std::int64_t ended_at_ms = 0;
  std::int64_t duration_ms = 0;
};

} // namespace mcphealth::hook
