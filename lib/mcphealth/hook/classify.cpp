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

} // namespace

std::optional<state::FailureCode> classify_failure(std::string_view raw) {
  const std::string text = normalize(raw);
  if (any_word(text, {"401", "unauthorized", "unauthorised", "auth failed", "auth expired", "auth invalid",
                      "authentication failed", "authentication expired", "authentication invalid"})) {
    return state::FailureCode::http(401);
  }
  if (any_word(text, {"403", "forbidden", "permission denied"})) return state::FailureCode::http(403);
  if (any_word(text, {"429", "rate limit", "rate limited", "ratelimit", "ratelimited", "too many requests"})) {
    return state::FailureCode::http(429);
  }
  if (any_word(text, {"503", "service unavailable", "overloaded", "temporarily unavailable"})) {
    return state::FailureCode::http(503);
  }
  if (any_word(text, {"econnrefused", "enotfound", "eai_again", "timed out", "time out", "socket hang up",
                      "connection failed", "connection lost", "connection reset", "connection closed"})) {
    return state::FailureCode::transport();
  }
  return std::nullopt;
}

} // namespace mcphealth::hook
