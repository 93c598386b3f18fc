// Which PATH starts servers off a session, apart from the probe runs (probe.cpp): the hook's front (cmd/front.cpp)
// links what the status line needs, and that must not bring the live prober and libcurl's loader with it.
#include <mcphealth/ops/probe.hpp>

#include <mcphealth/state/history.hpp>

#include <algorithm>

namespace mcphealth::ops {

ProbePath probe_path(const boost::json::object& state_doc, const std::vector<const agent::Agent*>& agents,
                     const util::Environment& own) {
  ProbePath out;
  out.path = own.get("PATH").value_or("");
  for (const state::HookSeen& seen : state::hooks_seen(state_doc)) { // the most recent first
    if (seen.path.empty()) continue;
    if (!agents.empty() && std::none_of(agents.begin(), agents.end(), [&](const agent::Agent* a) { return a->id == seen.agent; }))
      continue;
    out.differs = seen.path != out.path;
    out.path = seen.path;
    out.origin = probe::PathOrigin::agents;
    out.seen = seen;
    break;
  }
  return out;
}

} // namespace mcphealth::ops
