#include <mcphealth/ops/reset.hpp>

#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>

#include <algorithm>

namespace mcphealth::ops {

namespace json = boost::json;

namespace {

/// The one shape of a reset: `choose` lists what to remove from a document (a dry run reads the file for it), and
/// `forget` removes one of them, under the state lock, with `choose` run again on the document as locked.
ResetResult remove(state::StateStore& store, const std::function<std::vector<std::string>(const json::object&)>& choose,
                   const std::function<bool(json::object&, const std::string&)>& forget, DryRun dry_run) {
  ResetResult out;
  if (dry_run == DryRun::yes) {
    out.removed = choose(store.read().doc);
    return out;
  }
  out.update = store.update([&](json::object& doc) {
    out.removed = choose(doc);
    bool changed = false;
    for (const auto& key : out.removed) changed = forget(doc, key) || changed;
    return changed;
  });
  return out;
}

} // namespace

ResetResult remove_entries(state::StateStore& store, const std::vector<std::string>& names,
                           const std::function<bool(const std::string&, const json::object&)>& select, DryRun dry_run) {
  const auto choose = [&](const json::object& doc) {
    std::vector<std::string> out;
    for (const auto& kv : state::servers_of(doc)) {
      const std::string name(kv.key());
      const bool named = std::find(names.begin(), names.end(), name) != names.end();
      const bool picked = names.empty() && kv.value().is_object() && select(name, kv.value().get_object());
      if (named || picked) out.push_back(name);
    }
    return out;
  };
  ResetResult out = remove(store, choose, [](json::object& doc, const std::string& name) { return state::forget_server(doc, name); },
                           dry_run);
  // And their bindings, in every folder (no binding is kept for a name whose entry is gone: a call binds it again).
  if (dry_run == DryRun::no && out.update && out.update->written) {
    state::Shelf bindings = store.shelf();
    (void)state::forget_bound_names(bindings, out.removed, store.clock().now_ms());
  }
  return out;
}

ResetResult remove_verdicts(state::StateStore& store, const std::vector<std::string>& fingerprints, DryRun dry_run) {
  const auto choose = [&](const json::object& doc) {
    std::vector<std::string> out;
    for (const auto& fp : fingerprints) {
      if (state::verdicts(doc).contains(fp)) out.push_back(fp);
    }
    return out;
  };
  return remove(store, choose, [](json::object& doc, const std::string& fp) { return state::forget_verdict(doc, fp); },
                dry_run);
}

ResetResult forget_what_no_agent_uses(state::StateStore& store, const StatusReport& report, std::int64_t ttl_ms) {
  const auto old = [&](const StatusRow& r) { return r.age_ms && *r.age_ms > ttl_ms; };
  std::vector<std::string> retired, unused_names;
  for (const StatusRow& r : report.rows) {
    if (!r.cached || !old(r)) continue;
    if (r.definition && r.superseded && !r.retired_because.empty()) retired.push_back(*r.definition);
    // A name no config defines (a failed call's), past its TTL and its retry: nothing holds it any more.
    if (r.unbound() && !(r.retry_in_ms && *r.retry_in_ms > 0)) unused_names.push_back(r.name);
  }
  ResetResult out;
  if (!retired.empty()) out = remove_verdicts(store, retired, DryRun::no);
  if (!unused_names.empty()) {
    ResetResult names = remove_entries(store, unused_names, {}, DryRun::no);
    out.removed.insert(out.removed.end(), names.removed.begin(), names.removed.end());
    if (!names.update) out.update = names.update;
  }
  return out;
}

} // namespace mcphealth::ops
