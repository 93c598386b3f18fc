#include <mcphealth/gate/bindings.hpp>

#include <mcphealth/config/names.hpp>

#include <algorithm>
#include <string_view>
#include <unordered_set>

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
                                                                const ExtraBinding& extra) {
  std::vector<std::pair<std::string, state::Binding>> names;
  std::unordered_set<std::string_view> seen; // one pass: a repository's file may name thousands
  for (const auto& c : res.candidates) {
    if (!c.wins() || names.size() >= k_max_bound_names || !seen.insert(c.tool_server).second) continue;
    names.emplace_back(c.tool_server, state::Binding{c.fingerprint, std::string(state::k_standing_active), {}, c.project});
  }
  if (extra && !seen.contains(extra->first)) names.push_back(*extra);
  return names;
}

state::FolderBind bind_of(const config::DiscoveryInputs& inputs, const config::Resolution& res,
                          const util::Environment& env, const ExtraBinding& extra) {
  state::FolderBind out{.stamp = config::resolution_stamp(inputs, res, env), .variables = res.variables,
                        .names = bindings_of(res, extra)};
  for (const auto& f : res.read_files) out.files.push_back(f.string());
  return out;
}

std::string binding_key(const hook::CallTarget& call) {
  std::string key = hook::server_key(call);
  if (call.source) key += "@" + *call.source;
  return key;
}

std::optional<ClientWord> by_client_source(const config::Resolution& res, const hook::CallTarget& call,
                                           const util::Environment& env, util::FileReader& files) {
  if (!call.source || res.explicit_files) return std::nullopt;
  const std::optional<config::Scope> scope = config::scope_of_client_source(*call.source);
  if (!scope) return std::nullopt;
  for (const config::Candidate* c : res.candidates_for(call.server)) {
    if (c->scope != *scope) continue;
    ClientWord word{*c, {}};
    if (!c->wins()) config::resolve_candidate(*word.candidate, env, res.project_dir, files);
    word.binding = {word.candidate->fingerprint, std::string(state::k_standing_active), {}, word.candidate->project};
    return word;
  }
  return ClientWord{std::nullopt,
                    {std::nullopt, std::string(state::k_standing_unseen),
                     "the client runs it from its " + *call.source +
                         " servers (the payload's mcp_server.source), and mcphealth finds no definition of it there",
                     std::nullopt}};
}

state::DefinitionInfo info_of(const config::Candidate& c) {
  return {c.fingerprint, c.definition.name,  c.tool_server, std::string(config::scope_name(c.scope)),
          c.project,     c.definition.source.string(), c.shape};
}

} // namespace mcphealth::gate
