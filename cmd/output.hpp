#pragma once
// Output shared by the listing commands: whether to colour, terminal width, and a plain table that measures text
// by what a terminal shows (✔ is one column, not three bytes).
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::cli {

/// True when `stream` is a terminal, `NO_COLOR` is unset or empty, and `TERM` is not `dumb`.
bool use_color(std::FILE* stream);

/// The terminal's width in columns: `COLUMNS`, else the tty's, else 100.
std::size_t terminal_width();

/// The number of terminal columns `text` takes (code points; wide characters are not special-cased).
std::size_t display_width(std::string_view text);

/// Cuts `text` to at most `width` columns, ending with `…` when cut.
std::string fit_width(std::string_view text, std::size_t width);

/// ANSI colours for table cells.
enum class Color { none, green, yellow, red, dim };

/// One cell: its text and colour.
struct Cell {
  std::string text;
  Color color = Color::none;
};

/// A table with a header row. The last column is cut to fit the terminal.
class Table {
public:
  explicit Table(std::vector<std::string> headers) : m_headers(std::move(headers)) {}
  /// Adds a row (as many cells as headers); control characters in the cells are escaped, so a name or an error
  /// from outside can neither break a row nor drive the terminal.
  void add(std::vector<Cell> row);
  /// Renders the table; `color` adds ANSI escapes, `width` bounds each line.
  std::string render(bool color, std::size_t width) const;

private:
  std::vector<std::string> m_headers;
  std::vector<std::vector<Cell>> m_rows;
};

} // namespace mcphealth::cli
