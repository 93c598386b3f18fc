#include <mcphealth/ops/report.hpp>

#include <mcphealth/ops/hints.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cctype>
#include <map>

namespace mcphealth::ops {

namespace json = boost::json;

std::optional<std::int64_t> Outage::length_ms(util::EpochMs now) const {
  if (!down_at) return std::nullopt;
  return std::max<std::int64_t>(0, up_at.value_or(now) - *down_at);
}

Report build_report(const state::History& history, util::EpochMs since, util::EpochMs now,
                    const std::vector<std::string>& only, std::int64_t flap_window_ms) {
  Report report{.since = since, .now = now, .unreadable = history.unreadable};
  std::map<std::string, ServerReport> by_server;
  // Every event is paired, those before the window too: an outage that began before it and is still open (or ended
  // inside it) overlaps the window and is shown with its real start. Blocked calls count inside the window only.
  for (const state::HistoryEvent& e : history.events) {
    if (!only.empty() && std::find(only.begin(), only.end(), e.server) == only.end()) continue;
    ServerReport& s = by_server[e.server];
    s.server = e.server;
    const bool open = !s.outages.empty() && !s.outages.back().up_at;
    switch (e.kind) {
    case state::HistoryKind::down:
      if (open) break; // another failure of the outage already open
      s.outages.push_back({.down_at = e.at, .down_by = e.by, .why = e.text, .code = e.code});
      break;
    case state::HistoryKind::up:
    case state::HistoryKind::forgotten:
      // Back without a down in the window: the outage began before it.
      if (!open) s.outages.push_back({});
      s.outages.back().up_at = e.at;
      s.outages.back().up_by = e.by;
      s.outages.back().forgotten = e.kind == state::HistoryKind::forgotten;
      break;
    case state::HistoryKind::failed_call:
      if (e.at < since) break;
      ++s.failed;
      if (open) ++s.outages.back().failed;
      break;
    case state::HistoryKind::blocked: {
      if (e.at < since) break;
      if (!open) s.outages.push_back({}); // blocked by a verdict written before the history
      Outage& o = s.outages.back();
      ++o.blocked;
      ++s.blocked;
      o.told = e.text;
      if (!e.by.empty() && std::find(o.agents.begin(), o.agents.end(), e.by) == o.agents.end()) o.agents.push_back(e.by);
      break;
    }
    }
  }
  for (auto& [name, s] : by_server) {
    // Only what overlaps the window: an outage that ended before it is another night's.
    std::erase_if(s.outages, [&](const Outage& o) { return o.up_at && *o.up_at < since; });
    // Down again within a TTL of coming back, in a row: the same count the state keeps (flaps).
    std::int64_t in_a_row = 0;
    for (std::size_t i = 1; i < s.outages.size(); ++i) {
      const Outage& before = s.outages[i - 1];
      const Outage& o = s.outages[i];
      const bool soon = before.up_at && o.down_at && !before.forgotten && *o.down_at - *before.up_at < flap_window_ms;
      in_a_row = soon ? in_a_row + 1 : 0;
      s.flaps = std::max(s.flaps, in_a_row);
    }
    report.failed += s.failed;
    if (s.outages.empty() && s.failed == 0) continue;
    for (const Outage& o : s.outages) {
      ++report.outages;
      if (!o.up_at) report.still_down.push_back(s.server);
    }
    report.blocked += s.blocked;
    report.servers.push_back(std::move(s));
  }
  return report;
}

std::optional<Diagnosis> current_diagnosis(const json::object& doc, const std::string& server) {
  const json::object* servers = util::get_object(doc, "servers");
  const json::object* raw = servers ? util::get_object(*servers, server) : nullptr;
  if (raw == nullptr) return std::nullopt;
  const state::ServerEntry e = state::ServerEntry::from_json(*raw);
  if (!e.unhealthy()) return std::nullopt;
  Diagnosis d;
  d.why = with_pattern(e, util::last_meaningful_line(e.last_error.value_or("")));
  d.fix = hint_for_entry(*raw, e, state::health_of(e, *raw));
  return d;
}

json::object report_json(const Report& report) {
  json::array servers;
  for (const ServerReport& s : report.servers) {
    json::array outages;
    for (const Outage& o : s.outages) {
      json::object j;
      j["downAt"] = o.down_at ? json::value(util::format_iso8601_ms(*o.down_at)) : json::value(nullptr);
      j["upAt"] = o.up_at ? json::value(util::format_iso8601_ms(*o.up_at)) : json::value(nullptr);
      j["stillDown"] = !o.up_at;
      j["forgotten"] = o.forgotten;
      const auto length = o.length_ms(report.now);
      j["lengthMs"] = length ? json::value(*length) : json::value(nullptr);
      j["downBy"] = o.down_by;
      j["upBy"] = o.up_by;
      j["why"] = o.why;
      j["code"] = o.code.empty() ? json::value(nullptr) : json::value(o.code);
      j["blockedCalls"] = o.blocked;
      j["failedCalls"] = o.failed;
      j["modelWasTold"] = o.told.empty() ? json::value(nullptr) : json::value(o.told);
      json::array agents;
      for (const auto& a : o.agents) agents.push_back(json::value(a));
      j["agents"] = std::move(agents);
      outages.push_back(std::move(j));
    }
    servers.push_back(json::object{
        {"server", s.server}, {"blockedCalls", s.blocked}, {"failedCalls", s.failed}, {"flaps", s.flaps},
        {"flapping", s.flaps >= state::k_flapping_outages}, {"outages", std::move(outages)}});
  }
  return {{"since", util::format_iso8601_ms(report.since)},
          {"now", util::format_iso8601_ms(report.now)},
          {"servers", std::move(servers)},
          {"outages", report.outages},
          {"blockedCalls", report.blocked},
          {"failedCalls", report.failed},
          {"stillDown", [&] {
             json::array a;
             for (const std::string& name : report.still_down) {
               json::object o{{"server", name}};
               for (const auto& [who, d] : report.diagnoses) {
                 if (who != name) continue;
                 o["why"] = d.why;
                 o["fix"] = d.fix.empty() ? json::value(nullptr) : json::value(d.fix);
               }
               a.push_back(std::move(o));
             }
             return a;
           }()},
          {"unreadableLines", report.unreadable}};
}

std::optional<util::EpochMs> parse_since(std::string_view text, util::EpochMs now) {
  if (auto at = util::parse_iso8601_ms(text)) return at;
  if (text.empty()) return std::nullopt;
  std::int64_t total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::int64_t n = 0;
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (n > 1'000'000'000) return std::nullopt;
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    if (i == start || i == text.size()) return std::nullopt;
    std::int64_t unit = 0;
    switch (text[i]) {
    case 's': unit = 1000; break;
    case 'm': unit = 60'000; break;
    case 'h': unit = 3'600'000; break;
    case 'd': unit = 86'400'000; break;
    default: return std::nullopt;
    }
    ++i;
    total += n * unit;
    if (total > 3650LL * 86'400'000) return std::nullopt;
  }
  return now - total;
}

} // namespace mcphealth::ops
