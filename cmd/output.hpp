#pragma once
// Output shared by the listing commands: whether to colour, terminal width, and a plain table that measures text
// by what a terminal shows (✔ is one column, not three bytes).
#include <mcphealth/state/health.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/text.hpp>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::cli {

/// Prints a line whose arguments are text from outside (names, paths, commands, URLs, reasons), each escaped
/// (util::escape_control), so none of it can drive the terminal: a repository's `.mcp.json` names what is shown.
template <typename... Args>
void say(const char* format, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    std::fputs(format, stdout); // a fixed line: no format to read (clang's -Wformat-security)
  } else {
    std::printf(format, util::escape_control(args).c_str()...);
  }
}

/// True when `stream` is a terminal, `NO_COLOR` is unset or empty, and `TERM` is not `dumb`.
bool use_color(std::FILE* stream);

/// How wide a table may be: `COLUMNS` when set, else the terminal's width when stdout is one; nothing (never cut)
/// when stdout is a pipe or a file, so `status | grep` sees every character.
std::optional<std::size_t> terminal_width();

/// How tall the terminal is: `LINES` when set, else the terminal's height when stdout is one; 24 otherwise.
std::size_t terminal_height();

/// A time people read, in local time: `02:14:07` on `now`'s day, `Dec 02 23:40:05` before.
std::string local_time(util::EpochMs at, util::EpochMs now);

/// `path` with the home folder written `~` (`/home/u/src/app` -> `~/src/app`), for tables people read.
std::string tilde(const std::string& path);

/// The number of terminal columns `text` takes (code points; wide characters are not special-cased).
std::size_t display_width(std::string_view text);

/// Cuts `text` to at most `width` columns, ending with `…` when cut.
std::string fit_width(std::string_view text, std::size_t width);

/// `text` broken at spaces into lines of at most `width` columns (a word longer than that stays whole on its own
/// line), every line after the first starting with `indent`; with no width (a pipe), `text` as it is.
std::string wrap_words(std::string_view text, std::optional<std::size_t> width, std::size_t first_used,
                       std::string_view indent);
/// The lines under a table for one row: `hint: NAME: HINT`, and on a terminal (a `width`, where the table cuts the
/// reason to fit) the whole `reason` under it; each wrapped at spaces, never mid-word. Empty without a hint.
std::string hint_lines(std::string_view name, std::string_view hint, std::string_view reason,
                       std::optional<std::size_t> width);
/// ANSI colours for table cells.
enum class Color { none, green, yellow, red, dim };

/// One cell: its text and colour.
struct Cell {
  std::string text;
  Color color = Color::none;
};

/// `cell`'s text, in its colour when `color` says so (ANSI escapes).
std::string paint(const Cell& cell, bool color);
/// A health in a table: its symbol and words, coloured (green up, yellow up with a caveat, red down, dim unknown).
Cell health_cell(state::Health health);

/// How a listing command prints: `table` (cut to the terminal), `wide` (never cut), `json`, or `name` (one name per
/// line). `-o FORMAT`, with `--json` and `--wide` as the short ways to say it.
enum class Format { table, wide, json, name };
inline const char* const k_format_help = "table (default), wide (never cut), json, or name (one per line)";
/// Adds `-o,--output FORMAT`, `--json` and `--wide` to `sub`, all writing `format`.
void add_format_options(CLI::App& sub, Format& format);

/// A table with a header row. The last column is cut to fit the terminal; when even that leaves it too narrow, the
/// columns of `drop_order` (indexes, the least needed first) are left out until the rest fits.
class Table {
public:
  explicit Table(std::vector<std::string> headers, std::vector<std::size_t> drop_order = {})
      : m_headers(std::move(headers)), m_drop_order(std::move(drop_order)) {}
  /// Adds a row (as many cells as headers); control characters in the cells are escaped, so a name or an error
  /// from outside can neither break a row nor drive the terminal.
  void add(std::vector<Cell> row);
  /// Renders the table; `color` adds ANSI escapes, `width` bounds each line (nothing: never cut).
  std::string render(bool color, std::optional<std::size_t> width) const;

private:
  std::vector<std::string> m_headers;
  std::vector<std::size_t> m_drop_order;
  std::vector<std::vector<Cell>> m_rows;
};

/// Prints `value` as `--json` does: pretty, and with the characters a terminal acts on escaped
/// (util::escape_invisible).
void print_json(const boost::json::value& value);

} // namespace mcphealth::cli
