#pragma once
// Boost.JSON helpers: parsing as a value-or-error, lenient field access, and a stable pretty printer
// (Boost.JSON 1.81 has none, and prints doubles as `1.5E0`; the state file holds only integers and strings).
#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::util {

/// The outcome of parsing JSON text: a value, or a message with the line and column where it failed.
struct JsonParse {
  std::optional<boost::json::value> value;
  std::string error;
  std::size_t line = 0;
  std::size_t column = 0;
};

/// Parses `text`; never throws.
JsonParse parse_json(std::string_view text);

/// Returns `obj[key]` if it is an object.
const boost::json::object* get_object(const boost::json::object& obj, std::string_view key);

/// Returns `obj[key]` if it is a string.
std::optional<std::string> get_string(const boost::json::object& obj, std::string_view key);

/// Returns `obj[key]` if it is an integer (or a double with an integral value).
std::optional<std::int64_t> get_int(const boost::json::object& obj, std::string_view key);

/// Returns `obj[key]` if it is a boolean.
std::optional<bool> get_bool(const boost::json::object& obj, std::string_view key);

/// Serializes `value` with two-space indentation and a trailing newline, the way `JSON.stringify(v, null, 2)` does.
std::string pretty_json(const boost::json::value& value);

/// Cuts `text` to at most `max_chars` bytes without splitting a UTF-8 sequence.
std::string cap_utf8(std::string_view text, std::size_t max_chars);

/// Removes leading and trailing white space.
std::string trim(std::string_view text);

} // namespace mcphealth::util
