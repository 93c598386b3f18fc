// toml++ is compiled in, header-only, in this one file: Debian's shared libtomlplusplus would be one more library
// for every hook run to load, and the hook reads TOML only on its slow path.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#define TOML_ENABLE_FORMATTERS 1
#include <mcphealth/util/toml.hpp>

#include <toml++/toml.h>

#include <sstream>

namespace mcphealth::util {

namespace json = boost::json;

namespace {

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
  std::ostringstream text; // a date, a time, a date-time
  node.visit([&](const auto& v) { text << v; });
  return json::value(text.str());
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
