#include <mcphealth/config/expand.hpp>

#include <algorithm>

namespace mcphealth::config {

std::string expand_vars(std::string_view text, const util::Environment& env, std::vector<std::string>& unset) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
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
        auto value = env.get(name);
        if (value && !(fallback && value->empty())) {
          out += *value;
        } else if (fallback) {
          out += *fallback;
        } else {
          out.append(text.substr(i, close - i + 1));
          if (std::find(unset.begin(), unset.end(), name) == unset.end()) unset.emplace_back(name);
        }
        i = close + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

} // namespace mcphealth::config
