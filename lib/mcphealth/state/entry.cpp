#include <mcphealth/state/entry.hpp>

#include <mcphealth/state/fields.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <limits>

namespace mcphealth::state {

namespace json = boost::json;

json::value FailureCode::to_json() const {
  switch (kind) {
  case Kind::http_status: return json::value(static_cast<std::int64_t>(status));
  case Kind::transport: return json::value("transport");
  case Kind::timeout: return json::value("timeout");
  case Kind::none: break;
  }
  return json::value(nullptr);
}

std::string FailureCode::text() const {
  switch (kind) {
  case Kind::http_status: return std::to_string(status);
  case Kind::transport: return "transport";
  case Kind::timeout: return "timeout";
  case Kind::none: break;
  }
  return {};
}

FailureCode FailureCode::from_json(const json::value* v) {
  // Anything but a three-digit status or "transport" (a hand edit, another writer, a fuzzer) reads as no code:
  // the number is only shown and compared, never trusted to fit an int.
  constexpr std::int64_t k_max_status = 999;
  if (v == nullptr) return none();
  if (v->is_string() && v->get_string() == "transport") return transport();
  if (v->is_string() && v->get_string() == "timeout") return timeout();
  std::optional<std::int64_t> n;
  if (v->is_string()) {
    std::string_view s = v->get_string();
    if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return none();
    }
    n = std::stoll(std::string(s));
  } else {
    n = util::as_int(*v);
  }
  if (!n || *n < 0 || *n > k_max_status) return none();
  return http(static_cast<int>(*n));
}

namespace {
/// A list of files a failed call recorded, as far as it is one: strings, at most k_max_code_files.
std::vector<std::string> read_files(const json::object& obj, std::string_view field) {
  std::vector<std::string> files;
  if (const json::value* v = obj.if_contains(field); v && v->is_array()) {
    for (const json::value& f : v->get_array()) {
      if (f.is_string() && files.size() < k_max_code_files) files.emplace_back(f.get_string());
    }
  }
  return files;
}
} // namespace

ServerEntry ServerEntry::from_json(const json::object& obj) {
  ServerEntry e;
  e.status = util::get_string(obj, field::status).value_or("");
  e.checked_at = util::get_epoch_ms(obj, field::checked_at);
  e.expires_at = util::get_epoch_ms(obj, field::expires_at);
  e.next_retry_at = util::get_epoch_ms(obj, field::next_retry_at);
  e.last_restored_at = util::get_epoch_ms(obj, field::last_restored_at);
  e.down_since = util::get_epoch_ms(obj, field::down_since);
  e.failure_count = clamp_failure_count(util::get_int(obj, field::failure_count).value_or(0));
  // Redacted on read too: a file written by the JS hook or an older mcphealth may hold a secret in it.
  if (auto error = util::get_string(obj, field::last_error)) e.last_error = util::redact(*error);
  e.last_failure_code = FailureCode::from_json(obj.if_contains(field::last_failure_code));
  e.source = util::get_string(obj, field::source);
  if (auto by = util::get_string(obj, field::restored_by)) e.restored_by = restored_by_from_name(*by);
  e.failed_calls = clamp_failure_count(util::get_int(obj, field::failed_calls).value_or(0));
  e.last_failed_call_at = util::get_epoch_ms(obj, field::last_failed_call_at);
  e.last_failed_tool = util::get_string(obj, field::last_failed_tool);
  const json::value* upstream = obj.if_contains(field::upstream);
  e.upstream = upstream != nullptr && upstream->is_bool() && upstream->get_bool();
  e.code_files = read_files(obj, field::code_files);
  e.credential_files = read_files(obj, field::credential_files);
  e.files_stamp = util::get_string(obj, field::files_stamp);
  e.recent_failures = clamp_failure_count(util::get_int(obj, field::recent_failures).value_or(0));
  e.flaps = clamp_failure_count(util::get_int(obj, field::flaps).value_or(0));
  e.last_reconnect = ReconnectNote::from_json(obj.if_contains(field::last_reconnect));
  if (const json::object* probe = util::get_object(obj, field::probe)) e.look_cpu_ms = util::get_int(*probe, field::cpu_ms);
  return e;
}

json::object ProbeDetails::to_json() const {
  // Every string a server chose is capped here, on write: a 16 MiB serverInfo.name would make every later read of
  // the state file (each cache hit) parse it.
  auto capped = [](const std::string& s) { return util::cap_utf8(util::redact(s), k_max_server_string_bytes); };
  json::object o;
  o[field::probe_kind] = kind;
  o[field::latency_ms] = latency_ms;
  if (http_status) o[field::http_status] = *http_status;
  if (exit_status) o[field::exit_status] = capped(*exit_status);
  if (protocol_version) o[field::protocol_version] = capped(*protocol_version);
  if (server_name) o[field::server_name] = capped(*server_name);
  if (server_version) o[field::server_version] = capped(*server_version);
  if (tools) o[field::tools] = *tools;
  if (via) o[field::via] = capped(*via);
  if (cpu_ms) o[field::cpu_ms] = *cpu_ms;
  if (check_passed) o[field::check] = *check_passed ? "passed" : "failed";
  return o;
}

std::optional<ProbeDetails> probe_details(const json::object& entry) {
  const json::object* probe = util::get_object(entry, field::probe);
  if (probe == nullptr) return std::nullopt;
  ProbeDetails d;
  d.kind = util::get_string(*probe, field::probe_kind).value_or("");
  d.latency_ms = util::get_int(*probe, field::latency_ms).value_or(0);
  d.http_status = util::get_int(*probe, field::http_status);
  d.exit_status = util::get_string(*probe, field::exit_status);
  d.protocol_version = util::get_string(*probe, field::protocol_version);
  d.server_name = util::get_string(*probe, field::server_name);
  d.server_version = util::get_string(*probe, field::server_version);
  d.tools = util::get_int(*probe, field::tools);
  d.via = util::get_string(*probe, field::via);
  d.cpu_ms = util::get_int(*probe, field::cpu_ms);
  if (const std::optional<std::string> check = util::get_string(*probe, field::check))
    d.check_passed = *check == "passed";
  return d;
}

std::optional<std::string> updated_by(const json::object& entry) { return util::get_string(entry, field::updated_by); }

std::int64_t clamp_failure_count(std::int64_t count) {
  return std::clamp<std::int64_t>(count, 0, k_max_failure_count);
}

std::string_view restored_by_name(RestoredBy by) {
  switch (by) {
  case RestoredBy::reconnect_command: return "reconnect-command";
  case RestoredBy::post_failure_reconnect: return "post-failure-reconnect";
  case RestoredBy::tool_success: return "tool-success";
  }
  return {};
}

std::optional<RestoredBy> restored_by_from_name(std::string_view name) {
  for (RestoredBy by : {RestoredBy::reconnect_command, RestoredBy::post_failure_reconnect, RestoredBy::tool_success}) {
    if (restored_by_name(by) == name) return by;
  }
  return std::nullopt;
}

std::optional<util::EpochMs> honoured_retry_at(const ServerEntry& entry, util::EpochMs now, std::int64_t bound) {
  if (!entry.next_retry_at) return std::nullopt;
  const util::EpochMs from = entry.checked_at && *entry.checked_at <= now ? *entry.checked_at : now;
  return std::min(*entry.next_retry_at, from + bound);
}

Outlook outlook_of(const ServerEntry& entry, util::EpochMs now, std::int64_t retry_bound, std::int64_t ttl_bound) {
  Outlook out;
  if (entry.checked_at && *entry.checked_at > now + k_max_clock_skew_ms) return out; // unknown
  if (entry.healthy()) {
    std::optional<util::EpochMs> expires = entry.expires_at;
    if (expires && ttl_bound > 0) expires = std::min(*expires, entry.checked_at ? *entry.checked_at + ttl_bound : now + ttl_bound);
    if (expires && *expires > now) {
      out.freshness = Freshness::fresh;
      out.fresh_until = expires;
    } else {
      out.freshness = Freshness::stale;
      out.stale_for_ms = expires ? now - *expires : 0;
    }
  } else if (entry.unhealthy()) {
    out.retry_at = honoured_retry_at(entry, now, retry_bound);
    out.freshness = out.retry_at && *out.retry_at > now ? Freshness::in_backoff : Freshness::due;
  }
  return out;
}

std::int64_t backoff_delay_ms(std::int64_t failure_count, std::int64_t base_ms, std::int64_t cap_ms) {
  if (failure_count < 1) failure_count = 1;
  std::int64_t delay = base_ms;
  for (std::int64_t i = 1; i < failure_count && delay < cap_ms; ++i) {
    if (delay > std::numeric_limits<std::int64_t>::max() / 2) return cap_ms;
    delay *= 2;
  }
  return std::min(delay, cap_ms);
}

namespace {
json::value optional_string(const std::optional<std::string>& s) {
  return s ? json::value(*s) : json::value(nullptr);
}
} // namespace

namespace {

/// A list of files a failed call recorded (what it waits on to change), at most k_max_code_files of at most
/// k_max_code_file_bytes each; none: the field is gone.
void write_files(json::object& entry, std::string_view field, const std::vector<std::string>& given) {
  json::array files;
  for (const std::string& f : given) {
    if (files.size() < k_max_code_files && f.size() <= k_max_code_file_bytes) files.emplace_back(f);
  }
  if (files.empty())
    entry.erase(field);
  else
    entry[field] = std::move(files);
}

/// A server that has stayed up one TTL since its last recovery forgets the outages before it.
void forget_outages_when_settled(json::object& entry, util::EpochMs now, std::int64_t ttl_ms) {
  const std::optional<util::EpochMs> restored = util::get_epoch_ms(entry, field::last_restored_at);
  if (!restored || now - *restored >= ttl_ms) {
    entry.erase(field::recent_failures);
    entry.erase(field::flaps);
  }
}

} // namespace

void mark_healthy(json::object& entry, const HealthyMark& mark) {
  const bool was_healthy = util::get_string(entry, field::status) == std::optional<std::string>("healthy");
  const bool was_down = util::get_string(entry, field::status) == std::optional<std::string>("unhealthy");
  // Coming back: the outage's count is remembered for a TTL, in case it goes down again (flapping).
  if (was_down) {
    const std::int64_t failures = clamp_failure_count(util::get_int(entry, field::failure_count).value_or(0));
    if (failures > 0) entry[field::recent_failures] = failures;
  }
  entry[field::status] = "healthy";
  entry[field::checked_at] = mark.now;
  entry[field::expires_at] = mark.now + mark.ttl_ms;
  entry[field::next_retry_at] = nullptr;
  entry[field::failure_count] = 0;
  entry.erase(field::down_since);
  entry[field::last_error] = nullptr;
  entry[field::last_failure_code] = nullptr;
  if (mark.source || !entry.contains(field::source)) entry[field::source] = optional_string(mark.source);
  if (!was_healthy) {
    // A restore: say how it came about (null for a plain probe), never keep an older restore's cause.
    entry[field::last_restored_at] = mark.now;
    entry[field::restored_by] =
        mark.restored_by ? json::value(restored_by_name(*mark.restored_by)) : json::value(nullptr);
  } else {
    if (!entry.contains(field::last_restored_at)) entry[field::last_restored_at] = nullptr;
    if (mark.restored_by) entry[field::restored_by] = restored_by_name(*mark.restored_by);
    forget_outages_when_settled(entry, mark.now, mark.ttl_ms);
  }
  if (mark.probe) {
    entry[field::probe] = mark.probe->to_json();
  } else {
    entry.erase(field::probe);
  }
  if (mark.reconnect) entry[field::last_reconnect] = mark.reconnect->to_json();
}

void refresh_healthy(json::object& entry, util::EpochMs now, std::int64_t ttl_ms) {
  entry[field::checked_at] = now;
  entry[field::expires_at] = now + ttl_ms;
  forget_outages_when_settled(entry, now, ttl_ms);
}

bool marked_since(const json::object& entry, util::EpochMs began_at) {
  if (util::get_string(entry, field::status) != std::optional<std::string>("unhealthy")) return false;
  const std::optional<util::EpochMs> marked = util::get_epoch_ms(entry, field::checked_at);
  return marked && *marked >= began_at && util::get_epoch_ms(entry, field::next_retry_at);
}

void note_failed_call(json::object& entry, const FailedCallNote& note) {
  entry[field::failed_calls] = clamp_failure_count(note.failed_calls);
  entry[field::last_failed_call_at] = note.now;
  entry[field::last_failed_tool] = util::cap_utf8(note.tool, k_max_server_string_bytes);
  if (note.upstream) entry[field::upstream] = true;
  else entry.erase(field::upstream);
}

void clear_failed_calls(json::object& entry) {
  entry.erase(field::failed_calls);
  entry.erase(field::last_failed_call_at);
  entry.erase(field::last_failed_tool);
  entry.erase(field::upstream);
  entry.erase(field::code_files);
  entry.erase(field::credential_files);
  entry.erase(field::files_stamp);
}

json::object ReconnectNote::to_json() const {
  json::object o{{"at", at}, {"command", util::cap_utf8(command, 500)}, {"ok", ok}, {"line", util::cap_utf8(line, 500)}};
  if (exit) o["exit"] = *exit;
  if (!by.empty()) o["by"] = by;
  return o;
}

std::optional<ReconnectNote> ReconnectNote::from_json(const json::value* v) {
  if (v == nullptr || !v->is_object()) return std::nullopt;
  const json::object& o = v->get_object();
  ReconnectNote n;
  n.at = util::get_epoch_ms(o, "at").value_or(0);
  n.command = util::get_string(o, "command").value_or("");
  const json::value* ok = o.if_contains("ok");
  n.ok = ok != nullptr && ok->is_bool() && ok->get_bool();
  n.exit = util::get_string(o, "exit");
  n.line = util::get_string(o, "line").value_or("");
  n.by = util::get_string(o, "by").value_or("");
  return n;
}

std::string ReconnectNote::text() const {
  std::string t = "reconnect `" + command + "` " + (ok ? "ran" : "failed");
  if (exit) t += " (exit " + *exit + ")";
  if (!line.empty()) t += ": " + line;
  return t;
}

void keep_reconnect(json::object& entry, const ReconnectNote& note) { entry[field::last_reconnect] = note.to_json(); }

HealthyMark healthy_mark(const MarkContext& c, std::optional<ProbeDetails> probe) {
  return {.now = c.now,
          .ttl_ms = c.ttl_ms,
          .source = c.source,
          .restored_by = c.restored_by,
          .probe = std::move(probe),
          .reconnect = c.reconnect};
}

UnhealthyMark unhealthy_mark(const MarkContext& c, std::string error, FailureCode code) {
  return {.now = c.now,
          .error = std::move(error),
          .code = code,
          .source = c.source,
          .backoff_ms = c.backoff_ms,
          .max_backoff_ms = c.max_backoff_ms,
          .crash_loop_max_backoff_ms = c.crash_loop_max_backoff_ms,
          .reconnect = c.reconnect,
          .remember_ms = c.ttl_ms};
}

namespace {

/// What an unhealthy mark saw, written whether it counts one more failure or not: when, the error, the probe's
/// details, and a failed call's own fields.
void write_what_was_seen(json::object& entry, const UnhealthyMark& mark) {
  entry[field::checked_at] = mark.now;
  entry[field::expires_at] = mark.now;
  entry[field::last_error] = util::cap_utf8(util::redact(mark.error), k_max_error_bytes);
  entry[field::last_failure_code] = mark.code.to_json();
  if (mark.probe) entry[field::probe] = mark.probe->to_json();
  if (mark.reconnect) entry[field::last_reconnect] = mark.reconnect->to_json();
  if (mark.failed_calls > 0) {
    entry[field::failed_calls] = clamp_failure_count(mark.failed_calls);
    entry[field::last_failed_call_at] = mark.now;
    entry[field::last_failed_tool] = util::cap_utf8(mark.failed_tool, k_max_server_string_bytes);
    if (mark.upstream) entry[field::upstream] = true;
    else entry.erase(field::upstream);
    write_files(entry, field::code_files, mark.code_files);
    write_files(entry, field::credential_files, mark.credential_files);
    if (mark.files_stamp) entry[field::files_stamp] = *mark.files_stamp;
    else entry.erase(field::files_stamp);
  }
}

} // namespace

void mark_unhealthy(json::object& entry, const UnhealthyMark& mark) {
  if (mark.began_at && marked_since(entry, *mark.began_at)) return;
  const ServerEntry before = ServerEntry::from_json(entry);
  const bool in_backoff = before.unhealthy() && before.next_retry_at && *before.next_retry_at > mark.now;
  const bool was_down = before.unhealthy();
  write_what_was_seen(entry, mark);
  // A probe while the server waits for its retry (by hand, or cron's) says what it saw, but neither counts one more
  // failure nor moves the retry.
  if (mark.escalate == Escalate::when_due && in_backoff) return;
  std::int64_t failures = std::max(clamp_failure_count(util::get_int(entry, field::failure_count).value_or(0)) + 1,
                                   clamp_failure_count(mark.failed_calls - 1));
  if (!was_down) {
    // Down again: within a TTL of coming back, the outage before goes on (its count, and one more flap); later,
    // it is forgotten.
    const std::optional<util::EpochMs> restored = util::get_epoch_ms(entry, field::last_restored_at);
    const std::int64_t recent = clamp_failure_count(util::get_int(entry, field::recent_failures).value_or(0));
    if (recent > 0 && restored && mark.remember_ms > 0 && mark.now - *restored < mark.remember_ms) {
      failures = std::max(failures, clamp_failure_count(recent + 1));
      entry[field::flaps] = clamp_failure_count(util::get_int(entry, field::flaps).value_or(0) + 1);
    } else {
      entry.erase(field::flaps);
    }
    entry.erase(field::recent_failures);
  }
  // A crash loop's retries are trial calls, each one the model reads: they keep doubling past the look cap to the
  // crash loop's own. An upstream outage's keep the look cap (an API's 503s are usually over in minutes).
  const std::int64_t cap = crash_loop(mark.failed_calls) && !mark.upstream
                               ? longest_backoff(mark.max_backoff_ms, mark.crash_loop_max_backoff_ms)
                               : mark.max_backoff_ms;
  std::int64_t delay = backoff_delay_ms(failures, mark.backoff_ms, cap);
  if (mark.retry_after_ms) delay = std::max(delay, std::min(*mark.retry_after_ms, k_max_retry_after_ms));
  entry[field::status] = "unhealthy";
  entry[field::next_retry_at] = mark.now + delay;
  entry[field::failure_count] = failures;
  // The first failure in a row starts the outage; later ones keep its start (an entry another writer made without
  // one stays without: that start is unknown).
  if (failures == 1 || !was_down) entry[field::down_since] = mark.now;
  if (mark.source || !entry.contains(field::source)) entry[field::source] = optional_string(mark.source);
  if (!entry.contains(field::last_restored_at)) entry[field::last_restored_at] = nullptr;
  if (!mark.probe) entry.erase(field::probe);
}

} // namespace mcphealth::state
