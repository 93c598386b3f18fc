#pragma once
// What to do about a server that is not fine: one short hint, made from what the probe recorded (its kind, its
// reason, its HTTP status), for `status` and `probe` to print under their tables.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/state/health.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::ops {

/// What was seen, as a probe result or a cache entry records it.
struct Seen {
  state::Health health = state::Health::unknown;
  /// The probe's kind, when recorded (and a kind this build knows).
  std::optional<probe::Kind> kind;
  /// The reason as recorded (a whole traceback is fine).
  std::string_view reason;
  std::optional<int> http_status;
  /// The agent whose words the hint uses (how to authenticate there, whose PATH); nothing = Claude Code.
  const agent::Agent* agent = nullptr;
};

/// A hint for a person ("install `uvx` or give its absolute path", "authenticate with /mcp in Claude Code",
/// "start the service on port 8931"); empty when nothing useful can be said (or nothing is wrong).
std::string hint_for(const Seen& seen);

/// The hint for a cached entry (`raw`, read as `entry`): its probe details and failure code as Seen, in `agent`'s
/// words (nothing = Claude Code's). What `status` prints under its table and `report` after "still down".
std::string hint_for_entry(const boost::json::object& raw, const state::ServerEntry& entry, state::Health health,
                           const agent::Agent* agent = nullptr);

/// `why` with what the server's outages look like over time before it: a crash loop's cause (`fails on calls: 3 in
/// a row (last on query): <why>`) when the entry holds two failed calls in a row or more (the cause is its calls,
/// not the handshake a probe saw pass); `flapping: down again within a TTL of coming back, 3 times in a row: <why>`
/// for a server that is down and flapping (state::flapping); `why` as it is otherwise.
std::string with_pattern(const state::ServerEntry& entry, const std::string& why);

} // namespace mcphealth::ops
