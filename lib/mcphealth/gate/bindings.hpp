#pragma once
// A folder's bindings: what every server name means there (the definition its agent starts, or why there is none),
// stored beside the state file under the folder's key (state/bindings.hpp) with the stamp that says when they no
// longer hold. The hook
// binds a folder when it reads its configs, and `probe` binds every folder it covers, both through these, so the
// next call there is a cache hit either way.
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/hook/payload.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcphealth::gate {

/// The binding `res` gives `server`: its winner's definition, else its standing and why (for a name nothing
/// defines, the files that could not be read, where it may be).
state::Binding binding_for(const config::Resolution& res, const std::string& server);

/// One more binding to record beside a resolution's names: a name nothing may define, or a call's binding by the
/// client's word (binding_key).
using ExtraBinding = std::optional<std::pair<std::string, state::Binding>>;

/// The most names one folder's bindings hold: what a call to any other name needs is read from the configs again.
inline constexpr std::size_t k_max_bound_names = 512;

/// The names the agent starts under `res`, with their definitions, in the order first defined (at most
/// k_max_bound_names), in one pass; and `extra`. A name it will not start (not approved, shadowed) is not bound
/// one by one: an untrusted clone's `.mcp.json` may name thousands, and a call to one, which the agent does not
/// make, is bound when it comes (as `extra`), from the configs read again.
std::vector<std::pair<std::string, state::Binding>> bindings_of(const config::Resolution& res,
                                                                const ExtraBinding& extra = std::nullopt);

/// What `res` (read for `inputs`) binds in its folder, stamped with what it read (state::Store::bind records it).
state::FolderBind bind_of(const config::DiscoveryInputs& inputs, const config::Resolution& res,
                          const util::Environment& env, const ExtraBinding& extra = std::nullopt);

/// Where a call's binding is kept among the folder's names: its tool-name server, or `<server>@<source>` when the
/// client names the definition (`@` is never in a tool-name server). One folder can run a user `svc` in one
/// session and its project's `svc` in another (`claude -p` starts a project server still pending approval).
std::string binding_key(const hook::CallTarget& call);

/// The definition the client says a call goes to, when it says (`call.source`), in a word mcphealth knows, and the
/// configs were searched (not named with `--config`). `candidate` is that definition resolved, whether or not it
/// wins by the folder's rules (the client runs it, so probing it starts nothing the client refuses); without one,
/// the binding says the client runs a definition mcphealth does not see, so no other definition's verdict decides.
struct ClientWord {
  std::optional<config::Candidate> candidate;
  state::Binding binding;
};
std::optional<ClientWord> by_client_source(const config::Resolution& res, const hook::CallTarget& call,
                                           const util::Environment& env, util::FileReader& files);

/// How a verdict of `c` is labelled in the state file.
state::DefinitionInfo info_of(const config::Candidate& c);

} // namespace mcphealth::gate
