#include <mcphealth/util/env.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>

extern char** environ;

namespace mcphealth::util {

std::optional<std::string> ProcessEnvironment::get(std::string_view name) const {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::vector<std::string> ProcessEnvironment::entries() const {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

std::optional<std::string> MapEnvironment::get(std::string_view name) const {
  auto it = m_vars.find(std::string(name));
  if (it == m_vars.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> MapEnvironment::entries() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : m_vars) out.push_back(k + "=" + v);
  return out;
}

std::optional<std::string> OverlayEnvironment::get(std::string_view name) const {
  if (auto it = m_over.find(std::string(name)); it != m_over.end()) return it->second;
  return m_base.get(name);
}

std::vector<std::string> OverlayEnvironment::entries() const {
  std::vector<std::string> out;
  for (const std::string& e : m_base.entries()) {
    if (!m_over.contains(e.substr(0, e.find('=')))) out.push_back(e);
  }
  for (const auto& [name, value] : m_over) out.push_back(name + "=" + value);
  return out;
}

std::string mcphealth_spelling(std::string_view ecc_name) {
  for (std::string_view prefix : {"ECC_MCP_HEALTH_", "ECC_MCP_", "ECC_HOOK_"}) {
    if (ecc_name.substr(0, prefix.size()) == prefix) {
      return "MCPHEALTH_" + std::string(ecc_name.substr(prefix.size()));
    }
  }
  return std::string(ecc_name);
}

std::optional<FoundVariable> lookup_setting(const Environment& env, std::string_view ecc_name) {
  const std::string ours = mcphealth_spelling(ecc_name);
  if (auto v = env.get(ours); v && !v->empty()) return FoundVariable{*v, ours};
  if (auto v = env.get(ecc_name); v && !v->empty()) return FoundVariable{*v, std::string(ecc_name)};
  return std::nullopt;
}

bool is_truthy(std::string_view value) {
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == "1" || lower == "true" || lower == "yes";
}

std::filesystem::path home_dir(const Environment& env) {
  if (auto home = env.get("HOME")) return *home;
  if (std::optional<std::string> home = passwd_home()) return *home;
  return "/";
}

} // namespace mcphealth::util
