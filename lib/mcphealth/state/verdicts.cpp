#include <mcphealth/state/verdicts.hpp>

#include <mcphealth/state/fields.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>

namespace mcphealth::state {

namespace json = boost::json;

namespace {

constexpr std::string_view k_definitions = "definitions";
// A verdict's label: its definition's parts' digests (DefinitionInfo::shape).
constexpr std::string_view k_shape = "shape";

json::object& verdicts_object_at(json::object& doc, std::string_view key) {
  json::value& v = doc[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

json::value string_or_null(const std::optional<std::string>& s) { return s ? json::value(*s) : json::value(nullptr); }

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

std::optional<std::string> definition_of(const json::object& entry) { return util::get_string(entry, field::definition); }

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

const json::object* decision_entry(const StateSnapshot& snap, std::string_view server,
                                   const std::optional<std::string>& fingerprint) {
  if (fingerprint) {
    if (const json::object* v = snap.verdict(*fingerprint)) return v;
  }
  return decision_entry(snap.read_file().doc, server, std::nullopt);
}

std::vector<std::pair<std::string, std::string>> shape_of(const json::object& entry) {
  std::vector<std::pair<std::string, std::string>> out;
  if (const json::object* shape = util::get_object(entry, k_shape)) {
    for (const auto& kv : *shape) {
      if (kv.value().is_string()) out.emplace_back(std::string(kv.key()), std::string(kv.value().get_string()));
    }
  }
  return out;
}

void record_verdict(json::object& doc, const DefinitionInfo& who, util::EpochMs now, Writer by,
                    const std::function<void(json::object&)>& mark) {
  if (who.tool_server.size() > k_max_name_bytes || who.server.size() > k_max_name_bytes) return;
  json::object& all = verdicts_object_at(doc, k_definitions);
  std::vector<std::string> stale;
  for (const auto& kv : all) {
    const json::object* v = kv.value().is_object() ? &kv.value().get_object() : nullptr;
    const auto at = v ? util::get_epoch_ms(*v, field::checked_at) : std::nullopt;
    if (kv.key() != who.fingerprint && (!at || *at + k_keep_unused_ms < now)) stale.emplace_back(kv.key());
  }
  // With its mirror in `servers` (when that still mirrors it): the JS hook's map does not keep a server no
  // definition has been checked as for a month.
  for (const auto& key : stale) forget_verdict(doc, key);
  json::value& slot = all[who.fingerprint];
  if (!slot.is_object()) {
    const json::object* adopted = decision_entry(doc, who.tool_server, std::nullopt);
    slot = adopted ? *adopted : json::object();
  }
  json::object& entry = slot.get_object();
  mark(entry);
  entry[field::updated_by] = writer_name(by);
  entry[field::definition] = who.fingerprint;
  if (!who.server.empty()) { // labels are known where the definition was resolved; a refresh keeps them
    entry["server"] = who.server;
    entry["toolName"] = who.tool_server;
    entry["scope"] = who.scope;
    entry["project"] = string_or_null(who.project);
    if (who.source) entry[field::source] = *who.source;
    if (!who.shape.empty()) {
      json::object shape;
      for (const auto& [part, digest] : who.shape) shape[part] = digest;
      entry[k_shape] = std::move(shape);
    }
  }
  const std::string mirror_key = util::get_string(entry, "toolName").value_or(who.tool_server);
  json::object mirror = entry;
  mirror.erase(k_shape); // the main file's map is the JS hook's: it stays as small as its own entries
  entry_of(doc, mirror_key) = std::move(mirror);
}

void record_unbound(json::object& doc, std::string_view server, Writer by, const std::function<void(json::object&)>& mark) {
  if (server.size() > k_max_name_bytes) return;
  json::object& entry = entry_of(doc, server);
  entry.erase(field::definition); // no longer any definition's verdict
  mark(entry);
  entry[field::updated_by] = writer_name(by);
}

bool forget_server(json::object& doc, std::string_view server) {
  bool removed = servers_of(doc).erase(server) > 0;
  json::object& all = verdicts_object_at(doc, k_definitions);
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
  return removed;
}

bool forget_verdict(json::object& doc, std::string_view fingerprint) {
  bool removed = verdicts_object_at(doc, k_definitions).erase(fingerprint) > 0;
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
