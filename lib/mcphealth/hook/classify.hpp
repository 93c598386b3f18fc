#pragma once
// Reading a failed tool call's text for the signs of a server in trouble (auth, rate limit, overload, transport).
#include <mcphealth/state/entry.hpp>

#include <boost/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mcphealth::hook {

/// Joins the failure's string fields with newlines: `error`, `message`, `tool_response`, `tool_output`,
/// `tool_output.output`, `tool_output.stderr`: the client's own fields, never the model's arguments.
std::string failure_text(const boost::json::object& payload);

/// Classifies failure text: 401, 403, 429, 503 or transport, checked in that order, case-insensitive and
/// word-bounded. Only text that reports an HTTP status (a status number where a status is reported, or its words:
/// `Unauthorized`, `Service Unavailable`, ...) or a transport failure (`ECONNREFUSED`, `socket hang up`, ...)
/// counts; a number elsewhere (`line 503`, `report-503.txt`) does not. Nothing when no sign matches.
std::optional<state::FailureCode> classify_failure(std::string_view text);

/// The retry time a failure's text gives in its own words (`Retry-After: 30`, `retry after 2 minutes`, `try again in
/// 500ms`), in milliseconds: a number after those words, in seconds unless a unit follows (ms, s, sec, second(s),
/// m, min, minute(s)). Nothing when the text gives none. A caller holds it to its own bound: third-party text must
/// not choose how long a server stays blocked.
std::optional<std::int64_t> retry_time_in(std::string_view text);

/// What a failed call's text says about its server, read before anything is recorded.
struct FailureReading {
  enum class Says {
    nothing,      // no sign of trouble with the server: a tool's own error, or the call's input at fault
    status,       // an HTTP status (or its words): `code` holds it
    transport,    // the connection to the server failed or closed: `code` is transport
    http_unknown, // an HTTP request to the server failed and the client did not say with which status
    timeout,      // the client gave up waiting for the call: `code` is timeout
  };
  Says says = Says::nothing;
  std::optional<state::FailureCode> code;
  /// The client's wording that matched (a row of its dialect's wordings), for the trace; empty for the generic signs.
  std::string_view wording;
  /// Set when the sign names a host or resource that the call's own input named (a fetch of a dead URL): the
  /// input's fault, not the server's; `says` is then `nothing`.
  std::optional<std::string> input_named;
  /// The matching wording is the client's for a remote server only (ClientWording::remote_only).
  bool remote_only = false;
};

/// The name of `says` for traces: `nothing`, `an HTTP status`, `a transport failure`, `an HTTP failure without status`.
std::string_view failure_says_name(FailureReading::Says says);

/// One way an MCP client words a failure of its server, learned from the real client. Each agent's dialect keeps
/// its own (agent::Dialect::failure_wordings; docs/hook.md's outage table is Claude Code's). Only this framing is
/// proof of an outage: a tool's own error text may hold any words (an issue body, a fetched page), so generic signs
/// are confirmed by asking the server.
struct ClientWording {
  std::string_view client;  // `Claude Code 2.1.197`
  /// The whole failure text as the client frames it, `*` standing for any run of characters (the server's name, a
  /// body that follows): `MCP server "*" is not connected`. Case-sensitive, matched against the trimmed text.
  std::string_view text;
  FailureReading::Says says;
  std::string_view seen_in; // the outage it came from
  /// The client says it of a remote server only (its HTTP transport's words): for a stdio definition the same text
  /// is the tool's own (gate::next reads it again as generic signs).
  bool remote_only = false;
};

/// Reads a failure: the client's own `wordings` first (they are about the server, whatever the input), then the
/// generic signs of classify_failure, which do not count when the host or URL they concern stands in `tool_input`.
/// A reading from generic signs has an empty `wording`: it is a lead, not proof.
FailureReading read_failure(std::string_view text, const boost::json::object* tool_input,
                            std::span<const ClientWording> wordings);

} // namespace mcphealth::hook
