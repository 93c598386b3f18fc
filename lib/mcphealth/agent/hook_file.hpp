#pragma once
// An event's list of hooks in an agent's hook file, walked as the agent reads it (Registration::layout()): nested
// groups (`{matcher, hooks: [entry]}`) or flat entries (`[entry]`). install, uninstall and explain-config walk
// hook files only through these, so a layout is read one way everywhere.
#include <mcphealth/agent/agent.hpp>

#include <boost/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace mcphealth::agent {

/// Calls `visit(group, entry)` for every hook entry of `list`, as `layout` lists them; in a flat list the group is
/// the entry itself (its `matcher` beside its `command`). Elements of another shape are passed over.
void for_each_hook(const boost::json::array& list, Layout layout,
                   const std::function<void(const boost::json::object& group, const boost::json::object& entry)>& visit);
/// The same, for changing the entries in place.
void for_each_hook(boost::json::array& list, Layout layout,
                   const std::function<void(boost::json::object& group, boost::json::object& entry)>& visit);

/// A hook entry's command, empty when it has none.
std::string command_of(const boost::json::object& entry);

/// Removes from `list` the entries whose command `drop` selects, and the nested groups that leaves empty. Returns
/// the commands removed, in order.
std::vector<std::string> remove_hooks(boost::json::array& list, Layout layout,
                                      const std::function<bool(const std::string&)>& drop);

} // namespace mcphealth::agent
