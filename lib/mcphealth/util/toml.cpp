// toml++ is compiled in, header-only, in this one file: Debian's shared libtomlplusplus would be one more library
// for every hook run to load, and the hook reads TOML only on its slow path.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
// No formatters: dates are written below, and toml++'s formatter alone pulled libm into the binary (log10), a
// shared library more for every hook start to load.
#define TOML_ENABLE_FORMATTERS 0
#include <mcphealth/util/toml.hpp>

#include <toml++/toml.h>

#include <cstdio>
#include <cstdlib>

namespace mcphealth::util {

namespace json = boost::json;

namespace {

/// A TOML date as RFC 3339 writes it: `1979-05-27`.
std::string date_text(const toml::date& d) {
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02d-%02d", static_cast<int>(d.year), static_cast<int>(d.month),
                static_cast<int>(d.day));
  return text;
}

/// A TOML time: `07:32:00`, with its fraction when it has one (`07:32:00.999999`, trailing zeros dropped).
std::string time_text(const toml::time& t) {
  char text[32];
  std::snprintf(text, sizeof text, "%02d:%02d:%02d", static_cast<int>(t.hour), static_cast<int>(t.minute),
                static_cast<int>(t.second));
  std::string out = text;
  if (t.nanosecond != 0) {
    std::snprintf(text, sizeof text, ".%09u", static_cast<unsigned>(t.nanosecond));
    std::string fraction = text;
    while (fraction.back() == '0') fraction.pop_back();
    out += fraction;
  }
  return out;
}

json::value to_json(const toml::node& node) {
  if (const toml::table* t = node.as_table()) {
    json::object out;
    for (const auto& [key, value] : *t) out[std::string(key.str())] = to_json(value);
    return out;
  }
  if (const toml::array* a = node.as_array()) {
    json::array out;
    for (const toml::node& item : *a) out.push_back(to_json(item));
    return out;
  }
  if (auto s = node.value_exact<std::string>()) return json::value(*s);
  if (auto i = node.value_exact<std::int64_t>()) return json::value(*i);
  if (auto d = node.value_exact<double>()) return json::value(*d);
  if (auto b = node.value_exact<bool>()) return json::value(*b);
  if (auto d = node.value_exact<toml::date>()) return json::value(date_text(*d));
  if (auto t = node.value_exact<toml::time>()) return json::value(time_text(*t));
  if (auto dt = node.value_exact<toml::date_time>()) {
    std::string text = date_text(dt->date) + "T" + time_text(dt->time);
    if (dt->offset) {
      const int minutes = dt->offset->minutes;
      if (minutes == 0) {
        text += "Z";
      } else {
        char offset[8];
        std::snprintf(offset, sizeof offset, "%c%02d:%02d", minutes < 0 ? '-' : '+', std::abs(minutes) / 60,
                      std::abs(minutes) % 60);
        text += offset;
      }
    }
    return json::value(text);
  }
  return json::value(nullptr);
}

} // namespace

JsonParse parse_toml(std::string_view text) {
  toml::parse_result parsed = toml::parse(text);
  if (!parsed) {
    const toml::parse_error& e = parsed.error();
    return fail(JsonError{std::string(e.description()), static_cast<std::size_t>(e.source().begin.line),
                          static_cast<std::size_t>(e.source().begin.column)});
  }
  return JsonParse(to_json(parsed.table()));
}

} // namespace mcphealth::util
