#include "output.hpp"

#include "choices.hpp"

#include <mcphealth/util/json.hpp>

#include <mcphealth/util/env.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <ctime>
#include <map>
#include <cstdlib>
#include <sys/ioctl.h>
#include <unistd.h>

namespace mcphealth::cli {

bool use_color(std::FILE* stream) {
  if (const char* no = std::getenv("NO_COLOR"); no != nullptr && *no != '\0') return false;
  if (const char* term = std::getenv("TERM"); term != nullptr && std::string_view(term) == "dumb") return false;
  return ::isatty(::fileno(stream)) != 0;
}

std::optional<std::size_t> terminal_width() {
  if (const char* cols = std::getenv("COLUMNS"); cols != nullptr) {
    const long n = std::atol(cols);
    if (n >= 20) return static_cast<std::size_t>(n);
  }
  if (::isatty(STDOUT_FILENO) == 0) return std::nullopt;
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 100;
}

std::size_t terminal_height() {
  if (const char* lines = std::getenv("LINES"); lines != nullptr) {
    const long n = std::atol(lines);
    if (n >= 5) return static_cast<std::size_t>(n);
  }
  winsize ws{};
  if (::isatty(STDOUT_FILENO) != 0 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row >= 5) return ws.ws_row;
  return 24;
}

std::string local_time(util::EpochMs at, util::EpochMs now) {
  const std::time_t t = static_cast<std::time_t>(at / 1000);
  const std::time_t n = static_cast<std::time_t>(now / 1000);
  std::tm tm{}, today{};
  ::localtime_r(&t, &tm);
  ::localtime_r(&n, &today);
  char buf[32];
  const bool same_day = tm.tm_year == today.tm_year && tm.tm_yday == today.tm_yday;
  std::strftime(buf, sizeof buf, same_day ? "%H:%M:%S" : "%b %d %H:%M:%S", &tm);
  return buf;
}

std::string tilde(const std::string& path) {
  const std::string home = util::home_dir(util::ProcessEnvironment{}).string();
  if (home.empty() || home == "/") return path;
  if (path == home) return "~";
  if (path.size() > home.size() && path.compare(0, home.size(), home) == 0 && path[home.size()] == '/') {
    return "~" + path.substr(home.size());
  }
  return path;
}

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string fit_width(std::string_view text, std::size_t width) {
  if (display_width(text) <= width) return std::string(text);
  if (width == 0) return {};
  std::string out;
  std::size_t cols = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (cols + 1 == width) break;
      ++cols;
    }
    out += text[i];
  }
  return out + "…";
}

namespace {
const char* ansi(Color c) {
  switch (c) {
  case Color::green: return "\033[32m";
  case Color::yellow: return "\033[33m";
  case Color::red: return "\033[31m";
  case Color::dim: return "\033[2m";
  case Color::none: break;
  }
  return "";
}
} // namespace

std::string paint(const Cell& cell, bool color) {
  if (!color || cell.color == Color::none) return cell.text;
  return std::string(ansi(cell.color)) + cell.text + "\033[0m";
}

Cell health_cell(state::Health health) {
  using state::Health;
  const std::string text = std::string(state::health_symbol(health)) + " " + std::string(state::health_words(health));
  switch (health) {
  case Health::healthy:
  case Health::reachable: return {text, Color::green};
  case Health::needs_auth:
  case Health::alive_silent: return {text, Color::yellow};
  case Health::unhealthy:
  case Health::misconfigured: return {text, Color::red};
  case Health::unknown:
  case Health::not_probed:
  case Health::skipped: break;
  }
  return {text, Color::dim};
}

void add_format_options(CLI::App& sub, Format& format) {
  CLI::Option* output = sub.add_option("-o,--output", format, std::string("Output format: ") + k_format_help)
                            ->transform(one_of<Format>({{"table", Format::table}, {"wide", Format::wide},
                                                        {"json", Format::json}, {"name", Format::name}}))
                            ->type_name("FORMAT");
  CLI::Option* json = sub.add_flag_callback("--json", [&format] { format = Format::json; }, "Same as -o json");
  CLI::Option* wide = sub.add_flag_callback("--wide", [&format] { format = Format::wide; }, "Same as -o wide");
  output->excludes(json)->excludes(wide);
  json->excludes(wide);
}

void Table::add(std::vector<Cell> row) {
  for (Cell& cell : row) cell.text = util::escape_control(cell.text);
  m_rows.push_back(std::move(row));
}

std::string Table::render(bool color, std::optional<std::size_t> width) const {
  const std::size_t n = m_headers.size();
  std::vector<std::size_t> widths(n);
  for (std::size_t c = 0; c < n; ++c) widths[c] = display_width(m_headers[c]);
  for (const auto& row : m_rows) {
    for (std::size_t c = 0; c < row.size() && c < n; ++c) widths[c] = std::max(widths[c], display_width(row[c].text));
  }
  // The last column gets what is left of the line, and at least 10; narrower than that, columns go by priority.
  std::vector<bool> shown(n, true);
  const auto fixed = [&] {
    std::size_t used = 0;
    for (std::size_t c = 0; c + 1 < n; ++c) used += shown[c] ? widths[c] + 2 : 0;
    return used;
  };
  if (width) {
    for (std::size_t c : m_drop_order) {
      if (fixed() + 10 <= *width) break;
      if (c + 1 < n) shown[c] = false;
    }
  }
  const std::size_t used = fixed();
  const std::size_t last_room = !width ? std::string::npos : *width > used + 10 ? *width - used : 10;
  auto line = [&](const std::vector<Cell>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size() && c < n; ++c) {
      if (!shown[c]) continue;
      const bool last = c + 1 == n;
      std::string text = last ? fit_width(cells[c].text, last_room) : cells[c].text;
      const std::size_t pad = last ? 0 : widths[c] - display_width(text) + 2;
      out += paint({text, cells[c].color}, color);
      out.append(pad, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<Cell> header;
  for (const auto& h : m_headers) header.push_back({h, Color::none});
  std::string out = line(header);
  for (const auto& row : m_rows) out += line(row);
  return out;
}

std::string wrap_words(std::string_view text, std::optional<std::size_t> width, std::size_t first_used,
                       std::string_view indent) {
  if (!width) return std::string(text);
  const std::size_t indent_width = display_width(indent);
  std::string out;
  std::size_t used = first_used;
  bool line_empty = true;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t space = text.find(' ', i);
    const std::string_view word = text.substr(i, space == std::string_view::npos ? std::string_view::npos : space - i);
    i = space == std::string_view::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    const std::size_t w = display_width(word);
    if (!line_empty && used + 1 + w > *width) {
      out += "\n";
      out += indent;
      used = indent_width;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++used;
    }
    out += word;
    used += w;
    line_empty = false;
  }
  return out;
}

std::string hint_lines(std::string_view name, std::string_view hint, std::string_view reason,
                       std::optional<std::size_t> width) {
  if (hint.empty()) return {};
  const std::string head = "hint: " + util::escape_control(name) + ": ";
  std::string out = head + wrap_words(util::escape_control(hint), width, display_width(head), "  ") + "\n";
  if (width && !reason.empty()) out += "  why: " + wrap_words(util::escape_control(reason), width, 7, "       ") + "\n";
  return out;
}

void print_json(const boost::json::value& value) {
  std::fputs(util::escape_invisible(util::pretty_json(value)).c_str(), stdout);
}

} // namespace mcphealth::cli
