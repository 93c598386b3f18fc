#include <mcphealth/ops/reset.hpp>

#include <mcphealth/state/verdicts.hpp>

#include <algorithm>

namespace mcphealth::ops {

namespace json = boost::json;

ResetResult remove_entries(state::StateStore& store, const std::vector<std::string>& names,
                           const std::function<bool(const std::string&, const json::object&)>& select, DryRun dry_run) {
  ResetResult out;
  auto choose = [&](json::object& doc) {
    out.removed.clear();
    json::object& servers = state::servers_of(doc);
    for (const auto& kv : servers) {
      const std::string name(kv.key());
      const bool named = std::find(names.begin(), names.end(), name) != names.end();
      const bool picked = names.empty() && kv.value().is_object() && select(name, kv.value().get_object());
      if (named || picked) out.removed.push_back(name);
    }
  };
  if (dry_run == DryRun::yes) {
    state::StateSnapshot snap = store.read();
    choose(snap.doc);
    return out;
  }
  out.update = store.update([&](json::object& doc) {
    choose(doc);
    bool changed = false;
    for (const auto& name : out.removed) changed = state::forget_server(doc, name) || changed;
    return changed;
  });
  return out;
}

ResetResult remove_verdicts(state::StateStore& store, const std::vector<std::string>& fingerprints, DryRun dry_run) {
  ResetResult out;
  auto choose = [&](const json::object& doc) {
    out.removed.clear();
    for (const auto& fp : fingerprints) {
      if (state::verdicts(doc).contains(fp)) out.removed.push_back(fp);
    }
  };
  if (dry_run == DryRun::yes) {
    choose(store.read().doc);
    return out;
  }
  out.update = store.update([&](json::object& doc) {
    choose(doc);
    bool changed = false;
    for (const auto& fp : out.removed) changed = state::forget_verdict(doc, fp) || changed;
    return changed;
  });
  return out;
}

} // namespace mcphealth::ops
