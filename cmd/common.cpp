#include "common.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/state/store.hpp>

#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::cli {

config::DiscoveryInputs discovery_for(const util::Environment& env, const config::Settings& settings,
                                      const std::optional<std::string>& cwd) {
  config::DiscoveryInputs in = config::discovery_inputs(env, settings.config_paths.value, "");
  if (cwd) in.project_dir = config::absolute_normal(*cwd);
  return in;
}

ops::ProbePath probe_path_for(const std::filesystem::path& state, const std::optional<std::string>& agent_id,
                              const util::Environment& own) {
  std::vector<const agent::Agent*> agents;
  if (agent_id) agents.push_back(agent::find_agent(*agent_id));
  return ops::probe_path(state::load_state(state).doc, agents, own);
}

std::string join_names(const std::vector<std::string>& names) {
  return names.empty() ? "none" : util::join(names, ", ");
}

void warn_all(const std::vector<config::SettingWarning>& warnings) {
  for (const auto& w : warnings) util::log::warn(w.text());
}

} // namespace mcphealth::cli
