#include <mcphealth/util/text.hpp>

#include <cstdio>

namespace mcphealth::util {

std::string cap_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Step back over continuation bytes (10xxxxxx) so a multi-byte character is never split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut));
}

std::string trim(std::string_view text) {
  const char* ws = " \t\r\n\v\f";
  auto begin = text.find_first_not_of(ws);
  if (begin == std::string_view::npos) return {};
  auto end = text.find_last_not_of(ws);
  return std::string(text.substr(begin, end - begin + 1));
}

std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7F) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  return out;
}

} // namespace mcphealth::util
