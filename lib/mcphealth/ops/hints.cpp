#include <mcphealth/ops/hints.hpp>

#include <mcphealth/config/settings.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/text.hpp>

#include <cctype>

namespace mcphealth::ops {

namespace {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

using util::word_after;

std::string port_hint(std::string_view reason) {
  std::string_view port = word_after(reason, " port ");
  if (port.empty() || !std::isdigit(static_cast<unsigned char>(port.front()))) return "start the service it connects to";
  return "start the service on port " + std::string(port);
}

} // namespace

std::string hint_for(const Seen& s) {
  using state::Health;
  const agent::Agent& who = s.agent ? *s.agent : agent::default_agent();
  const std::string name(who.name);
  switch (s.health) {
  case Health::needs_auth: return std::string(who.authenticate) + " to authenticate it";
  case Health::alive_silent:
    return "it starts but does not answer MCP within the timeout: check it speaks MCP on stdout, or raise "
           "MCPHEALTH_TIMEOUT_MS if it is only slow";
  case Health::misconfigured: {
    const std::string_view var = word_after(s.reason, "${");
    return var.empty() ? "set the variable it names where " + name + " runs"
                       : "set " + std::string(var) + " where " + name + " runs, or write ${" + std::string(var) +
                             ":-default} in the config";
  }
  case Health::not_probed:
    if (s.kind == probe::Kind::local_fault) {
      return "this machine ran out of descriptors, memory or processes, so nothing was recorded: raise `ulimit -n`, "
             "or probe fewer at once (--parallel)";
    }
    // Not probed from an environment that is not the agent's (cron, a service): what it lacks, and where that goes.
    if (contains(s.reason, "is not on this PATH")) {
      return "start a session of " + name + " first (its hook records the PATH it starts servers with), or give "
             "the command's absolute path in the definition";
    }
    if (contains(s.reason, "is not set in this environment")) {
      return "put the variable in ~/.config/mcphealth/env (NAME=value), which the service and a probe from cron "
             "read; a session's hook judges the server with " + name + "'s own";
    }
    if (contains(s.reason, "libcurl")) return "install libcurl to probe HTTP servers";
    return {};
  case Health::skipped: return {};
  case Health::unhealthy: break;
  default: return {};
  }
  const std::string last = util::last_meaningful_line(s.reason);
  // Entries the JS hook wrote carry no probe kind; its spawn failures read `spawn CMD ENOENT`.
  const bool spawn_failed = s.kind == probe::Kind::spawn_failed || (!s.kind && s.reason.rfind("spawn ", 0) == 0);
  if (spawn_failed) {
    const std::string_view command = word_after(s.reason, "spawn ");
    if (contains(s.reason, "ENOENT")) {
      return "install " + std::string(command) + " or give its absolute path (" + name +
             "'s PATH may be shorter than your shell's)";
    }
    if (contains(s.reason, "EACCES")) return "make " + std::string(command) + " executable";
    return {};
  }
  if (s.kind == probe::Kind::exited) {
    if (contains(last, "ModuleNotFoundError") || contains(last, "No module named")) {
      return "install the missing Python module where the server's interpreter can import it";
    }
    if (contains(last, "Cannot find module") || contains(last, "ERR_MODULE_NOT_FOUND")) {
      return "install the server's packages (npm install) or fix the script's path";
    }
    if (contains(last, "EADDRINUSE") || contains(last, "address already in use")) {
      return "another copy holds its port: a probe starts a second copy, so it may be fine in " + name;
    }
    return "run its command by hand to see why it exits";
  }
  if (s.kind == probe::Kind::timeout) {
    if (contains(s.reason, "ECONNREFUSED") || contains(s.reason, "onnection refused")) {
      return "it waits for a service that refuses connections (its stderr names it): start that service";
    }
    if (contains(s.reason, "start-up timeout")) {
      return "it never answers within Claude Code's own start-up timeout, so Claude Code fails it too: check what it "
             "waits for, or raise MCP_TIMEOUT if it is only slow";
    }
    // Which wait it outlasted, and the setting of each path: the hook's and the others' differ.
    std::string waited = "in time";
    if (const std::size_t at = s.reason.find("within "); at != std::string_view::npos) {
      const std::string_view rest = s.reason.substr(at + 7);
      if (const std::size_t ms = rest.find(" ms"); ms != std::string_view::npos) waited = "within " + std::string(rest.substr(0, ms + 3));
    }
    // The defaults from the settings' own constants, so the words follow them.
    return "it did not answer " + waited + ": check it is not stuck; if it is only slow, give it longer where it was "
           "probed (a call's hook waits MCPHEALTH_TIMEOUT_MS, " + std::to_string(config::k_default_timeout_ms) +
           " ms unless set; probe, watch and refresh wait MCPHEALTH_TIMEOUT_MS too when set, else the agent's "
           "start-up timeout, MCP_TIMEOUT, " + std::to_string(config::k_client_startup_timeout_ms) + " ms unless set)";
  }
  if (s.kind == probe::Kind::protocol_error) return "it answered, but not as an MCP server: check the command or URL";
  if (s.kind == probe::Kind::transport) {
    if (contains(s.reason, "onnect") && (contains(s.reason, "refused") || contains(s.reason, "Couldn't connect"))) {
      return port_hint(s.reason);
    }
    if (contains(s.reason, "resolve")) return "check the host name in the URL";
    if (contains(s.reason, "SSL") || contains(s.reason, "certificate")) return "check the server's TLS certificate";
    return {};
  }
  if (s.http_status) {
    const state::OutageRow& row = state::row_of(state::FailureCode::http(*s.http_status));
    if (row.advice == state::Advice::authenticate) {
      // A probe's refusal of the definition's own credentials (its Authorization header, a key): down, and the
      // agent's login cannot replace them. A refusal the client reported may be its OAuth token: that is the login.
      if (s.kind == probe::Kind::http_status) {
        return "renew the credentials the definition sends (its Authorization header or key): " + name +
               "'s own login cannot replace them";
      }
      return std::string(who.authenticate) + " to authenticate it";
    }
    return std::string(row.hint);
  }
  return {};
}

std::string hint_for_entry(const boost::json::object& raw, const state::ServerEntry& entry, state::Health health,
                           const agent::Agent* agent) {
  const state::ProbeDetails notes = state::probe_details(raw).value_or(state::ProbeDetails{});
  std::optional<int> http;
  if (entry.last_failure_code.kind == state::FailureCode::Kind::http_status) http = entry.last_failure_code.status;
  return hint_for({health, probe::kind_from_name(notes.kind), entry.last_error.value_or(""), http, agent});
}

std::string with_pattern(const state::ServerEntry& entry, const std::string& why) {
  if (entry.failed_calls < 2) {
    if (!entry.unhealthy() || !state::flapping(entry)) return why;
    return "flapping: down again within a TTL of coming back, " + std::to_string(entry.flaps) + " times in a row" +
           (why.empty() ? std::string() : ": " + why);
  }
  return std::string(entry.upstream ? "upstream errors: " : "fails on calls: ") + std::to_string(entry.failed_calls) + " in a row" +
         (entry.last_failed_tool ? " (last on " + *entry.last_failed_tool + ")" : std::string()) +
         (why.empty() ? std::string() : ": " + why);
}

} // namespace mcphealth::ops
