#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace mcphealth::util {

std::string cap_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Step back over continuation bytes (10xxxxxx) so a multi-byte character is never split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut));
}

std::string trim(std::string_view text) {
  const char* ws = " \t\r\n\v\f";
  auto begin = text.find_first_not_of(ws);
  if (begin == std::string_view::npos) return {};
  auto end = text.find_last_not_of(ws);
  return std::string(text.substr(begin, end - begin + 1));
}

std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7F) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  return out;
}

namespace {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
} // namespace

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  // A word that starts exactly one candidate (`explain` for `explain-config`) means that one.
  std::vector<std::string> starting;
  for (const auto& c : candidates) {
    if (word.size() >= 3 && c.size() > word.size() && c.compare(0, word.size(), word) == 0) starting.push_back(c);
  }
  if (starting.size() == 1) return starting.front();
  const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::vector<std::string> shell_words(std::string_view command) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  bool escaped = false;
  for (char c : command) {
    if (escaped) {
      word += c;
      escaped = false;
    } else if (quote == 0 && c == '\\') {
      escaped = in_word = true;
    } else if (quote != 0) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(std::move(word));
  return out;
}

std::string last_meaningful_line(std::string_view text) {
  auto says_something = [](std::string_view line) {
    if (line.empty() || line.front() == ' ' || line.front() == '\t') return false;
    if (line.rfind("Node.js v", 0) == 0) return false;
    // Only punctuation: `^^^^^`, `}`, `~~~`.
    return std::any_of(line.begin(), line.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
  };
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t cut = rest.find_last_of('\n', rest.size() - 1);
    std::string_view line = cut == std::string_view::npos ? rest : rest.substr(cut + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (says_something(line)) return std::string(line.substr(0, line.find_last_not_of(" \t") + 1));
    if (cut == std::string_view::npos) break;
    rest = rest.substr(0, cut);
  }
  return trim(text.substr(0, text.find('\n')));
}

bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1; // let the last star take one more character
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string shell_word(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("/._+-=:,@%", c) != nullptr;
  });
  return plain ? std::string(text) : shell_quote(text);
}

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  out += "'";
  return out;
}

} // namespace mcphealth::util
