#pragma once
// Reading a failed tool call's text for the signs of a server in trouble (auth, rate limit, overload, transport).
#include <mcphealth/state/entry.hpp>

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::hook {

/// Joins the failure's string fields with newlines: `error`, `message`, `tool_response`, `tool_output`,
/// `tool_output.output`, `tool_output.stderr`, `tool_input.error`.
std::string failure_text(const boost::json::object& payload);

/// Classifies failure text: 401, 403, 429, 503 or transport, checked in that order, case-insensitive and
/// word-bounded. Only text that reports an HTTP status (a status number where a status is reported, or its words:
/// `Unauthorized`, `Service Unavailable`, ...) or a transport failure (`ECONNREFUSED`, `socket hang up`, ...)
/// counts; a number elsewhere (`line 503`, `report-503.txt`) does not. Nothing when no sign matches.
std::optional<state::FailureCode> classify_failure(std::string_view text);

} // namespace mcphealth::hook
