#include "common.hpp"

#include <mcphealth/util/log.hpp>

namespace mcphealth::cli {

config::DiscoveryInputs discovery_for(const util::Environment& env, const config::Settings& settings,
                                      const std::optional<std::string>& cwd) {
  config::DiscoveryInputs in = config::discovery_inputs(env, settings.config_paths.value, "");
  if (cwd) in.project_dir = config::absolute_normal(*cwd);
  return in;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void warn_all(const std::vector<config::SettingWarning>& warnings) {
  for (const auto& w : warnings) util::log::warn(w.text());
}

} // namespace mcphealth::cli
