#pragma once
// Forgetting servers: the one-line fix for a server stuck in backoff, done under the hook's own lock.
#include <mcphealth/ops/status.hpp>
#include <mcphealth/state/store.hpp>

#include <boost/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// What a reset did: the update's outcome (nothing written for a dry run) and the names removed, or that would be.
struct ResetResult {
  state::UpdateResult update = state::Update{};
  std::vector<std::string> removed;
};

/// Whether a reset only says what it would remove.
enum class DryRun { no, yes };

/// Removes the entries `names` (or, with an empty list, the ones `select` picks) and their remembered misses,
/// atomically under the state lock.
ResetResult remove_entries(state::StateStore& store, const std::vector<std::string>& names,
                           const std::function<bool(const std::string&, const boost::json::object&)>& select,
                           DryRun dry_run);

/// Removes the verdicts of `fingerprints` (superseded ones: ops::StatusRow::superseded), each with the `servers`
/// entry that mirrors it, atomically under the state lock; `removed` lists the fingerprints that were there.
ResetResult remove_verdicts(state::StateStore& store, const std::vector<std::string>& fingerprints, DryRun dry_run);

/// What no agent uses any more, once its TTL has run out (`report` is status's view of the state, configs read
/// whole): the verdicts status calls retired (a token rotated, a folder moved), and the entries of the `servers`
/// map (the JS hook's mirror by name) of names no config defines and no outage holds. Removed under the state lock;
/// the unattended prober calls it, so old verdicts go without a `reset --stale`.
ResetResult forget_what_no_agent_uses(state::StateStore& store, const StatusReport& report, std::int64_t ttl_ms);

} // namespace mcphealth::ops
