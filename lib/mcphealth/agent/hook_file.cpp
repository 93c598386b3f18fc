#include <mcphealth/agent/hook_file.hpp>

#include <mcphealth/util/json.hpp>

namespace mcphealth::agent {

namespace json = boost::json;

namespace {

/// The `hooks` list of a nested group, or nothing.
template <typename Object>
auto nested_list(Object& group) -> decltype(&group.find("hooks")->value().get_array()) {
  auto it = group.find("hooks");
  return it != group.end() && it->value().is_array() ? &it->value().get_array() : nullptr;
}

template <typename List, typename Visit>
void walk(List& list, Layout layout, const Visit& visit) {
  for (auto& element : list) {
    if (!element.is_object()) continue;
    auto& group = element.get_object();
    if (layout == Layout::flat) {
      visit(group, group);
      continue;
    }
    auto* entries = nested_list(group);
    if (entries == nullptr) continue;
    for (auto& entry : *entries) {
      if (entry.is_object()) visit(group, entry.get_object());
    }
  }
}

} // namespace

void for_each_hook(const json::array& list, Layout layout,
                   const std::function<void(const json::object&, const json::object&)>& visit) {
  walk(list, layout, visit);
}

void for_each_hook(json::array& list, Layout layout, const std::function<void(json::object&, json::object&)>& visit) {
  walk(list, layout, visit);
}

std::string command_of(const json::object& entry) { return util::get_string(entry, "command").value_or(""); }

std::vector<std::string> remove_hooks(json::array& list, Layout layout, const std::function<bool(const std::string&)>& drop) {
  std::vector<std::string> removed;
  auto selected = [&](const json::value& v) {
    if (!v.is_object()) return false;
    const std::string command = command_of(v.get_object());
    if (command.empty() || !drop(command)) return false;
    removed.push_back(command);
    return true;
  };
  for (auto g = list.begin(); g != list.end();) {
    if (layout == Layout::flat) {
      g = selected(*g) ? list.erase(g) : std::next(g);
      continue;
    }
    json::array* entries = g->is_object() ? nested_list(g->get_object()) : nullptr;
    if (entries == nullptr) {
      ++g;
      continue;
    }
    const std::size_t had = entries->size();
    for (auto h = entries->begin(); h != entries->end();) h = selected(*h) ? entries->erase(h) : std::next(h);
    g = had > 0 && entries->empty() ? list.erase(g) : std::next(g);
  }
  return removed;
}

} // namespace mcphealth::agent
