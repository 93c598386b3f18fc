#pragma once
// Boost.JSON helpers: parsing as a value-or-error, lenient field access, and a stable pretty printer
// (Boost.JSON 1.81 has none, and prints doubles as `1.5E0`; the state file holds only integers and strings).
#include <mcphealth/util/text.hpp>

#include <mcphealth/util/result.hpp>

#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::util {

/// Where in a text something is, as every message here says it: ` at line 3, column 7`; empty when the line is not
/// known (0).
std::string at_line(std::size_t line, std::size_t column);

/// Why JSON text did not parse, and where (1-based line and column).
struct JsonError {
  std::string message;
  std::size_t line = 0;
  std::size_t column = 0;

  /// `syntax error at line 3, column 7`.
  std::string text() const;
};

/// The outcome of parsing JSON text.
using JsonParse = Result<boost::json::value, JsonError>;

/// The deepest nesting any input may have: real hook payloads (a tool's arguments) and `~/.claude.json` go far
/// past Boost.JSON's default of 32.
inline constexpr std::size_t k_max_json_depth = 10'000;

/// Parses `text`; never throws. Nesting up to `k_max_json_depth` is accepted, invalid UTF-8 is kept as it is, and
/// a lone surrogate escape (`"\ud800"`, which JavaScript's JSON.stringify writes for a cut emoji) becomes U+FFFD.
/// Whether `//` and `/* */` comments are read as white space: Gemini CLI strips them from its settings before
/// JSON.parse; Claude Code's files take none.
enum class JsonComments { refused, allowed };

/// The deepest nesting a hook payload is parsed to whole. Boost.JSON's parser recurses per level: at 9,000 levels
/// it overflows a 512 KB stack. A payload nested deeper (a tool's arguments) is read member by member instead
/// (parse_object_members), its deep parts as null.
inline constexpr std::size_t k_max_payload_depth = 256;

JsonParse parse_json(std::string_view text, JsonComments comments = JsonComments::refused,
                     std::size_t max_depth = k_max_json_depth);

/// Past white space and comments from `i`: a scanner's step between JSON tokens (a file without comments never has
/// a `/` there).
std::size_t json_skip_space(std::string_view text, std::size_t i);

/// The end of the JSON value that starts at `at` (past a string's closing quote, a container's closing bracket, a
/// number's or literal's last character), found without parsing and without recursion into containers, comments
/// skipped; npos when it does not end. For scanners that keep a document's bytes (util::rewrite_json) or read it
/// member by member (parse_object_members).
std::size_t json_value_end(std::string_view text, std::size_t at);

/// `text`'s top-level object when `parse_json` refuses it as a whole (a member nested past k_max_json_depth):
/// each member parsed on its own, an object member that still fails read the same way down to `levels` objects,
/// and what still fails left as null. So a payload's fields stay readable whatever shape a tool's arguments take.
/// Nothing when `text` is not an object to begin with, or its top level is broken.
std::optional<boost::json::object> parse_object_members(std::string_view text, int levels = 4,
                                                        std::size_t max_depth = k_max_json_depth);

/// Returns `text` with every `\uD800`-`\uDFFF` escape that is not half of a valid pair replaced by `\uFFFD`;
/// nothing when there was none.
std::optional<std::string> repair_lone_surrogates(std::string_view text);

/// Returns `obj[key]` if it is an object.
const boost::json::object* get_object(const boost::json::object& obj, std::string_view key);

/// Returns `obj[key]` if it is a string.
std::optional<std::string> get_string(const boost::json::object& obj, std::string_view key);

/// Returns `obj[key]` if it is an integer (or a double with an integral value).
std::optional<std::int64_t> get_int(const boost::json::object& obj, std::string_view key);

/// The latest instant a file may name, in ms since the epoch (year 33658). Times read from files are clamped to
/// [0, this], so that adding a TTL, a backoff or a month to one can never overflow.
inline constexpr std::int64_t k_max_epoch_ms = 1'000'000'000'000'000;

/// Returns `obj[key]` as a time in ms since the epoch, clamped to [0, k_max_epoch_ms], if it is an integer.
std::optional<std::int64_t> get_epoch_ms(const boost::json::object& obj, std::string_view key);

/// Returns `v` as an integer if it is one that fits an int64 (an integral double, as JavaScript writes, counts).
std::optional<std::int64_t> as_int(const boost::json::value& v);

/// Returns `obj[key]` if it is a boolean.
std::optional<bool> get_bool(const boost::json::object& obj, std::string_view key);

/// Whether `a` and `b` hold the same JSON, a NaN (what Boost.JSON 1.81 reads `0e400` as) counting as itself.
bool same_json(const boost::json::value& a, const boost::json::value& b);

/// `json_text` with the characters a terminal acts on but JSON leaves raw written as `\uXXXX`: C1 controls
/// (U+0080-U+009F), the bidirectional marks and overrides (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)
/// and the line separators (U+2028, U+2029). The same JSON to any parser; text from a server or a repository can
/// no longer reorder or hide what a person reads of `--json` in a terminal.
std::string escape_invisible(std::string_view json_text);

/// Serializes `value` with two-space indentation (or `unit` for each level) and a trailing newline, the way
/// `JSON.stringify(v, null, 2)` does.
std::string pretty_json(const boost::json::value& value, std::string_view unit = "  ");


} // namespace mcphealth::util
