#include <mcphealth/hook/classify.hpp>

#include <mcphealth/util/json.hpp>

#include <cctype>
#include <initializer_list>

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
  if (const json::object* in = util::get_object(payload, "tool_input")) add(util::get_string(*in, "error"));
  return text;
}

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

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
    const bool start_ok = pos == 0 || !is_word_char(text[pos - 1]);
    const std::size_t end = pos + phrase.size();
    const bool end_ok = end >= text.size() || !is_word_char(text[end]);
    if (start_ok && end_ok) return true;
    ++pos;
  }
  return false;
}

bool any_word(const std::string& text, std::initializer_list<std::string_view> phrases) {
  for (auto p : phrases) {
    if (contains_word(text, p)) return true;
  }
  return false;
}

/// True when `text` ends with `phrase` as whole words.
bool ends_with_word(std::string_view text, std::string_view phrase) {
  if (text.size() < phrase.size() || text.substr(text.size() - phrase.size()) != phrase) return false;
  const std::size_t start = text.size() - phrase.size();
  return start == 0 || !is_word_char(text[start - 1]);
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
    const bool whole = (pos == 0 || !is_word_char(text[pos - 1])) && (end >= text.size() || !is_word_char(text[end]));
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
  if (reports_status(text, "401", "unauthorized") ||
      any_word(text, {"unauthorized", "unauthorised", "auth failed", "auth expired", "auth invalid", "invalid_token",
                      "authentication failed", "authentication expired", "authentication invalid"})) {
    return state::FailureCode::http(401);
  }
  if (reports_status(text, "403", "forbidden") || any_word(text, {"forbidden", "insufficient_scope"})) {
    return state::FailureCode::http(403);
  }
  if (reports_status(text, "429", "too many requests") ||
      any_word(text, {"rate limit", "rate limited", "ratelimit", "ratelimited", "rate limit exceeded", "too many requests"})) {
    return state::FailureCode::http(429);
  }
  if (reports_status(text, "503", "service unavailable") ||
      any_word(text, {"service unavailable", "overloaded", "overloaded_error", "temporarily unavailable"})) {
    return state::FailureCode::http(503);
  }
  if (any_word(text, {"econnrefused", "econnreset", "enotfound", "eai_again", "etimedout", "ehostunreach",
                      "enetunreach", "timed out", "time out", "socket hang up", "fetch failed", "connection refused",
                      "connection failed", "connection lost", "connection reset", "connection closed"})) {
    return state::FailureCode::transport();
  }
  return std::nullopt;
}

} // namespace mcphealth::hook
