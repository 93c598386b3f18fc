#pragma once
// `mcphealth report`: what happened while nobody watched, from the history the state's writer and the hook keep
// (state/history.hpp): per server, each outage (when it went down, when it came back, for how long, why), how many
// calls were blocked in it, and what the model was told.
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/history.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/result.hpp>

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// One outage of one server, as the history tells it.
struct Outage {
  /// When it was marked down; nothing when that was before the history's window (or before it was kept).
  std::optional<util::EpochMs> down_at = std::nullopt;
  /// When it came back (or was forgotten by `reset`); nothing while it is still down.
  std::optional<util::EpochMs> up_at = std::nullopt;
  /// True when `reset` ended it, not a healthy verdict.
  bool forgotten = false;
  /// Who marked it down (`hook`, `probe`, `watch`) and who saw it back.
  std::string down_by = {};
  std::string up_by = {};
  /// The error recorded, and its code (`401`, `transport`).
  std::string why = {};
  std::string code = {};
  /// Calls the hook blocked during it, and what the model was told the last time.
  std::int64_t blocked = 0;
  /// Calls that reached the server during it and failed: the model read each.
  std::int64_t failed = 0;
  std::string told = {};
  /// The agents whose calls were blocked.
  std::vector<std::string> agents = {};
  /// How long it lasted, until `now` when it is still down; nothing when its start is not known.
  std::optional<std::int64_t> length_ms(util::EpochMs now) const;
};

/// What `report` says of a server that is still down, from the state now.
struct Diagnosis {
  std::string why;
  std::string fix;
};

/// One server's part of the report: one definition of it (a `db` of proj-a and one of proj-b are two), or a name
/// whose history tells no definition apart.
struct ServerReport {
  std::string server;
  /// The definition, and what tells it from another of the same name (history.hpp, HistoryEvent).
  std::optional<std::string> definition = std::nullopt;
  std::optional<std::string> scope = std::nullopt;
  std::optional<std::string> project = std::nullopt;
  /// How every line names it: `server`, or `db (proj-b)` when another server of the report has its name.
  std::string name = {};
  std::vector<Outage> outages;
  std::int64_t blocked = 0;
  /// Failed calls that reached the model, in the window (in an outage or not: a crash loop's first failure is
  /// restored at once, and its outage may be over before the failure is written).
  std::int64_t failed = 0;
  /// Outages in the window that began within the flapping window of the one before it ending: 2 or more in a row
  /// is a flapping server (state::k_flapping_outages).
  std::int64_t flaps = 0;
  /// While its outage is still open: what the state says of it now (current_diagnosis), when it says anything.
  std::optional<Diagnosis> diagnosis = std::nullopt;
  /// The last reconnect command run for it, from the state, when it ran in the window (last_reconnect_in).
  std::optional<state::ReconnectNote> last_reconnect = std::nullopt;
  /// Why its open outage no longer counts: its definition was retired (status's rule: no agent starts it now, and
  /// another definition of its name and scope answers in its place). Empty otherwise.
  std::string retired = {};

  /// True when its last outage is still open (and its definition was not retired).
  bool still_down() const { return !outages.empty() && !outages.back().up_at && retired.empty(); }
};

/// The whole report.
struct Report {
  util::EpochMs since = 0;
  util::EpochMs now = 0;
  /// Servers with something to tell, by name.
  std::vector<ServerReport> servers = {};
  /// History lines that did not read.
  std::size_t unreadable = 0;
  /// Outages that overlap the window, calls blocked in it, and the servers whose outage is still open.
  std::int64_t outages = 0;
  std::int64_t blocked = 0;
  std::int64_t failed = 0;
  std::int64_t still_down = 0;
};

/// Pairs the history's events into outages, per definition (only `only`'s servers, when given), and keeps those
/// that overlap the window from `since` to `now`: one that began before it and is still open is in it. A line that
/// names no definition (the JS hook's, or one written before they were told apart) goes with the one definition
/// its name has in the history, or stands alone when it has none or several.
Report build_report(const state::History& history, util::EpochMs since, util::EpochMs now,
                    const std::vector<std::string>& only = {}, std::int64_t flap_window_ms = 0);

/// Names every server of the report (ServerReport::name): its name alone, unless another of the report has it
/// too, or it is one of `shared` (names the state knows more than one definition of); then with its folder, scope
/// or, failing both, the first characters of its definition, until the names differ. build_report names them
/// from the history alone.
void name_servers(Report& report, const std::vector<std::string>& shared = {});

/// The names the state `doc` (read whole) holds more than one definition's verdict of.
std::vector<std::string> names_defined_twice(const boost::json::object& doc);

/// What the state `doc` (read whole) says now of a server whose outage is still open: its latest diagnosis (the
/// definition's verdict, else its `servers` entry), not the first error the history kept (a 401 first read as "run
/// /mcp" and later found to be an unset variable says the latter), and the fix. Nothing when the state holds no
/// entry, or it is no longer down there.
std::optional<Diagnosis> current_diagnosis(const boost::json::object& doc, const ServerReport& server);

/// The last reconnect command the state `doc` keeps for `server`, when it ran at or after `since`.
std::optional<state::ReconnectNote> last_reconnect_in(const boost::json::object& doc, const ServerReport& server,
                                                      util::EpochMs since);

/// The report as `report --json` prints it.
boost::json::object report_json(const Report& report);

/// Reads `--since`: a length back from `now` (`90s`, `30m`, `12h`, `7d`, `1h30m`), a UTC time as the JSON prints it
/// (`2026-12-03T02:00:00Z`), or a local clock time (`22:00`, `06:30:15`), its last occurrence at or before `now` in
/// the local time zone (the report prints local times). Fails, saying why, for anything else, and for a clock time
/// that the day's daylight-saving change skips or repeats.
util::Result<util::EpochMs> parse_since(std::string_view text, util::EpochMs now);

} // namespace mcphealth::ops
