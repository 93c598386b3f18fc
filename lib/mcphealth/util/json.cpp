// Boost.JSON is compiled into the core (not loaded as a shared library): each shared C++ library costs the hook
// 0.5-1 ms of start-up (../shared/PERF-NOTES.md).
#include <boost/json/src.hpp>

#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace mcphealth::util {

namespace json = boost::json;

namespace {

JsonParse parse_once(std::string_view text, JsonComments comments, std::size_t max_depth) {
  json::parse_options opts;
  opts.allow_comments = comments == JsonComments::allowed;
  opts.max_depth = max_depth;
  opts.allow_invalid_utf8 = true;
  // The parser's own stack on ours: one allocation fewer per parse, and most of its growth.
  unsigned char stack[4096];
  json::stream_parser parser({}, opts, stack, sizeof stack);
  boost::system::error_code ec;
  // On an error, write() returns how much it consumed: that is where the error is.
  std::size_t consumed = parser.write(text.data(), text.size(), ec);
  if (!ec) parser.finish(ec);
  if (ec) {
    JsonError error{ec.message(), 1, 1};
    for (std::size_t i = 0; i < consumed && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++error.line;
        error.column = 1;
      } else {
        ++error.column;
      }
    }
    return fail(std::move(error));
  }
  return parser.release();
}

bool is_hex4(std::string_view s, std::size_t at) {
  if (at + 4 > s.size()) return false;
  for (std::size_t i = at; i < at + 4; ++i) {
    if (std::isxdigit(static_cast<unsigned char>(s[i])) == 0) return false;
  }
  return true;
}

unsigned hex4(std::string_view s, std::size_t at) { return static_cast<unsigned>(std::stoul(std::string(s.substr(at, 4)), nullptr, 16)); }

} // namespace

std::optional<std::string> repair_lone_surrogates(std::string_view text) {
  std::string out;
  bool changed = false;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_string) {
      if (c == '"') in_string = true;
      out += c;
      continue;
    }
    if (c == '"') {
      in_string = false;
      out += c;
      continue;
    }
    if (c != '\\' || i + 1 >= text.size()) {
      out += c;
      continue;
    }
    if (text[i + 1] != 'u' || !is_hex4(text, i + 2)) { // another escape: copy it whole, so \\ is never a \u
      out += c;
      out += text[++i];
      continue;
    }
    const unsigned unit = hex4(text, i + 2);
    const bool high = unit >= 0xD800 && unit <= 0xDBFF, low = unit >= 0xDC00 && unit <= 0xDFFF;
    if (high && i + 12 <= text.size() && text.compare(i + 6, 2, "\\u") == 0 && is_hex4(text, i + 8) &&
        hex4(text, i + 8) >= 0xDC00 && hex4(text, i + 8) <= 0xDFFF) {
      out.append(text.substr(i, 12)); // a valid pair
      i += 11;
      continue;
    }
    if (high || low) {
      out += "\\uFFFD";
      changed = true;
    } else {
      out.append(text.substr(i, 6));
    }
    i += 5;
  }
  if (!changed) return std::nullopt;
  return out;
}

std::string at_line(std::size_t line, std::size_t column) {
  if (line == 0) return {};
  return " at line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::string JsonError::text() const { return message + at_line(line, column); }

JsonParse parse_json(std::string_view text, JsonComments comments, std::size_t max_depth) {
  JsonParse out = parse_once(text, comments, max_depth);
  if (out) return out;
  // Boost.JSON 1.81 has no switch for lone surrogates: mend them in the text and try once more.
  if (std::optional<std::string> mended = repair_lone_surrogates(text)) {
    if (JsonParse again = parse_once(*mended, comments, max_depth)) out = std::move(again);
  }
  return out;
}

namespace {

constexpr std::size_t k_none = std::string_view::npos;

/// The end of the comment that starts at `at` (`//` to the line's end, `/* */`), or `at` when none starts there.
std::size_t comment_end(std::string_view text, std::size_t at) {
  if (at + 1 >= text.size() || text[at] != '/') return at;
  if (text[at + 1] == '/') {
    const std::size_t newline = text.find('\n', at);
    return newline == k_none ? text.size() : newline;
  }
  if (text[at + 1] == '*') {
    const std::size_t close = text.find("*/", at + 2);
    return close == k_none ? text.size() : close + 2;
  }
  return at;
}

} // namespace

std::size_t json_skip_space(std::string_view text, std::size_t i) {
  for (;;) {
    while (i < text.size() && std::string_view(" \t\r\n").find(text[i]) != k_none) ++i;
    const std::size_t after = comment_end(text, i);
    if (after == i) return i;
    i = after;
  }
}

std::size_t json_value_end(std::string_view text, std::size_t at) {
  if (at >= text.size()) return k_none;
  if (text[at] == '"') {
    for (std::size_t i = at + 1; i < text.size(); ++i) {
      if (text[i] == '\\') ++i;
      else if (text[i] == '"') return i + 1;
    }
    return k_none;
  }
  if (text[at] == '{' || text[at] == '[') {
    std::size_t depth = 0;
    for (std::size_t i = at; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"') {
        const std::size_t e = json_value_end(text, i);
        if (e == k_none) return e;
        i = e - 1;
      } else if (const std::size_t e = comment_end(text, i); e != i) {
        i = e - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return k_none;
  }
  std::size_t i = at; // a number or a literal
  while (i < text.size() && std::string_view(",}] \t\r\n").find(text[i]) == k_none) ++i;
  return i;
}

std::optional<json::object> parse_object_members(std::string_view text, int levels, std::size_t max_depth) {
  std::size_t i = 0;
  auto skip = [&] { i = json_skip_space(text, i); };
  skip();
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  ++i;
  json::object out;
  for (;;) {
    skip();
    if (i < text.size() && text[i] == '}') return out;
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    const std::size_t key_end = json_value_end(text, i);
    if (key_end == std::string_view::npos) return std::nullopt;
    const JsonParse key = parse_json(text.substr(i, key_end - i));
    if (!key || !key->is_string()) return std::nullopt;
    i = key_end;
    skip();
    if (i >= text.size() || text[i] != ':') return std::nullopt;
    ++i;
    skip();
    const std::size_t end = json_value_end(text, i);
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view slice = text.substr(i, end - i);
    JsonParse value = parse_json(slice, JsonComments::refused, max_depth);
    if (value) {
      out[key->get_string()] = std::move(*value);
    } else if (levels > 0 && !slice.empty() && slice.front() == '{') {
      std::optional<json::object> inner = parse_object_members(slice, levels - 1, max_depth);
      out[key->get_string()] = inner ? json::value(std::move(*inner)) : json::value(nullptr);
    } else {
      out[key->get_string()] = nullptr;
    }
    i = end;
    skip();
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == '}') return out;
    return std::nullopt;
  }
}

const json::object* get_object(const json::object& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->value().is_object()) return nullptr;
  return &it->value().get_object();
}

std::optional<std::string> get_string(const json::object& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->value().is_string()) return std::nullopt;
  return std::string(it->value().get_string());
}

std::optional<std::int64_t> get_int(const json::object& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  return as_int(it->value());
}

std::optional<std::int64_t> get_epoch_ms(const json::object& obj, std::string_view key) {
  const auto v = get_int(obj, key);
  if (!v) return std::nullopt;
  return std::clamp<std::int64_t>(*v, 0, k_max_epoch_ms);
}

std::optional<std::int64_t> as_int(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v.get_uint64());
  }
  if (v.is_double() && std::isfinite(v.get_double()) && std::floor(v.get_double()) == v.get_double() &&
      std::fabs(v.get_double()) < 9.0e18) {
    return static_cast<std::int64_t>(v.get_double());
  }
  return std::nullopt;
}

std::optional<bool> get_bool(const json::object& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->value().is_bool()) return std::nullopt;
  return it->value().get_bool();
}

namespace {

void write_scalar(std::string& out, const json::value& v) {
  if (v.is_double()) {
    // Integral doubles (from JS writers) are written as integers; others with enough digits to round-trip.
    double d = v.get_double();
    if (!std::isfinite(d)) {
      out += "null";
      return;
    }
    char buf[40];
    if (std::floor(d) == d && std::fabs(d) < 9.0e15) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d));
    } else {
      std::snprintf(buf, sizeof buf, "%.17g", d);
    }
    out += buf;
    return;
  }
  out += json::serialize(v);
}

void write_pretty(std::string& out, const json::value& v, std::string_view unit, std::size_t depth) {
  std::string closing;
  for (std::size_t i = 0; i < depth; ++i) closing += unit;
  const std::string indent = closing + std::string(unit);
  if (v.is_object()) {
    const auto& obj = v.get_object();
    if (obj.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (const auto& kv : obj) {
      if (!first) out += ",\n";
      first = false;
      out += indent;
      out += json::serialize(json::value(kv.key()));
      out += ": ";
      write_pretty(out, kv.value(), unit, depth + 1);
    }
    out += "\n" + closing + "}";
  } else if (v.is_array()) {
    const auto& arr = v.get_array();
    if (arr.empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    bool first = true;
    for (const auto& item : arr) {
      if (!first) out += ",\n";
      first = false;
      out += indent;
      write_pretty(out, item, unit, depth + 1);
    }
    out += "\n" + closing + "]";
  } else {
    write_scalar(out, v);
  }
}

} // namespace

bool same_json(const json::value& a, const json::value& b) {
  if (a.is_double() && b.is_double()) {
    const double x = a.get_double();
    const double y = b.get_double();
    return x == y || (std::isnan(x) && std::isnan(y));
  }
  if (a.is_object() && b.is_object()) {
    const json::object& p = a.get_object();
    const json::object& q = b.get_object();
    if (p.size() != q.size()) return false;
    return std::all_of(p.begin(), p.end(), [&](const json::key_value_pair& kv) {
      const json::value* other = q.if_contains(kv.key());
      return other != nullptr && same_json(kv.value(), *other);
    });
  }
  if (a.is_array() && b.is_array()) {
    const json::array& p = a.get_array();
    const json::array& q = b.get_array();
    return p.size() == q.size() && std::equal(p.begin(), p.end(), q.begin(), same_json);
  }
  return a == b;
}

std::string pretty_json(const json::value& value, std::string_view unit) {
  std::string out;
  write_pretty(out, value, unit, 0);
  out += "\n";
  return out;
}

std::string escape_invisible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escaped = [&](unsigned cp) {
    static constexpr char k_hex[] = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += k_hex[(cp >> shift) & 0xF];
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    const auto at = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0U; };
    if (b0 == 0xC2 && at(1) >= 0x80 && at(1) <= 0x9F) { // C1
      escaped(at(1));
      ++i;
    } else if (b0 == 0xD8 && at(1) == 0x9C) { // U+061C arabic letter mark
      escaped(0x061C);
      ++i;
    } else if (b0 == 0xE2 && at(1) == 0x80 && (at(2) == 0x8E || at(2) == 0x8F || (at(2) >= 0xA8 && at(2) <= 0xAE))) {
      escaped(0x2000 + (at(2) - 0x80)); // U+200E, U+200F, U+2028-U+202E
      i += 2;
    } else if (b0 == 0xE2 && at(1) == 0x81 && at(2) >= 0xA6 && at(2) <= 0xA9) {
      escaped(0x2040 + (at(2) - 0x80)); // U+2066-U+2069
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

} // namespace mcphealth::util
