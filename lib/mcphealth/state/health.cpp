#include <mcphealth/state/health.hpp>

#include <mcphealth/state/fields.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/json.hpp>

namespace mcphealth::state {

std::string_view health_name(Health h) {
  switch (h) {
  case Health::healthy: return "healthy";
  case Health::reachable: return "reachable";
  case Health::needs_auth: return "needs-auth";
  case Health::alive_silent: return "alive-silent";
  case Health::unhealthy: return "unhealthy";
  case Health::misconfigured: return "misconfigured";
  case Health::unknown: return "unknown";
  case Health::not_probed: return "not-probed";
  case Health::skipped: return "skipped";
  }
  return "unknown";
}

std::string_view health_symbol(Health h) {
  switch (h) {
  case Health::healthy:
  case Health::reachable: return "✔";
  case Health::needs_auth: return "!";
  case Health::alive_silent: return "~";
  case Health::unhealthy:
  case Health::misconfigured: return "✘";
  case Health::skipped: return "-";
  case Health::unknown:
  case Health::not_probed: break;
  }
  return "?";
}

std::string_view health_words(Health h) {
  switch (h) {
  case Health::needs_auth: return "needs auth";
  case Health::alive_silent: return "alive, silent";
  case Health::unknown: return "never checked";
  case Health::not_probed: return "not probed";
  case Health::skipped: return "skipped (policy)";
  default: return health_name(h);
  }
}

Health health_of(const ServerEntry& entry, const boost::json::object& raw) {
  const boost::json::object* probe = util::get_object(raw, field::probe);
  const auto kind = probe ? util::get_string(*probe, field::probe_kind) : std::nullopt;
  auto is = [&](std::string_view k) { return kind && *kind == k; };
  if (entry.healthy()) {
    const std::int64_t status = probe ? util::get_int(*probe, field::http_status).value_or(0) : 0;
    if (is("needs-auth") || (status != 0 && row_of_status(static_cast<int>(status)).means_auth())) {
      return Health::needs_auth;
    }
    if (is("alive-silent")) return Health::alive_silent;
    if (is("reachable")) return Health::reachable;
    return Health::healthy;
  }
  if (entry.unhealthy()) return is("misconfigured") ? Health::misconfigured : Health::unhealthy;
  return Health::unknown;
}

} // namespace mcphealth::state
