#include <mcphealth/util/json_edit.hpp>

#include <mcphealth/util/json.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace mcphealth::util {

namespace json = boost::json;

namespace {

constexpr std::size_t k_no_item = std::string_view::npos;

/// A longest-common-run table past this many cells is not built: a list that long is matched by position.
constexpr std::size_t k_max_alignment_cells = 1'000'000;

/// One member of an object (from its key's quote to its value's end) or one element of a list.
struct Item {
  std::string key; // a member's; empty for an element
  std::size_t begin = 0;
  std::size_t value_begin = 0;
  std::size_t end = 0;
};

/// An object or a list as its text holds it: where its brackets are, and its items.
struct Container {
  std::size_t open = 0;
  std::size_t close = 0;
  std::vector<Item> items;
};

/// The container whose opening bracket is at `at`; nothing when the text is not one this scanner can follow.
std::optional<Container> scan_container(std::string_view text, std::size_t at) {
  const bool is_object = text[at] == '{';
  const char closing = is_object ? '}' : ']';
  Container c;
  c.open = at;
  std::size_t i = json_skip_space(text, at + 1);
  if (i < text.size() && text[i] == closing) {
    c.close = i;
    return c;
  }
  for (;;) {
    Item item;
    item.begin = i;
    if (is_object) {
      const std::size_t key_end = i < text.size() && text[i] == '"' ? json_value_end(text, i) : k_no_item;
      if (key_end == k_no_item) return std::nullopt;
      const JsonParse key = parse_json(text.substr(i, key_end - i));
      if (!key || !key->is_string()) return std::nullopt;
      item.key = std::string(key->get_string());
      i = json_skip_space(text, key_end);
      if (i >= text.size() || text[i] != ':') return std::nullopt;
      i = json_skip_space(text, i + 1);
    }
    item.value_begin = i;
    item.end = json_value_end(text, i);
    if (item.end == k_no_item || item.end == i) return std::nullopt;
    i = json_skip_space(text, item.end);
    c.items.push_back(std::move(item));
    if (i < text.size() && text[i] == ',') {
      i = json_skip_space(text, i + 1);
      continue;
    }
    if (i < text.size() && text[i] == closing) {
      c.close = i;
      return c;
    }
    return std::nullopt;
  }
}

/// The spaces and tabs that begin the line `pos` is on.
std::string line_indent(std::string_view text, std::size_t pos) {
  const std::size_t newline = pos == 0 ? k_no_item : text.rfind('\n', pos - 1);
  const std::size_t start = newline == k_no_item ? 0 : newline + 1;
  std::size_t i = start;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return std::string(text.substr(start, i - start));
}

/// `value` on one line, with a space after each ':' and ',' (`{"X": "y"}`).
void write_one_line(std::string& out, const json::value& value) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& kv : value.get_object()) {
      out += first ? "" : ", ";
      first = false;
      out += json::serialize(json::value(kv.key())) + ": ";
      write_one_line(out, kv.value());
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& item : value.get_array()) {
      out += first ? "" : ", ";
      first = false;
      write_one_line(out, item);
    }
    out += ']';
  } else {
    std::string scalar = pretty_json(value);
    while (!scalar.empty() && scalar.back() == '\n') scalar.pop_back();
    out += scalar;
  }
}

enum class OneLine { no, yes };

/// `value` written anew for a line that begins with `indent`: pretty, each level indented by `unit`, its lines
/// indented to sit there.
std::string fresh(const json::value& value, const std::string& indent, std::string_view unit, OneLine one_line) {
  std::string out;
  if (one_line == OneLine::yes) {
    write_one_line(out, value);
    return out;
  }
  std::string text = pretty_json(value, unit);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

/// How a container lays out its items: what a new item is indented by, each level inside it by, and separated with.
struct Layout {
  std::string indent;
  std::string unit = "  ";
  OneLine one_line = OneLine::no;
  std::string separator;
};

/// One item of the rewritten container, and which old item it stands for (k_no_item for a new one).
struct Piece {
  std::string text;
  std::size_t from = k_no_item;
};

class Rewriter {
public:
  explicit Rewriter(std::string_view text) : m_text(text) {}

  /// The text of the value at [begin, end), which the whole text's parse read as `was`, once it is `now`. (Compared
  /// as the whole text read it: Boost.JSON 1.81 may read the same digits as another double in another text.)
  std::string value(std::size_t begin, std::size_t end, const json::value& was, const json::value& now) {
    if (same_json(was, now)) return std::string(slice(begin, end));
    const char first = m_text[begin];
    if ((first == '{' && now.is_object() && was.is_object()) || (first == '[' && now.is_array() && was.is_array())) {
      if (const std::optional<Container> c = scan_container(m_text, begin)) {
        if (first == '{') {
          if (auto text = object(*c, was.get_object(), now.get_object())) return *text;
        } else {
          if (auto text = list(*c, was.get_array(), now.get_array())) return *text;
        }
      }
    }
    return fresh(now, line_indent(m_text, begin), "  ", OneLine::no);
  }

private:
  std::string_view slice(std::size_t from, std::size_t to) const { return m_text.substr(from, to - from); }

  Layout layout_of(const Container& c) const {
    Layout l;
    if (c.items.empty()) {
      l.indent = line_indent(m_text, c.open) + "  ";
      l.separator = ",\n" + l.indent;
      return l;
    }
    const std::string_view lead = slice(c.open + 1, c.items.front().begin);
    l.one_line = lead.find('\n') == k_no_item ? OneLine::yes : OneLine::no;
    l.indent = line_indent(m_text, c.items.front().begin);
    // The file's own indent step: how much deeper the items sit than the line the container opens on.
    const std::string outer = line_indent(m_text, c.open);
    if (l.one_line == OneLine::no && l.indent.size() > outer.size() && l.indent.compare(0, outer.size(), outer) == 0) {
      l.unit = l.indent.substr(outer.size());
    }
    if (c.items.size() >= 2) l.separator = std::string(slice(c.items[0].end, c.items[1].begin));
    else l.separator = l.one_line == OneLine::yes && lead.empty() ? ", " : "," + std::string(lead);
    return l;
  }

  /// The container's brackets around `pieces`: an old item keeps the bytes that followed it as the separator
  /// after it (a new one, and the last, take the container's usual separator), and the text before the first item
  /// and after the last stays.
  std::string join(const Container& c, const std::vector<Piece>& pieces, const Layout& layout) const {
    const char opening = m_text[c.open];
    const char closing = m_text[c.close];
    if (pieces.empty()) return {opening, closing};
    std::string out;
    if (c.items.empty()) out = std::string(1, opening) + "\n" + layout.indent;
    else out = std::string(slice(c.open, c.items.front().begin));
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      if (k > 0) {
        const std::size_t a = pieces[k - 1].from;
        out += a != k_no_item && a + 1 < c.items.size() ? std::string(slice(c.items[a].end, c.items[a + 1].begin))
                                                     : layout.separator;
      }
      out += pieces[k].text;
    }
    if (c.items.empty()) out += "\n" + line_indent(m_text, c.open) + closing;
    else out += slice(c.items.back().end, c.close + 1);
    return out;
  }

  /// A key written twice counts at its last place (as Boost.JSON and JavaScript's JSON.parse read it): the earlier
  /// ones keep their bytes while it stays, and all go when it goes.
  std::optional<std::string> object(const Container& c, const json::object& was, const json::object& now) {
    std::map<std::string_view, std::size_t> last; // each key's last place
    for (std::size_t i = 0; i < c.items.size(); ++i) last[c.items[i].key] = i;
    const Layout layout = layout_of(c);
    std::vector<Piece> pieces;
    for (std::size_t i = 0; i < c.items.size(); ++i) {
      const Item& item = c.items[i];
      const json::value* v = now.if_contains(item.key);
      if (v == nullptr) continue;
      if (last[item.key] != i) {
        pieces.push_back({std::string(slice(item.begin, item.end)), i});
        continue;
      }
      const json::value* old = was.if_contains(item.key);
      if (old == nullptr) return std::nullopt; // the scan and the parse disagree: write it anew
      const std::string text = value(item.value_begin, item.end, *old, *v);
      pieces.push_back({std::string(slice(item.begin, item.value_begin)) + text, i});
    }
    for (const auto& kv : now) {
      if (last.count(std::string_view(kv.key())) != 0) continue;
      const std::string text = fresh(kv.value(), layout.indent, layout.unit, layout.one_line);
      pieces.push_back({json::serialize(json::value(kv.key())) + ": " + text});
    }
    return join(c, pieces, layout);
  }

  /// Old and new elements matched: equal ones by the longest common run, the rest by position between them.
  std::optional<std::string> list(const Container& c, const json::array& old, const json::array& now) {
    const std::size_t n = c.items.size();
    const std::size_t m = now.size();
    if (old.size() != n) return std::nullopt; // the scan and the parse disagree: write it anew
    std::vector<std::pair<std::size_t, std::size_t>> matches; // (old, new), both increasing
    if ((n + 1) * (m + 1) <= k_max_alignment_cells) {
      std::vector<std::size_t> run((n + 1) * (m + 1), 0); // run[i*(m+1)+j]: common run of old[i..], now[j..]
      const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return run[i * (m + 1) + j]; };
      for (std::size_t i = n; i-- > 0;) {
        for (std::size_t j = m; j-- > 0;) {
          at(i, j) = same_json(old[i], now[j]) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
        }
      }
      for (std::size_t i = 0, j = 0; i < n && j < m;) {
        if (same_json(old[i], now[j])) matches.emplace_back(i++, j++);
        else if (at(i + 1, j) >= at(i, j + 1)) ++i;
        else ++j;
      }
    }
    matches.emplace_back(n, m); // the end, as one more match
    const Layout layout = layout_of(c);
    std::vector<Piece> pieces;
    std::size_t i = 0;
    std::size_t j = 0;
    for (const auto& [mi, mj] : matches) {
      for (; i < mi && j < mj; ++i, ++j) pieces.push_back({value(c.items[i].begin, c.items[i].end, old[i], now[j]), i});
      for (; j < mj; ++j) pieces.push_back({fresh(now[j], layout.indent, layout.unit, layout.one_line)});
      // Old elements left in the gap are gone.
      if (mi < n) pieces.push_back({std::string(slice(c.items[mi].begin, c.items[mi].end)), mi});
      i = mi + 1;
      j = mj + 1;
    }
    return join(c, pieces, layout);
  }

  std::string_view m_text;
};

} // namespace

std::string rewrite_json(std::string_view before, const json::value& after) {
  const std::size_t begin = json_skip_space(before, 0);
  if (begin >= before.size()) return pretty_json(after);
  const JsonParse was = parse_json(before, JsonComments::allowed);
  if (!was) return pretty_json(after);
  const std::size_t end = json_value_end(before, begin);
  if (end == k_no_item || json_skip_space(before, end) != before.size()) return pretty_json(after);
  Rewriter rewriter(before);
  return std::string(before.substr(0, begin)) + rewriter.value(begin, end, *was, after) +
         std::string(before.substr(end));
}

} // namespace mcphealth::util
