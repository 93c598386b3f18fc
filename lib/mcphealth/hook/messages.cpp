#include <mcphealth/hook/messages.hpp>

#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::hook::messages {

namespace {

/// A reason fit for one sentence: its last meaningful line, at most 160 bytes.
std::string short_reason(const std::string& reason) {
  std::string line = util::redact(util::last_meaningful_line(reason));
  if (line.size() > 160) line = util::cap_utf8(line, 157) + "...";
  return line;
}

std::string quoted(const std::string& server) { return "\"" + server + "\""; }

/// What the failure code says, in words: "rejected the call as unauthenticated (HTTP 401)", ...
std::string what_happened(const state::FailureCode& code, const std::string& reason) {
  const std::string why = short_reason(reason);
  if (code.kind == state::FailureCode::Kind::http_status) {
    const std::string http = "HTTP " + std::to_string(code.status);
    const std::string_view happened = state::row_of(code).happened;
    if (!happened.empty()) return std::string(happened) + " (" + http + ")";
    return "answered " + http + (why.empty() || why == http ? "" : ": " + why);
  }
  if (const std::string_view happened = state::row_of(code).happened; !happened.empty()) {
    return std::string(happened) + (why.empty() ? "" : ": " + why);
  }
  return why.empty() ? "stopped answering" : "is not answering: " + why;
}

/// What to do instead, by code: authenticate, wait out a rate limit, or use other tools.
std::string advice(const state::FailureCode& code, const std::string& server, const Client& client,
                   bool credentials_refused) {
  switch (state::row_of(code).advice) {
  case state::Advice::authenticate:
    if (credentials_refused) {
      return "Ask the user to renew the credentials the MCP config sends to " + quoted(server) +
             "; use other tools meanwhile.";
    }
    return "Ask the user to " + client.authenticate + " to authenticate " + quoted(server) + "; use other tools meanwhile.";
  case state::Advice::wait: return "Do other work meanwhile and retry after that.";
  case state::Advice::other_tools: break;
  }
  return "Use other tools for this step, and do not call " + quoted(server) + " again before then.";
}

std::string for_the_next(const std::optional<std::int64_t>& ms) {
  return ms ? "for the next " + in_words(*ms) : std::string("for a few minutes");
}

} // namespace

std::string in_words(std::int64_t ms, Round round) {
  if (ms < 1000) ms = 1000;
  const auto divide = [round](std::int64_t n, std::int64_t by) { return round == Round::up ? (n + by - 1) / by : n / by; };
  auto plural = [](std::int64_t n, const char* unit) { return std::to_string(n) + " " + unit + (n == 1 ? "" : "s"); };
  const std::int64_t seconds = divide(ms, 1000);
  if (seconds < 90) return plural(seconds, "second");
  const std::int64_t minutes = divide(seconds, 60);
  if (minutes < 90) return plural(minutes, "minute");
  return plural(divide(minutes, 60), "hour");
}

std::string blocked_after_probe(const Down& d) {
  return "The MCP server " + quoted(d.server) + " " + what_happened(d.code, d.reason) + ", so " + d.tool +
         " was not called." + (d.restart_tried ? " Restarting it (its reconnect command) did not help." : "") +
         " Its tools are blocked " + for_the_next(d.blocked_for_ms) + ", until it is checked again. " +
         advice(d.code, d.server, d.client, d.credentials_refused);
}

std::string blocked_from_cache(const Down& d) {
  if (d.failed_calls > 1) {
    return "The MCP server " + quoted(d.server) + (d.upstream ? " answers, but what it depends on fails: its last "
                                                              : " fails on calls: it starts and answers, but its last ") +
           std::to_string(d.failed_calls) + " calls failed" + (d.upstream ? " with an upstream error" : "") +
           (d.failed_tool.empty() ? "" : " (the last on " + d.failed_tool + ")") + ", so " + d.tool +
           " was not called. Its tools are blocked " + for_the_next(d.blocked_for_ms) + ", when one call tries it again" +
           (d.upstream ? "" : "; a fix deployed to it, or `mcphealth reset " + d.server + "` run by the user, is tried at once") +
           ". " + advice(d.code, d.server, d.client, d.credentials_refused);
  }
  std::string since;
  // Rounded down, and never up to a second it has not been: "for 1 second" after 0.2 s reads as a lie.
  if (d.down_for_ms) since = *d.down_for_ms < 1000 ? " for less than a second" : " for " + in_words(*d.down_for_ms, Round::down);
  std::string text = "The MCP server " + quoted(d.server) + " has been down" + since;
  const std::string why = short_reason(d.reason);
  if (!why.empty()) text += " (last error: " + why + (d.failures > 1 ? "; " + std::to_string(d.failures) + " failures in a row" : "") + ")";
  text += ", so " + d.tool + " was not called. Its tools are blocked " + for_the_next(d.blocked_for_ms) +
          ", until it is checked again. " + advice(d.code, d.server, d.client, d.credentials_refused);
  return text;
}

std::string blocked_misconfigured(const std::string& server, const std::string& tool, const std::string& missing,
                                  const Client& client) {
  return "The MCP server " + quoted(server) + " cannot start: its configuration uses ${" + missing +
         "}, which is not set where " + client.name + " runs, so " + tool + " was not called. Its tools will fail for the "
         "rest of this session; use other tools, and tell the user to set " + missing + " and restart " + client.name + ".";
}

std::string blocked_input_too_large(const std::string& server, const std::string& tool, const std::string& limit) {
  return "The call to " + tool + " on the MCP server " + quoted(server) + " was not made: its input is over " + limit +
         " bytes, too large to check. Send a smaller input, or split the work into several calls.";
}

std::string blocked_input_too_large_unnamed(const std::string& limit) {
  return "This call was not made: its input is over " + limit + " bytes before the tool's name, too large to check. "
         "Send a smaller input, or split the work into several calls.";
}

std::string failed_and_marked_down(const Down& d) {
  if (d.failed_calls > 1) {
    return "The MCP server " + quoted(d.server) + (d.upstream ? " answers, but what it depends on fails: " : " fails on calls: it starts and answers, but ") +
           std::to_string(d.failed_calls) + " calls in a row failed" + (d.upstream ? " with an upstream error" : "") +
           " (this one on " + d.tool + "), so retrying will fail too. Its tools are blocked " +
           for_the_next(d.blocked_for_ms) + ", when one call tries it again" +
           (d.upstream ? "" : "; a fix deployed to it, or `mcphealth reset " + d.server + "` run by the user, is tried at once") +
           ". " + advice(d.code, d.server, d.client, d.credentials_refused);
  }
  return "The MCP server " + quoted(d.server) + " " + what_happened(d.code, d.reason) + ". Its tools are blocked " +
         for_the_next(d.blocked_for_ms) + ", until it is checked again. " +
         advice(d.code, d.server, d.client, d.credentials_refused);
}

std::string failed_not_recorded(const Down& d) {
  return "The MCP server " + quoted(d.server) + " " + what_happened(d.code, d.reason) + ". " +
         advice(d.code, d.server, d.client, d.credentials_refused) + " Give it a few minutes before trying it again.";
}

std::string failed_then_restored(const std::string& server, const state::FailureCode& code) {
  return "The MCP server " + quoted(server) + " failed (" + (code.kind == state::FailureCode::Kind::http_status
                                                                 ? "HTTP " + std::to_string(code.status)
                                                   : code.kind == state::FailureCode::Kind::timeout
                                                                 ? std::string("timed out")
                                                                 : std::string("connection lost")) +
         "), but its reconnect command restarted it and it answers again: the call can be retried now.";
}

std::string session_start(const std::vector<SessionNote>& notes, const Client& client) {
  std::string list, rechecking;
  for (const SessionNote& n : notes) {
    if (n.kind == SessionNote::Kind::rechecking) {
      rechecking += (rechecking.empty() ? "" : "; ") + quoted(n.server) + " was down" +
                    (n.detail.empty() ? "" : " (" + short_reason(n.detail) + ")");
      continue;
    }
    if (!list.empty()) list += "; ";
    switch (n.kind) {
    case SessionNote::Kind::misconfigured:
      list += quoted(n.server) + " cannot start (${" + n.detail + "} is not set; the user must set it and restart)";
      break;
    case SessionNote::Kind::needs_auth:
      list += quoted(n.server) + " needs authentication (ask the user to " + client.authenticate_short + ")";
      break;
    case SessionNote::Kind::down:
      list += quoted(n.server) + " is down" + (n.detail.empty() ? "" : " (" + short_reason(n.detail) + ")") +
              (n.blocked_for_ms ? ", next checked in " + in_words(*n.blocked_for_ms) : "");
      break;
    case SessionNote::Kind::rechecking: break;
    }
  }
  const bool dropped = client.down_at_start == Client::AtStart::drops_for_the_session;
  std::string out;
  if (!list.empty()) {
    out = "MCP servers not available at the start of this session: " + list +
          (dropped ? ". " + client.name + " does not start their tools for this session; plan the work with other tools."
                   : ". Their tools will fail or be blocked; plan the work with other tools.");
  }
  if (!rechecking.empty()) {
    out += (out.empty() ? "" : " ") + std::string("MCP servers being re-checked now: ") + rechecking +
           (dropped ? ". If " + client.name + " could not start them as this session began, their tools are "
                      "unavailable for this session even once they are back (the user can " + client.authenticate_short +
                      " to reconnect them); use other tools."
                    : ". Their tools may work again in a moment; if a call fails, use other tools.");
  }
  return out;
}

} // namespace mcphealth::hook::messages
