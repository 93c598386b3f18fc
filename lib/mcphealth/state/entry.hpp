#pragma once
// One server's entry in the state file: reading it leniently, and the two marks (healthy, unhealthy) that rewrite
// the fields they own and keep every field they do not know.
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::state {

/// `lastFailureCode`: an HTTP status (its meaning is its row in state/outage.hpp), `"transport"`, `"timeout"` (the
/// client gave up waiting for a call: mcphealth's own), or none.
struct FailureCode {
  enum class Kind { none, http_status, transport, timeout };
  Kind kind = Kind::none;
  int status = 0;

  static FailureCode none() { return {}; }
  static FailureCode http(int status) { return {Kind::http_status, status}; }
  static FailureCode transport() { return {Kind::transport, 0}; }
  static FailureCode timeout() { return {Kind::timeout, 0}; }
  /// True unless this is `none`.
  bool present() const { return kind != Kind::none; }
  /// The JSON form: a number, `"transport"`, `"timeout"` or null.
  boost::json::value to_json() const;
  /// The text form used in messages: `401`, `transport`, `timeout`, or empty.
  std::string text() const;
  /// Reads the JSON form; anything else is `none`.
  static FailureCode from_json(const boost::json::value* v);
  bool operator==(const FailureCode&) const = default;
};

/// How an unhealthy server came back, as `restoredBy` records it.
enum class RestoredBy { reconnect_command, post_failure_reconnect, tool_success };

/// The JSON spelling of `by`: `reconnect-command`, `post-failure-reconnect`, `tool-success`.
std::string_view restored_by_name(RestoredBy by);

/// Reads the JSON spelling; anything else is nothing.
std::optional<RestoredBy> restored_by_from_name(std::string_view name);

/// The last reconnect command run for a server (`lastReconnect`): what ran, how it ended, the first line it said.
/// Kept with the verdict, so that `status` and `report` show a reconnect that failed (its stderr is the hook's
/// alone, which the agent hides).
struct ReconnectNote {
  util::EpochMs at = 0;
  /// The command as a person reads it, credentials redacted.
  std::string command = {};
  bool ok = false;
  /// How it exited (`1`, `SIGKILL`), when it ran to an exit.
  std::optional<std::string> exit = std::nullopt;
  /// The first line it printed, or why it did not run (timed out, refused), escapes stripped and redacted.
  std::string line = {};
  /// Who ran it: `hook`, `watch`, `probe`, `refresh`.
  std::string by = {};
  boost::json::object to_json() const;
  static std::optional<ReconnectNote> from_json(const boost::json::value* v);
  /// One line: "reconnect `pm2 restart wiki` failed (exit 1): Process or Namespace wiki not found".
  std::string text() const;
};

/// A typed, lenient view of an entry; missing or mistyped fields read as absent.
struct ServerEntry {
  std::string status; // "healthy", "unhealthy", or whatever another writer left
  std::optional<util::EpochMs> checked_at;
  std::optional<util::EpochMs> expires_at;
  std::optional<util::EpochMs> next_retry_at;
  std::optional<util::EpochMs> last_restored_at;
  /// When the current run of failures began (`downSince`, written by mcphealth); nothing when healthy or unknown.
  std::optional<util::EpochMs> down_since;
  std::int64_t failure_count = 0;
  std::optional<std::string> last_error;
  FailureCode last_failure_code;
  std::optional<std::string> source;
  std::optional<RestoredBy> restored_by;
  /// Failed calls in a row, counted across recoveries (a probe that passes does not clear them, a call that
  /// succeeds does), when the last one failed, and on which tool.
  std::int64_t failed_calls = 0;
  std::optional<util::EpochMs> last_failed_call_at;
  std::optional<std::string> last_failed_tool;
  /// The failed calls were a tool's upstream errors (`upstream`): the server answered, its upstream did not.
  bool upstream = false;
  /// The files its code and settings are read from, as its failed calls recorded them (config::code_files).
  std::vector<std::string> code_files;
  /// The files the agent keeps its OAuth tokens in, as failed calls the server refused the token of recorded them.
  std::vector<std::string> credential_files;
  /// What those files were when the outage last looked at them (`filesStamp`; files_changed).
  std::optional<std::string> files_stamp;
  /// The failure count of the outage the server last came back from, until it has stayed up one TTL: a failure
  /// before then continues that count, so a flapping server's backoff grows as a long outage's does.
  std::int64_t recent_failures = 0;
  /// Outages in a row that began within one TTL of the server's recovery from the one before.
  std::int64_t flaps = 0;
  /// The last reconnect command run for it.
  std::optional<ReconnectNote> last_reconnect;
  /// What its last probe's start cost in CPU (ms; the probe's `cpuMs`), when known: a look's price.
  std::optional<std::int64_t> look_cpu_ms;

  bool healthy() const { return status == "healthy"; }
  bool unhealthy() const { return status == "unhealthy"; }
  /// The TTL a healthy mark was written with (expiresAt - checkedAt): the entry says which policy made it, so
  /// extending or refreshing it needs no settings.
  std::optional<std::int64_t> ttl_ms() const {
    if (!healthy() || !checked_at || !expires_at || *expires_at <= *checked_at) return std::nullopt;
    return *expires_at - *checked_at;
  }
  /// Reads an entry.
  static ServerEntry from_json(const boost::json::object& obj);
};

/// What the last probe saw, as an entry keeps it (its `probe` object): written by the probes' marks, read by the
/// tables, the metrics and the probes' learned method. Not part of ServerEntry: the hook's cache hit never needs it.
struct ProbeDetails {
  /// probe::kind_name of what it saw: `answered`, `exited`, `needs-auth`, `misconfigured`, ...
  std::string kind;
  std::int64_t latency_ms = 0;
  std::optional<std::int64_t> http_status;
  /// For a process that exited, how it ended (`1`, `SIGSEGV`).
  std::optional<std::string> exit_status;
  std::optional<std::string> protocol_version;
  std::optional<std::string> server_name;
  std::optional<std::string> server_version;
  std::optional<std::int64_t> tools;
  /// The HTTP transport that answered: `streamable-http` or `sse`.
  std::optional<std::string> via;
  /// For a stdio server: the CPU time (ms) its start used (probe::ProbeResult::cpu_ms).
  std::optional<std::int64_t> cpu_ms = std::nullopt;
  /// With a declared check (config::CheckSpec): whether it passed. A breaker that began while it failed ends when it
  /// passes again (probe::held_for_trial).
  std::optional<bool> check_passed = std::nullopt;
  boost::json::object to_json() const;
};

/// An entry's last probe details; nothing when it has none.
std::optional<ProbeDetails> probe_details(const boost::json::object& entry);

/// Who wrote an entry last (`updatedBy`: hook, probe, tool-success, adopted, ...), when it says.
std::optional<std::string> updated_by(const boost::json::object& entry);

/// Everything a healthy mark needs. Built with designated initialisers (`{.now = t, .ttl_ms = ttl}`): a field added
/// anywhere shifts no value, and one left out keeps its default.
struct HealthyMark {
  util::EpochMs now = 0;
  std::int64_t ttl_ms = 0;
  std::optional<std::string> source = std::nullopt;
  /// Set when this mark restores a server.
  std::optional<RestoredBy> restored_by = std::nullopt;
  /// Probe details (HTTP status, kind, ...), stored as the entry's `probe` object when present.
  std::optional<ProbeDetails> probe = std::nullopt;
  /// The reconnect command run before this mark, when one ran (`lastReconnect`); none keeps the last one.
  std::optional<ReconnectNote> reconnect = std::nullopt;
};

/// How many outages in a row, each beginning within a TTL of the last recovery, make a server flapping.
inline constexpr std::int64_t k_flapping_outages = 2;
/// True when `e`'s outages come and go: it went down again within a TTL of coming back, k_flapping_outages times
/// in a row.
inline bool flapping(const ServerEntry& e) { return e.flaps >= k_flapping_outages; }

/// Whether an unhealthy mark counts one more failure. A probe asked for by hand (or by cron) while a server waits for
/// its retry is no retry: it says what it saw (the error, the probe) but neither counts nor moves the retry, so
/// probing a down server does not push its next check further out.
enum class Escalate { always, when_due };

/// Everything an unhealthy mark needs, built with designated initialisers as a HealthyMark is.
struct UnhealthyMark {
  util::EpochMs now = 0;
  std::string error = {};
  FailureCode code = {};
  std::optional<std::string> source = std::nullopt;
  std::int64_t backoff_ms = 0;
  std::int64_t max_backoff_ms = 0;
  /// The cap of a crash loop's backoff (config::crash_loop_cap_ms): a mark that makes two failed calls in a row, not
  /// upstream ones, doubles to it; its trial calls are what the model reads.
  std::int64_t crash_loop_max_backoff_ms = 0;
  /// From a `Retry-After` header: the retry is at least this far out (capped at one hour).
  std::optional<std::int64_t> retry_after_ms = std::nullopt;
  std::optional<ProbeDetails> probe = std::nullopt;
  /// When the failed call began. A failure of a call that began before the entry's current unhealthy mark belongs
  /// to that outage: the mark is kept as it is (its count and retry time), so parallel failures count once.
  std::optional<util::EpochMs> began_at = std::nullopt;
  /// Whether this failure counts one more (and so backs off further) when the entry's retry time has not come yet.
  Escalate escalate = Escalate::always;
  /// For a failed call: the failed calls in a row this one makes (gate::failed_calls_now), and its tool. The
  /// backoff then counts at least one failure fewer than the calls: a server that fails on every call backs off
  /// as one that fails every probe does, though each probe between passes.
  std::int64_t failed_calls = 0;
  std::string failed_tool = {};
  /// For a failed call: its text was a tool's upstream error (the server alive): the breaker keeps the look cap.
  bool upstream = false;
  /// For a failed call of a stdio server: the files its code and settings are read from (config::code_files).
  std::vector<std::string> code_files = {};
  /// For a failed call a remote server refused the agent's token for: where the agent keeps its tokens.
  std::vector<std::string> credential_files = {};
  /// What the code or credential files were at the failure (files_seen's stamp), when they are recorded.
  std::optional<std::string> files_stamp = std::nullopt;
  /// The reconnect command run after the failure, when one ran (`lastReconnect`); none keeps the last one.
  std::optional<ReconnectNote> reconnect = std::nullopt;
  /// One TTL: a failure this soon after the server came back continues the count of the outage before (its
  /// `recentFailures`), and counts as a flap. 0: no memory of outages before.
  std::int64_t remember_ms = 0;
};

/// Clears the failed calls in a row: a call succeeded.
void clear_failed_calls(boost::json::object& entry);

/// One failed call that marks nothing yet: a tool's upstream error on a server that answers (issue 52 item 4). Its
/// count in the row (gate::failed_calls_now), its time and tool are kept, so that the next one proves the outage.
struct FailedCallNote {
  util::EpochMs now = 0;
  std::int64_t failed_calls = 1;
  std::string tool = {};
  bool upstream = true;
};
void note_failed_call(boost::json::object& entry, const FailedCallNote& note);

/// Two failed calls in a row prove a crash loop (or, from a tool's upstream errors, an upstream outage): the server
/// starts and answers its handshake, and fails on calls. From then it is blocked with the backoff though a probe
/// (or its reconnect) passes, and a trial call when its retry comes decides.
inline constexpr std::int64_t k_crash_loop_calls = 2;
inline bool crash_loop(std::int64_t failed_calls) { return failed_calls >= k_crash_loop_calls; }

/// True when a down server's failure mark is a breaker's: its calls failed in a row since it went down, so a passing
/// handshake (a probe, a reconnect) does not clear it.
/// What a stat of the files an outage waits on (its code files, the agent's credential files) saw: the newest
/// modification time among them, and a stamp of every one's (modification time, size, inode).
struct FilesSeen {
  std::optional<util::EpochMs> newest;
  std::string stamp;
};

/// True when the files `seen` stat'ed changed since `e` last looked at them: their stamp differs from the one it
/// recorded. An entry written before stamps were kept is held to its check time (the newest changed after it).
inline bool files_changed(const ServerEntry& e, const FilesSeen& seen) {
  if (e.files_stamp) return seen.stamp != *e.files_stamp;
  return seen.newest && e.checked_at && *seen.newest > *e.checked_at;
}

inline bool fails_on_calls(const ServerEntry& e) {
  return e.unhealthy() && crash_loop(e.failed_calls) && e.last_failed_call_at && e.down_since &&
         *e.last_failed_call_at >= *e.down_since;
}

/// The breakers: what a server that fails on calls is blocked as.
enum class Breaker {
  none,       ///< not failing on calls
  crash_loop, ///< its calls fail as the server dies or errs on them; trial calls double to the crash loop's cap
  upstream,   ///< its tool's upstream fails (outage words in every call's text); trial calls keep the look cap
};
inline Breaker breaker_of(const ServerEntry& e) {
  if (!fails_on_calls(e)) return Breaker::none;
  return e.upstream ? Breaker::upstream : Breaker::crash_loop;
}

/// The longest backoff any mark under these caps writes: what a nextRetryAt is honoured to (retry_bound).
inline std::int64_t longest_backoff(std::int64_t max_backoff_ms, std::int64_t crash_loop_max_backoff_ms) {
  return std::max(max_backoff_ms, crash_loop_max_backoff_ms);
}

/// The longest `Retry-After` honoured.
inline constexpr std::int64_t k_max_retry_after_ms = 3'600'000;
/// The longest string a server names itself with (serverInfo.name, version, protocol) that is stored.
inline constexpr std::size_t k_max_server_string_bytes = 256;
/// The most files, and the longest path, kept in `codeFiles`.
inline constexpr std::size_t k_max_code_files = 8;
inline constexpr std::size_t k_max_code_file_bytes = 4096;
/// The longest error text stored in `lastError`.
inline constexpr std::size_t k_max_error_bytes = 4000;

/// The retry time to honour for an unhealthy entry: its `nextRetryAt`, but never more than `bound` after its
/// `checkedAt` (or after `now`, when that is missing or in the future). A time further out was not written by a
/// backoff (a clock jump, a hand edit, another tool) and would block the server for good. Nothing without a
/// `nextRetryAt`.
std::optional<util::EpochMs> honoured_retry_at(const ServerEntry& entry, util::EpochMs now, std::int64_t bound);

/// What an entry says about the next call, by the one rule every command shares.
enum class Freshness {
  fresh,       // healthy, and its mark has not expired: allow without a probe
  stale,       // healthy, but its mark expired (by `stale_for_ms` so far): it needs a probe
  in_backoff,  // unhealthy, and its (honoured) retry time has not come: block without a probe
  due,         // unhealthy, and its retry time has come (or nothing says when): it needs a probe
  unknown,     // no usable status: it needs a probe
};

/// An entry's outlook at `now`: how fresh it is and, in backoff, until when; `retry_bound` caps a nextRetryAt as
/// honoured_retry_at does. (A definition's *standing*, config::Standing, is whether the agent uses it.)
struct Outlook {
  Freshness freshness = Freshness::unknown;
  /// For `in_backoff`: the honoured retry time.
  std::optional<util::EpochMs> retry_at;
  /// For `stale`: how long ago the mark expired.
  std::int64_t stale_for_ms = 0;
  /// For `fresh`: until when, the TTL bound applied (what a text saying "fresh for" must follow).
  std::optional<util::EpochMs> fresh_until;
};

/// How far in the future a mark's `checkedAt` may lie and still be believed (clocks of one machine agree; more is a
/// clock that jumped).
inline constexpr std::int64_t k_max_clock_skew_ms = 60'000;

/// Decides where `entry` stands at `now`. A mark checked in the future (past k_max_clock_skew_ms) was written by a
/// clock that is not this one: it decides nothing (`unknown`: probe again), so a forward jump cannot keep a server
/// fresh, or blocked, until the clock catches up. A healthy mark is fresh at most `ttl_bound` past its checkedAt
/// (the TTL in force; 0: its own expiresAt alone), so an expiresAt a year ahead (another tool, a hand edit, a TTL
/// since lowered) keeps nothing fresh longer than the TTL says.
Outlook outlook_of(const ServerEntry& entry, util::EpochMs now, std::int64_t retry_bound, std::int64_t ttl_bound);

/// The most a nextRetryAt is honoured past its check, under a backoff cap of `max_backoff_ms`: that cap, or the
/// Retry-After cap if larger (the `retry_bound` of outlook_of).
inline std::int64_t retry_bound(std::int64_t max_backoff_ms) { return std::max(max_backoff_ms, k_max_retry_after_ms); }


/// The most consecutive failures a file may claim; more (a hand edit, a corrupt file) reads as this many, so
/// counting one more can never overflow.
inline constexpr std::int64_t k_max_failure_count = 1'000'000'000;
std::int64_t clamp_failure_count(std::int64_t count);

/// Returns the retry delay after `failure_count` consecutive failures: min(base * 2^(n-1), cap).
std::int64_t backoff_delay_ms(std::int64_t failure_count, std::int64_t base_ms, std::int64_t cap_ms);

/// What every mark made in one run is made from: the clock's reading, the server's settings that bound it (its
/// TTL and backoff, policy applied), the config file its definition came from, and, for a mark that restores a
/// server, how. Marks are built from it in one place (healthy_mark, unhealthy_mark), by the hook, `probe`, `watch`
/// and `refresh` alike.
struct MarkContext {
  util::EpochMs now = 0;
  std::int64_t ttl_ms = 0;
  std::int64_t backoff_ms = 0;
  std::int64_t max_backoff_ms = 0;
  std::int64_t crash_loop_max_backoff_ms = 0;
  std::optional<std::string> source = std::nullopt;
  std::optional<RestoredBy> restored_by = std::nullopt;
  /// The reconnect command this run ran for the server, when it ran one: kept with the verdict.
  std::optional<ReconnectNote> reconnect = std::nullopt;
};

/// A healthy mark in context `c`, with what the probe saw (none: the entry keeps no `probe`).
HealthyMark healthy_mark(const MarkContext& c, std::optional<ProbeDetails> probe = std::nullopt);

/// An unhealthy mark in context `c` for a failure: its words and code. What else the failure knows (a probe's
/// details, a call's tool and files) the caller adds to it.
UnhealthyMark unhealthy_mark(const MarkContext& c, std::string error, FailureCode code);

/// Keeps `note` as the entry's last reconnect (`lastReconnect`), changing nothing else: a command that failed
/// leaves the verdict as the failure marked it.
void keep_reconnect(boost::json::object& entry, const ReconnectNote& note);

/// Marks `entry` healthy: status, checkedAt, expiresAt = now + TTL, nextRetryAt null, failureCount 0, lastError and
/// lastFailureCode null, source; `lastRestoredAt` = now when it was not healthy before.
void mark_healthy(boost::json::object& entry, const HealthyMark& mark);

/// Extends a healthy entry's mark: checkedAt = now, expiresAt = now + TTL; nothing else changes.
void refresh_healthy(boost::json::object& entry, util::EpochMs now, std::int64_t ttl_ms);

/// True when `entry` is an unhealthy mark made at or after `began_at` (with a retry time): a failure of a call that
/// began before it is that outage, already counted.
bool marked_since(const boost::json::object& entry, util::EpochMs began_at);

/// Marks `entry` unhealthy, counting one more failure; changes nothing for a failure of the outage already marked
/// (see UnhealthyMark::began_at and marked_since).
void mark_unhealthy(boost::json::object& entry, const UnhealthyMark& mark);

} // namespace mcphealth::state
