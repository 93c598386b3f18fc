#include <mcphealth/probe/record.hpp>

#include <mcphealth/util/json.hpp>

namespace mcphealth::probe {

namespace json = boost::json;

void mark_from_probe(json::object& entry, const ProbeResult& result, const MarkContext& c) {
  if (result.ok) {
    state::mark_healthy(entry, {c.now, c.ttl_ms, c.source, c.restored_by, result.details()});
  } else {
    state::mark_unhealthy(entry, {c.now, result.reason, result.code, c.source, c.backoff_ms, c.max_backoff_ms,
                                  result.retry_after_ms, result.details()});
  }
}

state::UpdateResult record_probes(state::StateStore& store, const std::vector<ProbedServer>& probed,
                                  std::vector<std::string>& skipped) {
  return store.update([&](json::object& doc) {
    bool changed = false;
    for (const ProbedServer& p : probed) {
      if (p.result.kind == Kind::not_probed) continue;
      json::object& entry = state::entry_of(doc, p.name);
      const auto checked = util::get_int(entry, "checkedAt");
      if (checked && *checked > p.started_at) {
        skipped.push_back(p.name);
        continue;
      }
      mark_from_probe(entry, p.result, p.context);
      changed = true;
    }
    return changed;
  });
}

} // namespace mcphealth::probe
