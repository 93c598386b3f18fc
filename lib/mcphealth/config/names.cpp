#include <mcphealth/config/names.hpp>

#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cstdint>

namespace mcphealth::config {

std::string tool_server_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool kept = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!kept) c = '_';
  }
  return out;
}

std::string plugin_tool_server_name(std::string_view plugin, std::string_view server) {
  return tool_server_name("plugin_" + std::string(plugin) + "_" + std::string(server));
}

namespace {

/// `text` (UTF-8) as UTF-16 code units, as JavaScript's strings hold it; a malformed byte stands for itself.
std::u16string utf16(std::string_view text) {
  std::u16string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= text.size();
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD); // how a JavaScript string decodes a malformed byte
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i += len;
  }
  return out;
}

bool safe_unit(char16_t c) {
  return (c >= u'A' && c <= u'Z') || (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'_' || c == u'-';
}

} // namespace

std::string qwen_tool_name(std::string_view server, std::string_view tool) {
  constexpr std::size_t k_max = 63;
  const std::string full = "mcp__" + std::string(server) + "__" + std::string(tool);
  const std::u16string units = utf16(full);
  const bool safe = std::all_of(units.begin(), units.end(), safe_unit);
  if (units.size() <= k_max && safe) return full; // it starts with `m`, so the first-letter rule holds
  std::uint32_t h = 2166136261U;
  for (char16_t u : units) h = (h ^ u) * 16777619U;
  std::string suffix;
  for (; h != 0; h /= 36) suffix.insert(suffix.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[h % 36]);
  suffix.insert(0, 7 - std::min<std::size_t>(7, suffix.size()), '0');
  suffix.insert(suffix.begin(), '_');
  std::string kept = qwen_replaced(full);
  kept.resize(std::min(kept.size(), k_max - suffix.size()));
  return kept + suffix;
}

std::string qwen_replaced(std::string_view text) {
  std::string out;
  for (char16_t u : utf16(text)) out.push_back(safe_unit(u) ? static_cast<char>(u) : '_');
  return out;
}

bool qwen_renames(std::string_view server) { return tool_server_name(server) != server; }

std::string hash_hex(std::string_view text) { return util::fnv1a_hex(text); }

} // namespace mcphealth::config
