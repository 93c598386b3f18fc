#include <mcphealth/config/names.hpp>

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

std::string hash_hex(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = k_digits[h & 0xF];
  return out;
}

} // namespace mcphealth::config
