#include <mcphealth/state/verdicts.hpp>

#include <mcphealth/state/fields.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>

namespace mcphealth::state {

namespace json = boost::json;

namespace {

constexpr std::string_view k_definitions = "definitions";
constexpr std::string_view k_bindings = "bindings";
constexpr std::string_view k_definition = "definition";

json::object& object_at(json::object& doc, std::string_view key) {
  json::value& v = doc[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

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

json::value optional_string(const std::optional<std::string>& s) { return s ? json::value(*s) : json::value(nullptr); }

} // namespace

std::string_view writer_name(Writer by) {
  switch (by) {
  case Writer::hook: return "hook";
  case Writer::probe: return "probe";
  case Writer::refresh: return "refresh";
  case Writer::watch: return "watch";
  case Writer::tool_success: return "tool-success";
  case Writer::adopted: return "adopted";
  }
  return {};
}

std::optional<Binding> FolderBindings::find(std::string_view server) const {
  if (names == nullptr) return std::nullopt;
  const json::object* b = util::get_object(*names, server);
  if (b == nullptr) return std::nullopt;
  Binding out;
  out.definition = util::get_string(*b, k_definition);
  out.standing =
      util::get_string(*b, "standing").value_or(std::string(out.definition ? k_standing_active : k_standing_undefined));
  out.reason = util::get_string(*b, "reason").value_or("");
  if (out.definition) out.project = util::get_string(*b, "project");
  return out;
}

std::optional<FolderBindings> folder_bindings(const json::object& doc, std::string_view folder) {
  const json::object* all = util::get_object(doc, k_bindings);
  const json::object* f = all ? util::get_object(*all, folder) : nullptr;
  if (f == nullptr) return std::nullopt;
  FolderBindings out;
  out.stamp = util::get_string(*f, "stamp").value_or("");
  if (!f->contains("files")) return std::nullopt; // made before the stamp covered every file read
  out.files = strings_of(*f, "files");
  out.variables = strings_of(*f, "variables");
  out.names = util::get_object(*f, "names");
  return out;
}

void bind_folder(json::object& doc, std::string_view folder, std::string_view stamp,
                 const std::vector<std::string>& files, const std::vector<std::string>& variables,
                 const std::vector<std::pair<std::string, Binding>>& names, util::EpochMs now) {
  json::object& all = object_at(doc, k_bindings);
  std::vector<std::string> stale;
  for (const auto& kv : all) {
    const json::object* f = kv.value().is_object() ? &kv.value().get_object() : nullptr;
    const auto at = f ? util::get_epoch_ms(*f, "boundAt") : std::nullopt;
    if (!at || *at + k_keep_unused_ms < now) stale.emplace_back(kv.key());
  }
  for (const auto& key : stale) all.erase(key);
  json::object& f = object_at(all, folder);
  if (util::get_string(f, "stamp") != std::optional<std::string>(std::string(stamp))) {
    f.clear();
    f["stamp"] = stamp;
    f["files"] = array_of(files);
    f["variables"] = array_of(variables);
  }
  f["boundAt"] = now;
  json::object& bound = object_at(f, "names");
  for (const auto& [name, b] : names) {
    if (name.size() > k_max_name_bytes) continue; // no such name is real; it would only grow the file
    json::object o;
    if (b.definition) {
      o[k_definition] = *b.definition;
      if (b.project) o["project"] = *b.project;
    } else {
      o["standing"] = b.standing;
      if (!b.reason.empty()) o["reason"] = b.reason;
    }
    bound[name] = std::move(o);
  }
}

std::optional<std::string> definition_of(const json::object& entry) { return util::get_string(entry, k_definition); }

std::optional<std::string> verdict_tool_server(const json::object& entry) { return util::get_string(entry, "toolName"); }

VerdictLabel label_of(const json::object& entry) {
  return {util::get_string(entry, "toolName"), util::get_string(entry, "scope"), util::get_string(entry, "project")};
}

const json::object& verdicts(const json::object& doc) {
  static const json::object k_none;
  const json::object* all = util::get_object(doc, k_definitions);
  return all ? *all : k_none;
}

const json::object* decision_entry(const json::object& doc, std::string_view server,
                                   const std::optional<std::string>& fingerprint) {
  if (fingerprint) {
    if (const json::object* v = util::get_object(verdicts(doc), *fingerprint)) return v;
  }
  const json::object* servers = util::get_object(doc, "servers");
  const json::object* mirror = servers ? util::get_object(*servers, server) : nullptr;
  if (mirror == nullptr || definition_of(*mirror)) return nullptr; // another definition's verdict: not ours
  return mirror;
}

void record_verdict(json::object& doc, const DefinitionInfo& who, util::EpochMs now, Writer by,
                    const std::function<void(json::object&)>& mark) {
  if (who.tool_server.size() > k_max_name_bytes || who.server.size() > k_max_name_bytes) return;
  json::object& all = object_at(doc, k_definitions);
  std::vector<std::string> stale;
  for (const auto& kv : all) {
    const json::object* v = kv.value().is_object() ? &kv.value().get_object() : nullptr;
    const auto at = v ? util::get_epoch_ms(*v, field::checked_at) : std::nullopt;
    if (kv.key() != who.fingerprint && (!at || *at + k_keep_unused_ms < now)) stale.emplace_back(kv.key());
  }
  for (const auto& key : stale) all.erase(key);
  json::value& slot = all[who.fingerprint];
  if (!slot.is_object()) {
    const json::object* adopted = decision_entry(doc, who.tool_server, std::nullopt);
    slot = adopted ? *adopted : json::object();
  }
  json::object& entry = slot.get_object();
  mark(entry);
  entry[field::updated_by] = writer_name(by);
  entry[k_definition] = who.fingerprint;
  if (!who.server.empty()) { // labels are known where the definition was resolved; a refresh keeps them
    entry["server"] = who.server;
    entry["toolName"] = who.tool_server;
    entry["scope"] = who.scope;
    entry["project"] = optional_string(who.project);
    if (who.source) entry[field::source] = *who.source;
  }
  const std::string mirror_key = util::get_string(entry, "toolName").value_or(who.tool_server);
  json::object mirror = entry;
  entry_of(doc, mirror_key) = std::move(mirror);
}

void record_unbound(json::object& doc, std::string_view server, Writer by, const std::function<void(json::object&)>& mark) {
  if (server.size() > k_max_name_bytes) return;
  json::object& entry = entry_of(doc, server);
  entry.erase(k_definition); // no longer any definition's verdict
  mark(entry);
  entry[field::updated_by] = writer_name(by);
}

bool forget_server(json::object& doc, std::string_view server) {
  bool removed = servers_of(doc).erase(server) > 0;
  json::object& all = object_at(doc, k_definitions);
  std::vector<std::string> gone;
  for (const auto& kv : all) {
    if (!kv.value().is_object()) continue;
    const json::object& v = kv.value().get_object();
    if (util::get_string(v, "server") == std::optional<std::string>(std::string(server)) ||
        util::get_string(v, "toolName") == std::optional<std::string>(std::string(server))) {
      gone.emplace_back(kv.key());
    }
  }
  for (const auto& key : gone) all.erase(key);
  removed = removed || !gone.empty();
  // Names remembered without a definition by mcphealth 0.1 (before bindings).
  if (json::value* misses = doc.if_contains("unconfigured"); misses && misses->is_object()) {
    removed = misses->get_object().erase(server) > 0 || removed;
  }
  json::object& bindings = object_at(doc, k_bindings);
  for (auto& kv : bindings) {
    if (!kv.value().is_object()) continue;
    if (json::value* names = kv.value().get_object().if_contains("names"); names && names->is_object()) {
      names->get_object().erase(server);
    }
  }
  return removed;
}

std::vector<std::string> bound_definitions(const json::object& doc) {
  std::vector<std::string> out;
  const json::object* all = util::get_object(doc, k_bindings);
  for (const auto& folder : all ? *all : json::object{}) {
    const json::object* names = folder.value().is_object() ? util::get_object(folder.value().get_object(), "names") : nullptr;
    for (const auto& name : names ? *names : json::object{}) {
      if (!name.value().is_object()) continue;
      auto fp = util::get_string(name.value().get_object(), k_definition);
      if (fp && std::find(out.begin(), out.end(), *fp) == out.end()) out.push_back(std::move(*fp));
    }
  }
  return out;
}

std::vector<std::string> bound_folders(const json::object& doc) {
  std::vector<std::string> out;
  if (const json::object* all = util::get_object(doc, k_bindings)) {
    for (const auto& folder : *all) out.emplace_back(folder.key());
  }
  return out;
}

bool forget_verdict(json::object& doc, std::string_view fingerprint) {
  bool removed = object_at(doc, k_definitions).erase(fingerprint) > 0;
  json::object& servers = servers_of(doc);
  std::vector<std::string> mirrors;
  for (const auto& kv : servers) {
    if (kv.value().is_object() && definition_of(kv.value().get_object()) == std::optional<std::string>(std::string(fingerprint))) {
      mirrors.emplace_back(kv.key());
    }
  }
  for (const auto& m : mirrors) servers.erase(m);
  return removed || !mirrors.empty();
}

std::string policy_problem_said(const json::object& doc) {
  return util::get_string(doc, "policyProblemSaid").value_or("");
}

void remember_policy_problem(json::object& doc, std::string_view stamp) { doc["policyProblemSaid"] = stamp; }

} // namespace mcphealth::state
