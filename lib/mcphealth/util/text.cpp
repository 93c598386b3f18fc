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

namespace {

/// The length of the UTF-8 sequence at `text[at]` and its code point; 0 when it is not well-formed UTF-8.
std::size_t utf8_at(std::string_view text, std::size_t at, char32_t& cp) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  std::size_t len = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 0;
  if (len == 0 || at + len > text.size() || lead >= 0xF8) return 0;
  cp = lead & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (std::size_t i = 1; i < len; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(at + i) & 0x3F);
  }
  const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

/// Code points a terminal acts on, or that change how the rest of a line is shown.
bool is_unsafe(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F || cp == 0x2028 ||
         cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

} // namespace

std::string strip_terminal_escapes(std::string_view text) {
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') {
      plain += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '[') {
      // A control sequence: parameters and intermediates, then one final byte in @ to ~.
      i += 2;
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
    } else if (i + 1 < text.size()) {
      ++i; // ESC and the one character of a two-character sequence
    }
  }
  return escape_control(plain);
}

std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[16];
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      if (u >= 0x20 && u != 0x7F) out += c;
      else if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else {
        std::snprintf(buf, sizeof buf, "\\x%02x", u);
        out += buf;
      }
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = utf8_at(text, i, cp);
    if (len == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
      ++i;
    } else if (is_unsafe(cp)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
      i += len;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string_view word_after(std::string_view text, std::string_view prefix) {
  const std::size_t at = text.find(prefix);
  if (at == std::string_view::npos) return {};
  std::string_view rest = text.substr(at + prefix.size());
  return rest.substr(0, rest.find_first_of(" '\"}:;,\n"));
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      out += text[i++];
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = utf8_at(text, i, cp);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string redact_url(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const std::size_t authority = scheme_end + 3;
  // Userinfo ends at the last `@` before any query or fragment: a password may hold a `/` itself (over-redacting a
  // path with an `@` in it costs nothing).
  const std::size_t before_query = url.find_first_of("?#", authority);
  const std::size_t at = url.rfind('@', before_query == std::string_view::npos ? std::string_view::npos : before_query);
  const bool userinfo = at != std::string_view::npos && at >= authority;
  const std::size_t host = userinfo ? at + 1 : authority;
  std::size_t authority_end = url.find_first_of("/?#", host);
  if (authority_end == std::string_view::npos) authority_end = url.size();
  std::string out(url.substr(0, authority));
  if (userinfo) out += "***@";
  out.append(url.substr(host, authority_end - host));
  std::size_t i = authority_end;
  const std::size_t query = url.find('?', i);
  const std::size_t fragment = url.find('#', i);
  const std::size_t path_end = std::min(query, fragment);
  out.append(url.substr(i, (path_end == std::string_view::npos ? url.size() : path_end) - i));
  if (query != std::string_view::npos && query < fragment) {
    const std::string_view q = url.substr(query + 1, (fragment == std::string_view::npos ? url.size() : fragment) - query - 1);
    out += '?';
    std::size_t from = 0;
    for (;;) {
      const std::size_t amp = q.find('&', from);
      const std::string_view pair = q.substr(from, amp == std::string_view::npos ? std::string_view::npos : amp - from);
      const std::size_t eq = pair.find('=');
      out += eq == std::string_view::npos ? std::string(pair) : std::string(pair.substr(0, eq)) + "=***";
      if (amp == std::string_view::npos) break;
      out += '&';
      from = amp + 1;
    }
  }
  if (fragment != std::string_view::npos) out += "#***";
  return out;
}

bool same_url(std::string_view a, std::string_view b) {
  auto normal = [](std::string_view url) {
    std::string out(url);
    const std::size_t scheme = out.find("://");
    const std::size_t host_end = scheme == std::string::npos ? 0 : out.find_first_of("/?#", scheme + 3);
    const std::size_t lower_to = scheme == std::string::npos ? 0 : host_end == std::string::npos ? out.size() : host_end;
    for (std::size_t i = 0; i < lower_to; ++i) out[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[i])));
    const std::size_t path_end = out.find_first_of("?#");
    const std::size_t slash = (path_end == std::string::npos ? out.size() : path_end);
    if (slash > 0 && out[slash - 1] == '/' && slash - 1 > (scheme == std::string::npos ? 0 : scheme + 2)) out.erase(slash - 1, 1);
    return out;
  };
  return normal(a) == normal(b);
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
    if (says_something(line)) {
      std::string found(line.substr(0, line.find_last_not_of(" \t") + 1));
      // A heading whose words are indented under it (Rust's `Caused by:\n    Transport closed`, as Codex CLI
      // reports a call's failure): the heading and the first line under it. Every line after the one found is
      // indented or blank, or it would have been found instead.
      if (found.back() == ':') {
        const std::size_t after = static_cast<std::size_t>(line.data() - text.data()) + line.size();
        for (const std::string& next : split_lines(text.substr(after))) {
          if (std::string words = trim(next); !words.empty()) return found + " " + words;
        }
      }
      return found;
    }
    if (cut == std::string_view::npos) break;
    rest = rest.substr(0, cut);
  }
  return trim(text.substr(0, text.find('\n')));
}

std::string text_at(std::string_view text, std::size_t line, std::size_t column) {
  if (line == 0) return {};
  const std::vector<std::string> lines = split_lines(text);
  if (line > lines.size()) return {};
  const std::string& whole = lines[line - 1];
  const std::size_t at = std::min(column == 0 ? 0 : column - 1, whole.size());
  const std::size_t from = at > 30 ? at - 30 : 0;
  std::string near = escape_control(whole.substr(from, at - from + 30));
  if (from > 0) near = "…" + near;
  if (at + 30 < whole.size()) near += "…";
  return " near `" + near + "`";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string unknown_name(std::string_view what, std::string_view name, std::vector<std::string> known) {
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  const std::optional<std::string> close = closest_match(name, known);
  return "unknown " + std::string(what) + " '" + std::string(name) + "'" +
         (close ? " (did you mean " + *close + "?)" : std::string()) + "; known: " + (list.empty() ? "none" : list);
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

int compare_versions(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    long x = 0, y = 0;
    while (i < a.size() && a[i] != '.') x = x * 10 + (std::isdigit(static_cast<unsigned char>(a[i])) ? a[i] - '0' : 0), ++i;
    while (j < b.size() && b[j] != '.') y = y * 10 + (std::isdigit(static_cast<unsigned char>(b[j])) ? b[j] - '0' : 0), ++j;
    if (x != y) return x < y ? -1 : 1;
    ++i;
    ++j;
  }
  return 0;
}

std::optional<std::string> version_in(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) ||
        (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.')))
      continue;
    std::size_t j = i;
    int dots = 0;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) ||
                               (text[j] == '.' && j + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[j + 1]))))) {
      if (text[j] == '.') ++dots;
      ++j;
    }
    if (dots >= 2) return std::string(text.substr(i, j - i));
    i = j;
  }
  return std::nullopt;
}

std::string fnv1a_hex(std::string_view text) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::uint64_t h = fnv1a(text);
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = k_digits[h & 0xF];
  return out;
}

} // namespace mcphealth::util
