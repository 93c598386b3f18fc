#pragma once
// A folder's bindings: what every server name means there (the definition its agent starts, or why there is none),
// stored in the state file under the folder's key with the stamp that says when they no longer hold. The hook
// binds a folder when it reads its configs, and `probe` binds every folder it covers, both through these, so the
// next call there is a cache hit either way.
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/resolver.hpp>
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

/// Every name `res` knows, with its binding, in the order first defined; and `extra` (a name nothing may define).
std::vector<std::pair<std::string, state::Binding>> bindings_of(const config::Resolution& res,
                                                                const std::optional<std::string>& extra = std::nullopt);

/// Records `res` (read for `inputs`) as the bindings of folder `key` in `doc`, stamped with what it read.
void record_bindings(boost::json::object& doc, const std::string& key, const config::DiscoveryInputs& inputs,
                     const config::Resolution& res, const util::Environment& env, util::EpochMs now,
                     const std::optional<std::string>& extra = std::nullopt);

/// How a verdict of `c` is labelled in the state file.
state::DefinitionInfo info_of(const config::Candidate& c);

} // namespace mcphealth::gate
