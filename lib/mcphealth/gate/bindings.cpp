#include <mcphealth/gate/bindings.hpp>

#include <algorithm>

namespace mcphealth::gate {

state::Binding binding_for(const config::Resolution& res, const std::string& server) {
  if (const config::Candidate* c = res.winner(server)) {
    return {c->fingerprint, std::string(state::k_standing_active), {}, c->project};
  }
  const std::vector<const config::Candidate*> all = res.candidates_for(server);
  if (all.empty()) {
    // Nothing defines it, as far as could be read: a file that could not be read may be where it is.
    std::string unread;
    for (const config::FileReport& f : res.files) {
      if (f.status != config::FileReport::Status::parse_error && f.status != config::FileReport::Status::unreadable) continue;
      unread += (unread.empty() ? "" : "; ") + f.source.file.string() + " could not be read (" + f.error + ")";
    }
    return {std::nullopt, std::string(state::k_standing_undefined), unread};
  }
  return {std::nullopt, std::string(config::standing_name(all.front()->standing)), all.front()->reason};
}

std::vector<std::pair<std::string, state::Binding>> bindings_of(const config::Resolution& res,
                                                                const std::optional<std::string>& extra) {
  std::vector<std::pair<std::string, state::Binding>> names;
  auto named = [&](const std::string& name) {
    return std::any_of(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
  };
  for (const auto& c : res.candidates) {
    if (!named(c.tool_server)) names.emplace_back(c.tool_server, binding_for(res, c.tool_server));
  }
  if (extra && !named(*extra)) names.emplace_back(*extra, binding_for(res, *extra));
  return names;
}

void record_bindings(boost::json::object& doc, const std::string& key, const config::DiscoveryInputs& inputs,
                     const config::Resolution& res, const util::Environment& env, util::EpochMs now,
                     const std::optional<std::string>& extra) {
  std::vector<std::string> files;
  for (const auto& f : res.read_files) files.push_back(f.string());
  state::bind_folder(doc, key, config::resolution_stamp(inputs, res, env), files, res.variables, bindings_of(res, extra), now);
}

state::DefinitionInfo info_of(const config::Candidate& c) {
  return {c.fingerprint, c.definition.name,  c.tool_server, std::string(config::scope_name(c.scope)),
          c.project,     c.definition.source.string()};
}

} // namespace mcphealth::gate
