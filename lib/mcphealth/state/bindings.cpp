#include <mcphealth/state/bindings.hpp>

#include <mcphealth/state/fields.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>

namespace mcphealth::state {

namespace json = boost::json;

namespace {


std::vector<std::string> strings_of(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (auto it = o.find(key); it != o.end() && it->value().is_array()) {
    for (const auto& v : it->value().get_array()) {
      if (v.is_string()) out.emplace_back(v.get_string());
    }
  }
  return out;
}

json::array array_of(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

/// The longest name bound: no real one comes near it, and a longer one (a payload's, a hostile `.mcp.json`'s)
/// would only grow the file.
constexpr std::size_t k_max_bound_name_bytes = 256;

} // namespace

std::optional<Binding> FolderBindings::find(std::string_view server) const {
  const json::object* b = util::get_object(names, server);
  if (b == nullptr) return std::nullopt;
  Binding out;
  out.definition = util::get_string(*b, field::definition);
  out.standing =
      util::get_string(*b, "standing").value_or(std::string(out.definition ? k_standing_active : k_standing_undefined));
  out.reason = util::get_string(*b, "reason").value_or("");
  if (out.definition) out.project = util::get_string(*b, "project");
  return out;
}

std::optional<FolderBindings> FolderBindings::from_json(const json::object& stored) {
  if (!stored.contains("files")) return std::nullopt; // made before the stamp covered every file read
  FolderBindings out;
  out.stamp = util::get_string(stored, "stamp").value_or("");
  out.files = strings_of(stored, "files");
  out.variables = strings_of(stored, "variables");
  if (const json::object* names = util::get_object(stored, "names")) out.names = *names;
  return out;
}

namespace {

json::object stored_form(const Binding& b) {
  json::object o;
  if (b.definition) {
    o[field::definition] = *b.definition;
    if (b.project) o["project"] = *b.project;
  } else {
    o["standing"] = b.standing;
    if (!b.reason.empty()) o["reason"] = b.reason;
  }
  return o;
}

} // namespace

bool holds(const std::optional<FolderBindings>& stored, const FolderBind& bind) {
  if (!stored || stored->stamp != bind.stamp) return false;
  return std::all_of(bind.names.begin(), bind.names.end(), [&](const auto& n) {
    const json::value* was = stored->names.if_contains(n.first);
    return n.first.size() > k_max_bound_name_bytes || (was != nullptr && *was == json::value(stored_form(n.second)));
  });
}

void bind_folder(json::object& f, const FolderBind& bind, util::EpochMs now) {
  if (util::get_string(f, "stamp") != std::optional<std::string>(bind.stamp)) {
    f.clear();
    f["stamp"] = bind.stamp;
    f["files"] = array_of(bind.files);
    f["variables"] = array_of(bind.variables);
  }
  f["boundAt"] = now;
  json::value& slot = f["names"];
  if (!slot.is_object()) slot = json::object();
  json::object& bound = slot.get_object();
  for (const auto& [name, b] : bind.names) {
    if (name.size() > k_max_bound_name_bytes) continue;
    bound[name] = stored_form(b);
  }
}

Shelf bindings_shelf(const std::filesystem::path& state_path) {
  return Shelf(state_path.string() + ".d/bindings", k_folders_per_shard, k_keep_unused_ms);
}

bool move_bindings_out(json::object& doc, Shelf& shelf, util::EpochMs now, std::size_t limit) {
  json::value* all = doc.if_contains("bindings");
  if (all == nullptr) return false;
  if (!all->is_object()) {
    doc.erase("bindings");
    return true;
  }
  json::object& folders = all->get_object();
  std::vector<std::string> done;
  std::size_t moved = 0;
  for (const auto& kv : folders) {
    if (moved == limit) break;
    done.emplace_back(kv.key());
    const json::object* f = kv.value().is_object() ? &kv.value().get_object() : nullptr;
    const auto at = f ? util::get_epoch_ms(*f, "boundAt") : std::nullopt;
    if (!at || *at + k_keep_unused_ms < now || shelf.get(kv.key())) continue;
    // Best effort: a folder not moved is bound again when used. Its shard is tended at its next write.
    (void)shelf.put(kv.key(), *f, std::min(*at, now), Shelf::Tend::no);
    ++moved;
  }
  for (const auto& key : done) folders.erase(key);
  if (folders.empty()) doc.erase("bindings");
  return true;
}

bool forget_bound_names(Shelf& shelf, const std::vector<std::string>& servers, util::EpochMs now) {
  if (servers.empty()) return false;
  std::vector<std::pair<std::string, json::object>> changed;
  shelf.each([&](const std::string& key, const json::object& f) {
    const json::object* names = util::get_object(f, "names");
    if (names == nullptr) return;
    json::object kept = f;
    bool any = false;
    for (const std::string& server : servers) any = kept["names"].get_object().erase(server) > 0 || any;
    if (any) changed.emplace_back(key, std::move(kept));
  });
  for (const auto& [key, f] : changed) (void)shelf.put(key, f, std::min(util::get_epoch_ms(f, "boundAt").value_or(now), now));
  return !changed.empty();
}

} // namespace mcphealth::state
