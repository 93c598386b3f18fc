#include <mcphealth/config/variables_file.hpp>

#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cctype>

namespace mcphealth::config {

namespace fs = std::filesystem;

namespace {

bool key_char(char c, bool first) {
  return c == '_' || std::isalpha(static_cast<unsigned char>(c)) != 0 ||
         (!first && std::isdigit(static_cast<unsigned char>(c)) != 0);
}

bool plain_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("_./:@%+,=-").find(c) != std::string_view::npos;
}

bool is_key(std::string_view key) {
  if (key.empty()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (!key_char(key[i], i == 0)) return false;
  }
  return true;
}

/// The value of `text` (what follows `KEY=`) under the one rule: plain characters and single-quoted runs, joined
/// (`'it'\''s'`); nothing when the text breaks it.
std::optional<std::string> value_of(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      out.append(text.substr(i + 1, close - i - 1));
      i = close + 1;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\'') {
      out += '\'';
      i += 2;
    } else if (plain_char(c)) {
      out += c;
      ++i;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

} // namespace

fs::path variables_file(const fs::path& home) { return home / ".config" / "mcphealth" / "env"; }

std::vector<VariableLine> read_variable_lines(std::string_view text) {
  std::vector<VariableLine> out;
  for (const std::string& line : util::split_lines(text)) {
    VariableLine l{line};
    const std::size_t eq = line.find('=');
    if (!line.empty() && line[0] != '#' && eq != std::string::npos && is_key(std::string_view(line).substr(0, eq))) {
      if (auto value = value_of(std::string_view(line).substr(eq + 1))) {
        l.key = line.substr(0, eq);
        l.value = std::move(*value);
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::map<std::string, std::string> variables_in(std::string_view text) {
  std::map<std::string, std::string> out;
  for (VariableLine& l : read_variable_lines(text)) {
    if (l.key) out[*l.key] = std::move(l.value);
  }
  return out;
}

std::optional<std::string> variable_line(std::string_view key, std::string_view value) {
  if (!is_key(key)) return std::nullopt;
  if (std::any_of(value.begin(), value.end(), [](char c) {
        const auto b = static_cast<unsigned char>(c);
        return b < 0x20 || b == 0x7f;
      })) {
    return std::nullopt;
  }
  if (!value.empty() && std::all_of(value.begin(), value.end(), plain_char)) return std::string(key) + "=" + std::string(value);
  std::string quoted = "'";
  for (char c : value) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return std::string(key) + "=" + quoted + "'";
}

MergedVariables merge_variables(std::string_view text, const std::vector<std::pair<std::string, std::string>>& wanted) {
  MergedVariables out;
  out.text = std::string(text);
  const std::map<std::string, std::string> there = variables_in(text);
  for (const auto& [key, value] : wanted) {
    if (const auto it = there.find(key); it != there.end()) {
      if (it->second != value) out.kept_other.push_back(key);
      continue;
    }
    const std::optional<std::string> line = variable_line(key, value);
    if (!line) continue;
    if (!out.text.empty() && out.text.back() != '\n') out.text += '\n';
    out.text += *line + "\n";
    out.added.push_back(key);
  }
  return out;
}

std::map<std::string, std::string> variables_to_take(const util::Environment& env, const fs::path& file) {
  std::map<std::string, std::string> out;
  const auto text = util::read_file(file);
  if (!text) return out;
  for (auto& [key, value] : variables_in(*text)) {
    const auto own = env.get(key);
    if (!own || own->empty()) out.emplace(key, std::move(value));
  }
  return out;
}

} // namespace mcphealth::config
