#pragma once
// The one vocabulary for how a server is: what `probe` and `status` print, what `--json`, `watch` and Prometheus
// say. A probe's result and a cache entry both map onto it; each value has one name and one symbol.
#include <mcphealth/state/entry.hpp>

#include <boost/json.hpp>

#include <string_view>

namespace mcphealth::state {

enum class Health {
  healthy,       ///< spoke MCP
  reachable,     ///< an HTTP endpoint answered with a status that means "up"
  needs_auth,    ///< up, but asks for a token: the user authenticates with /mcp
  alive_silent,  ///< a stdio process still running at the timeout without an MCP answer: up, but slow to use
  unhealthy,     ///< down
  misconfigured, ///< Claude Code refuses the definition (an unset ${VAR}): down, never started
  unknown,       ///< configured but never checked, or a status another writer made up
  not_probed,    ///< this machine cannot probe it (no libcurl): no verdict either way
  skipped,       ///< the policy says not to probe it (`probe: skip`): no verdict, only failures mark it
};

inline constexpr Health k_all_health[] = {Health::healthy,   Health::reachable,     Health::needs_auth,
                                          Health::alive_silent, Health::unhealthy, Health::misconfigured,
                                          Health::unknown,   Health::not_probed,    Health::skipped};

/// The kebab-case name, the same in every output: `healthy`, `needs-auth`, `alive-silent`, ...
std::string_view health_name(Health h);
/// The symbol tables, the status line, the man page and docs/operations.md share: ✔ up, ! up with a caveat, ~ alive but
/// silent, ✘ down, ? no verdict.
std::string_view health_symbol(Health h);
/// The words after the symbol in a table: `healthy`, `needs auth`, `alive, silent`, `never checked`, ...
std::string_view health_words(Health h);

/// Up: it answers, or is alive (healthy, reachable, needs-auth, alive-silent).
inline bool is_up(Health h) {
  return h == Health::healthy || h == Health::reachable || h == Health::needs_auth || h == Health::alive_silent;
}

/// Down: what makes `probe` and `status` exit 1 and the hook block.
inline bool is_down(Health h) { return h == Health::unhealthy || h == Health::misconfigured; }

/// How a cache entry reads, from its status and the probe details recorded with it.
Health health_of(const ServerEntry& entry, const boost::json::object& raw);

} // namespace mcphealth::state
