#include <mcphealth/hook/classify.hpp>

#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <cctype>
#include <initializer_list>
#include <vector>

namespace mcphealth::hook {

namespace json = boost::json;

std::string failure_text(const json::object& payload) {
  std::string text;
  auto add = [&](const std::optional<std::string>& s) {
    if (!s || s->empty()) return;
    if (!text.empty()) text += '\n';
    text += *s;
  };
  add(util::get_string(payload, "error"));
  add(util::get_string(payload, "message"));
  add(util::get_string(payload, "tool_response"));
  add(util::get_string(payload, "tool_output"));
  if (const json::object* out = util::get_object(payload, "tool_output")) {
    add(util::get_string(*out, "output"));
    add(util::get_string(*out, "stderr"));
  }
  // Never `tool_input`: those are the model's arguments, not the client's word on the failure (a tool taking an
  // `error` argument would have a healthy server's -32602 read as its text).
  return text;
}

namespace {

bool is_word_byte(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Lower-case, with every run of white space or hyphens folded to one space, so "Rate-Limit" and "rate  limit" match.
std::string normalize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0 || c == '-') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool contains_word(const std::string& text, std::string_view phrase) {
  std::size_t pos = 0;
  while ((pos = text.find(phrase, pos)) != std::string::npos) {
    const bool start_ok = pos == 0 || !is_word_byte(text[pos - 1]);
    const std::size_t end = pos + phrase.size();
    const bool end_ok = end >= text.size() || !is_word_byte(text[end]);
    if (start_ok && end_ok) return true;
    ++pos;
  }
  return false;
}

template <typename Phrases>
bool any_word(const std::string& text, const Phrases& phrases) {
  for (auto p : phrases) {
    if (contains_word(text, p)) return true;
  }
  return false;
}

/// True when `text` ends with `phrase` as whole words.
bool ends_with_word(std::string_view text, std::string_view phrase) {
  if (text.size() < phrase.size() || text.substr(text.size() - phrase.size()) != phrase) return false;
  const std::size_t start = text.size() - phrase.size();
  return start == 0 || !is_word_byte(text[start - 1]);
}

/// True when `status` stands in `text` as an HTTP status: after a word that introduces one (`HTTP 503`,
/// `status code 503`, `"status":503`, `code: 503`, `returned 503`), or before its own reason phrase
/// (`503 Service Unavailable`). A bare number (`line 503`, `report-503.txt`, `expected 401 items`) is not one.
bool reports_status(const std::string& text, std::string_view status, std::string_view reason_phrase) {
  static constexpr std::string_view k_introducers[] = {
      "http", "http/1.0", "http/1.1", "http/2", "http/3", "status", "status code", "statuscode", "status_code",
      "code", "error code", "response code", "returned", "responded with", "response", "got", "received"};
  std::size_t pos = 0;
  while ((pos = text.find(status, pos)) != std::string::npos) {
    const std::size_t end = pos + status.size();
    const bool whole = (pos == 0 || !is_word_byte(text[pos - 1])) && (end >= text.size() || !is_word_byte(text[end]));
    if (whole) {
      std::string_view before(text.data(), pos);
      while (!before.empty() && std::string_view(" :=(\"'[").find(before.back()) != std::string_view::npos) {
        before.remove_suffix(1);
      }
      for (std::string_view word : k_introducers) {
        if (ends_with_word(before, word)) return true;
      }
      if (text.compare(end, reason_phrase.size() + 1, " " + std::string(reason_phrase)) == 0) return true;
    }
    pos = end;
  }
  return false;
}

} // namespace

std::optional<state::FailureCode> classify_failure(std::string_view raw) {
  const std::string text = normalize(raw);
  // The outage table's rows in order: the first whose status or signs the text shows is its kind.
  for (const state::OutageRow& row : state::outage_table()) {
    if (row.status() != 0 && !row.reason_phrase.empty() &&
        reports_status(text, std::to_string(row.status()), row.reason_phrase)) {
      return state::code_of(row.kind);
    }
    if (!row.signs.empty() && any_word(text, row.signs)) return state::code_of(row.kind);
  }
  return std::nullopt;
}

using Says = FailureReading::Says;

namespace {

/// Every string in `value`, depth first (a call's input nests its URLs anywhere).
void collect_strings(const json::value& value, std::vector<std::string_view>& out, int depth = 0) {
  if (depth > 16 || out.size() > 256) return;
  if (const json::string* s = value.if_string()) {
    out.emplace_back(s->data(), s->size());
  } else if (const json::object* o = value.if_object()) {
    for (const auto& kv : *o) collect_strings(kv.value(), out, depth + 1);
  } else if (const json::array* a = value.if_array()) {
    for (const auto& v : *a) collect_strings(v, out, depth + 1);
  }
}

/// The host of a URL-like string (`https://user@Host:8080/x` -> `host`), or the string itself when it looks like a
/// bare host name (`example.invalid`); nothing for other text.
std::optional<std::string> host_in(std::string_view s) {
  if (const std::size_t scheme = s.find("://"); scheme != std::string_view::npos) s.remove_prefix(scheme + 3);
  else if (s.find_first_of(" /\t\n") != std::string_view::npos || s.find('.') == std::string_view::npos) return std::nullopt;
  s = s.substr(0, s.find_first_of("/?#"));
  if (const std::size_t at = s.rfind('@'); at != std::string_view::npos) s.remove_prefix(at + 1);
  if (!s.empty() && s.front() == '[') s = s.substr(1, s.find(']') == std::string_view::npos ? s.size() - 1 : s.find(']') - 1);
  else s = s.substr(0, s.find(':'));
  if (s.size() < 3) return std::nullopt;
  std::string host;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '-' && c != ':') return std::nullopt;
    host += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return host;
}

/// The first host named by the call's input that the failure text mentions too (as a whole word).
std::optional<std::string> input_host_in(const std::string& lowered_text, const json::object* tool_input) {
  if (tool_input == nullptr) return std::nullopt;
  std::vector<std::string_view> strings;
  for (const auto& kv : *tool_input) collect_strings(kv.value(), strings);
  for (std::string_view s : strings) {
    const std::optional<std::string> host = host_in(s);
    if (host && contains_word(lowered_text, normalize(*host))) return host;
  }
  return std::nullopt;
}

} // namespace

std::string_view failure_says_name(Says says) {
  switch (says) {
  case Says::nothing: return "nothing";
  case Says::status: return "an HTTP status";
  case Says::transport: return "a transport failure";
  case Says::http_unknown: return "an HTTP failure without status";
  case Says::timeout: return "a call the client gave up waiting for";
  }
  return "?";
}

std::optional<std::int64_t> retry_time_in(std::string_view text) {
  const std::string lower = normalize(text.substr(0, 64 * 1024)); // `Retry-After` reads `retry after`
  static constexpr std::string_view k_leads[] = {"retry after", "try again in", "retry in"};
  for (std::string_view lead : k_leads) {
    for (std::size_t at = lower.find(lead); at != std::string::npos; at = lower.find(lead, at + 1)) {
      std::size_t i = at + lead.size();
      while (i < lower.size() && (lower[i] == ' ' || lower[i] == ':' || lower[i] == '=' || lower[i] == '"')) ++i;
      std::size_t digits = i;
      std::int64_t n = 0;
      while (digits < lower.size() && std::isdigit(static_cast<unsigned char>(lower[digits])) != 0 && digits - i < 9) {
        n = n * 10 + (lower[digits] - '0');
        ++digits;
      }
      if (digits == i) continue;
      std::size_t u = digits;
      while (u < lower.size() && lower[u] == ' ') ++u;
      std::size_t end = u;
      while (end < lower.size() && std::isalpha(static_cast<unsigned char>(lower[end])) != 0) ++end;
      const std::string_view unit = std::string_view(lower).substr(u, end - u);
      if (unit == "ms" || unit == "milliseconds" || unit == "millisecond") return n;
      if (unit == "m" || unit == "min" || unit == "mins" || unit == "minute" || unit == "minutes") return n * 60'000;
      return n * 1000;
    }
  }
  return std::nullopt;
}

FailureReading read_failure(std::string_view text, const json::object* tool_input, std::span<const ClientWording> wordings) {
  FailureReading reading;
  const std::string whole = util::trim(text);
  for (const ClientWording& w : wordings) {
    if (!util::glob_match(w.text, whole)) continue;
    reading.says = w.says;
    reading.wording = w.text;
    reading.remote_only = w.remote_only;
    if (w.says == Says::transport) reading.code = state::FailureCode::transport();
    if (w.says == Says::timeout) reading.code = state::FailureCode::timeout();
    if (w.says == Says::status) reading.code = classify_failure(text);
    if (w.says == Says::status && !reading.code) reading.says = Says::http_unknown;
    return reading;
  }
  const std::optional<state::FailureCode> code = classify_failure(text);
  if (!code) return reading;
  if (std::optional<std::string> host = input_host_in(normalize(text), tool_input)) {
    reading.input_named = std::move(host);
    return reading;
  }
  reading.says = code->kind == state::FailureCode::Kind::transport ? Says::transport : Says::status;
  reading.code = code;
  return reading;
}

} // namespace mcphealth::hook
