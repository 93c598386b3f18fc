// Boost.JSON is compiled into the core (not loaded as a shared library): each shared C++ library costs the hook
// 0.5-1 ms of start-up (../shared/PERF-NOTES.md).
#include <boost/json/src.hpp>

#include <mcphealth/util/json.hpp>

#include <cmath>

namespace mcphealth::util {

namespace json = boost::json;

JsonParse parse_json(std::string_view text) {
  JsonParse out;
  json::parse_options opts;
  opts.allow_comments = false;
  json::stream_parser parser({}, opts);
  boost::system::error_code ec;
  // On an error, write() returns how much it consumed: that is where the error is.
  std::size_t consumed = parser.write(text.data(), text.size(), ec);
  if (!ec) parser.finish(ec);
  if (ec) {
    out.line = 1;
    out.column = 1;
    for (std::size_t i = 0; i < consumed && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++out.line;
        out.column = 1;
      } else {
        ++out.column;
      }
    }
    out.error = ec.message();
    return out;
  }
  out.value = parser.release();
  return out;
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
  const json::value& v = it->value();
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

void write_pretty(std::string& out, const json::value& v, int depth) {
  const std::string indent(static_cast<std::size_t>(depth + 1) * 2, ' ');
  const std::string closing(static_cast<std::size_t>(depth) * 2, ' ');
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
      write_pretty(out, kv.value(), depth + 1);
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
      write_pretty(out, item, depth + 1);
    }
    out += "\n" + closing + "]";
  } else {
    write_scalar(out, v);
  }
}

} // namespace

std::string pretty_json(const json::value& value) {
  std::string out;
  write_pretty(out, value, 0);
  out += "\n";
  return out;
}

std::string cap_utf8(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  std::size_t cut = max_chars;
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

} // namespace mcphealth::util
