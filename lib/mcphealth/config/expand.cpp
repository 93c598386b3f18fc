#include <mcphealth/config/expand.hpp>

#include <algorithm>
#include <cctype>

namespace mcphealth::config {

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

} // namespace

std::string expand_vars(std::string_view text, const util::Environment& env, std::vector<std::string>& unset,
                        VarExpansion syntax, UnsetVar unset_var) {
  if (syntax == VarExpansion::literal) return std::string(text);
  std::string out;
  out.reserve(text.size());
  // One reference: its name, its default, and the text it replaces.
  const auto substitute = [&](std::string_view name, std::optional<std::string_view> fallback, std::string_view whole) {
    const auto value = env.get(name);
    const bool empty_takes_default = syntax == VarExpansion::braces;
    if (value && !(fallback && empty_takes_default && value->empty())) {
      out += *value;
    } else if (fallback) {
      out += *fallback;
    } else if (unset_var == UnsetVar::literal) {
      out += whole;
      if (std::find(unset.begin(), unset.end(), name) == unset.end()) unset.emplace_back(name);
    }
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (syntax == VarExpansion::env_colon) {
      const std::size_t close = text.substr(i, 5) == "{env:" ? text.find('}', i + 5) : std::string_view::npos;
      if (close != std::string_view::npos) {
        substitute(text.substr(i + 5, close - i - 5), std::nullopt, text.substr(i, close - i + 1));
        i = close + 1;
      } else {
        out += text[i++];
      }
      continue;
    }
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      std::size_t close = text.find('}', i + 2);
      if (close != std::string_view::npos) {
        std::string_view body = text.substr(i + 2, close - i - 2);
        std::string_view name = body;
        std::optional<std::string_view> fallback;
        if (auto sep = body.find(":-"); sep != std::string_view::npos) {
          name = body.substr(0, sep);
          fallback = body.substr(sep + 2);
        }
        substitute(name, fallback, text.substr(i, close - i + 1));
        i = close + 1;
        continue;
      }
    }
    if (syntax == VarExpansion::braces_and_bare && text[i] == '$' && i + 1 < text.size() && is_word_char(text[i + 1])) {
      std::size_t end = i + 1;
      while (end < text.size() && is_word_char(text[end])) ++end;
      substitute(text.substr(i + 1, end - i - 1), std::nullopt, text.substr(i, end - i));
      i = end;
      continue;
    }
    out += text[i++];
  }
  return out;
}

} // namespace mcphealth::config
