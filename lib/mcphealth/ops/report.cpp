#include <mcphealth/ops/report.hpp>

#include <mcphealth/ops/hints.hpp>
#include <mcphealth/ops/status.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/state/verdicts.hpp>
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

namespace {

/// A report's group: a server's name and, when its lines tell it, the definition.
using GroupKey = std::pair<std::string, std::string>;

} // namespace

Report build_report(const state::History& history, util::EpochMs since, util::EpochMs now,
                    const std::vector<std::string>& only, std::int64_t flap_window_ms) {
  Report report{.since = since, .now = now, .unreadable = history.unreadable};
  // The definitions each name has in the history: a line without one goes with the only one there is.
  std::map<std::string, std::vector<std::string>> definitions;
  for (const state::HistoryEvent& e : history.events) {
    if (!e.definition) continue;
    auto& known = definitions[e.server];
    if (std::find(known.begin(), known.end(), *e.definition) == known.end()) known.push_back(*e.definition);
  }
  std::map<GroupKey, ServerReport> groups;
  // Every event is paired, those before the window too: an outage that began before it and is still open (or ended
  // inside it) overlaps the window and is shown with its real start. Blocked calls count inside the window only.
  for (const state::HistoryEvent& e : history.events) {
    if (!only.empty() && std::find(only.begin(), only.end(), e.server) == only.end()) continue;
    std::optional<std::string> definition = e.definition;
    if (!definition) {
      const auto known = definitions.find(e.server);
      if (known != definitions.end() && known->second.size() == 1) definition = known->second.front();
    }
    ServerReport& s = groups[{e.server, definition.value_or("")}];
    s.server = e.server;
    s.definition = definition;
    if (e.definition && e.scope) s.scope = e.scope;
    if (e.definition && e.project) s.project = e.project;
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
  for (auto& [key, s] : groups) {
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
    report.outages += static_cast<std::int64_t>(s.outages.size());
    if (s.still_down()) ++report.still_down;
    report.blocked += s.blocked;
    report.servers.push_back(std::move(s));
  }
  name_servers(report);
  return report;
}

void name_servers(Report& report, const std::vector<std::string>& shared) {
  std::vector<ServerReport>& servers = report.servers;
  const auto label = [](const ServerReport& s, int detail) -> std::string {
    if (!s.definition) return "name only";
    std::string words;
    if (s.project) words = project_word(*s.project);
    if (s.scope && (words.empty() || detail >= 1)) words += (words.empty() ? "" : ", ") + *s.scope;
    if (words.empty() || detail >= 2) words += (words.empty() ? "" : ", ") + s.definition->substr(0, 8);
    return words;
  };
  for (ServerReport& s : servers) {
    const auto same_name = [&](const ServerReport& o) { return &o != &s && o.server == s.server; };
    const bool named_twice = std::find(shared.begin(), shared.end(), s.server) != shared.end();
    if (!named_twice && std::none_of(servers.begin(), servers.end(), same_name)) {
      s.name = s.server;
      continue;
    }
    for (int detail = 0; detail <= 2; ++detail) {
      s.name = s.server + " (" + label(s, detail) + ")";
      const auto clashes = [&](const ServerReport& o) { return same_name(o) && label(o, detail) == label(s, detail); };
      if (std::none_of(servers.begin(), servers.end(), clashes)) break;
    }
  }
}

std::vector<std::string> names_defined_twice(const json::object& doc) {
  std::map<std::string, int> seen;
  for (const auto& kv : state::verdicts(doc)) {
    if (!kv.value().is_object()) continue;
    if (auto name = state::verdict_tool_server(kv.value().get_object())) ++seen[*name];
  }
  std::vector<std::string> out;
  for (const auto& [name, n] : seen) {
    if (n > 1) out.push_back(name);
  }
  return out;
}

std::optional<Diagnosis> current_diagnosis(const json::object& doc, const ServerReport& server) {
  const json::object* raw = state::decision_entry(doc, server.server, server.definition);
  if (raw == nullptr) return std::nullopt;
  const state::ServerEntry e = state::ServerEntry::from_json(*raw);
  if (!e.unhealthy()) return std::nullopt;
  Diagnosis d;
  d.why = with_pattern(e, util::last_meaningful_line(e.last_error.value_or("")));
  d.fix = hint_for_entry(*raw, e, state::health_of(e, *raw));
  return d;
}

std::optional<state::ReconnectNote> last_reconnect_in(const json::object& doc, const ServerReport& server,
                                                      util::EpochMs since) {
  const json::object* raw = state::decision_entry(doc, server.server, server.definition);
  if (raw == nullptr) return std::nullopt;
  std::optional<state::ReconnectNote> note = state::ServerEntry::from_json(*raw).last_reconnect;
  if (!note || note->at < since) return std::nullopt;
  return note;
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
    const auto or_null = [](const std::optional<std::string>& v) { return v ? json::value(*v) : json::value(nullptr); };
    servers.push_back(json::object{{"server", s.server},
                                   {"name", s.name},
                                   {"definition", or_null(s.definition)},
                                   {"scope", or_null(s.scope)},
                                   {"project", or_null(s.project)},
                                   {"blockedCalls", s.blocked},
                                   {"failedCalls", s.failed},
                                   {"flaps", s.flaps},
                                   {"flapping", s.flaps >= state::k_flapping_outages},
                                   {"retired", s.retired.empty() ? json::value(nullptr) : json::value(s.retired)},
                                   {"lastReconnect", s.last_reconnect ? json::value(s.last_reconnect->to_json())
                                                                      : json::value(nullptr)},
                                   {"outages", std::move(outages)}});
  }
  return {{"since", util::format_iso8601_ms(report.since)},
          {"now", util::format_iso8601_ms(report.now)},
          {"servers", std::move(servers)},
          {"outages", report.outages},
          {"blockedCalls", report.blocked},
          {"failedCalls", report.failed},
          {"stillDown", [&] {
             json::array a;
             for (const ServerReport& s : report.servers) {
               if (!s.still_down()) continue;
               json::object o{{"server", s.server}, {"name", s.name}};
               if (s.diagnosis) {
                 o["why"] = s.diagnosis->why;
                 o["fix"] = s.diagnosis->fix.empty() ? json::value(nullptr) : json::value(s.diagnosis->fix);
               }
               a.push_back(std::move(o));
             }
             return a;
           }()},
          {"unreadableLines", report.unreadable}};
}

namespace {

/// `HH:MM` or `HH:MM:SS` as seconds into the day; nothing for anything else.
std::optional<int> clock_time(std::string_view text) {
  if (text.size() != 5 && text.size() != 8) return std::nullopt;
  const auto two = [&](std::size_t at) -> int {
    if (!std::isdigit(static_cast<unsigned char>(text[at])) || !std::isdigit(static_cast<unsigned char>(text[at + 1])))
      return -1;
    return (text[at] - '0') * 10 + (text[at + 1] - '0');
  };
  const int h = two(0), m = two(3), s = text.size() == 8 ? two(6) : 0;
  if (text[2] != ':' || (text.size() == 8 && text[5] != ':') || h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59)
    return std::nullopt;
  return h * 3600 + m * 60 + s;
}

/// The local time `day` (a local date, its time of day ignored) at `seconds` into it: nothing when that moment does
/// not exist (skipped by a change to daylight-saving time) or exists twice (repeated by the change back).
util::Result<std::time_t> local_moment(std::tm day, int seconds) {
  day.tm_hour = seconds / 3600;
  day.tm_min = seconds / 60 % 60;
  day.tm_sec = seconds % 60;
  std::time_t found[2];
  bool valid[2];
  for (int dst = 0; dst < 2; ++dst) {
    std::tm t = day;
    t.tm_isdst = dst;
    found[dst] = std::mktime(&t);
    std::tm back{};
    valid[dst] = found[dst] != -1 && ::localtime_r(&found[dst], &back) != nullptr && back.tm_hour == day.tm_hour &&
                 back.tm_min == day.tm_min && back.tm_sec == day.tm_sec && back.tm_mday == day.tm_mday &&
                 back.tm_isdst == dst;
  }
  if (valid[0] && valid[1] && found[0] != found[1])
    return util::fail("happens twice that day (the clocks go back an hour): give a UTC time instead");
  if (valid[0]) return found[0];
  if (valid[1]) return found[1];
  return util::fail("does not happen that day (the clocks go forward over it): give a UTC time instead");
}

} // namespace

util::Result<util::EpochMs> parse_since(std::string_view text, util::EpochMs now) {
  const std::string usage = "give a length (90s, 30m, 12h, 7d, 1h30m), a local clock time (22:00, 06:30:15) or a UTC "
                            "time (2026-12-03T02:00:00Z)";
  if (auto at = util::parse_iso8601_ms(text)) return *at;
  if (text.empty()) return util::fail(usage);
  if (const std::optional<int> seconds = clock_time(text)) {
    // Its last occurrence at or before now: today's, else yesterday's.
    const std::time_t now_s = static_cast<std::time_t>(now / 1000);
    std::tm today{};
    if (::localtime_r(&now_s, &today) == nullptr) return util::fail("the local time zone cannot be read");
    for (int back = 0; back < 2; ++back) {
      std::tm day = today;
      day.tm_mday -= back;
      day.tm_isdst = -1;
      std::tm noon = day;
      noon.tm_hour = 12; // normalises the date (the first of a month minus one) without a DST edge
      noon.tm_min = noon.tm_sec = 0;
      if (std::mktime(&noon) == -1) return util::fail("the local time zone cannot be read");
      const util::Result<std::time_t> at = local_moment(noon, *seconds);
      if (!at) return util::fail(std::string(text) + " " + at.error().message);
      if (static_cast<util::EpochMs>(*at) * 1000 <= now) return static_cast<util::EpochMs>(*at) * 1000;
    }
    return util::fail(usage);
  }
  std::int64_t total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::int64_t n = 0;
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (n > 1'000'000'000) return util::fail(usage);
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    if (i == start || i == text.size()) return util::fail(usage);
    std::int64_t unit = 0;
    switch (text[i]) {
    case 's': unit = 1000; break;
    case 'm': unit = 60'000; break;
    case 'h': unit = 3'600'000; break;
    case 'd': unit = 86'400'000; break;
    default: return util::fail(usage);
    }
    ++i;
    total += n * unit;
    if (total > 3650LL * 86'400'000) return util::fail(usage);
  }
  return now - total;
}

} // namespace mcphealth::ops
