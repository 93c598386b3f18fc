#pragma once
// Turning probe results into state marks: one rule for the hook and for `mcphealth probe`.
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/files.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::probe {

/// What a mark needs besides the result (state::MarkContext).
using MarkContext = state::MarkContext;

/// A probe meets a server that refused the agent's token as it meets any OAuth server, asking for a token
/// (`needs-auth`, which allows the call): while the agent's credential files are there (`changed_at`: when the
/// newest last changed; nothing: none is there) and unchanged since its last check, a call would carry the token
/// that was refused, so the outage holds (state::waits_for_credentials).
ProbeResult held_for_credentials(const boost::json::object* entry, ProbeResult result,
                                 const std::optional<state::FilesSeen>& seen);

/// A probe meets a server that fails on calls (state::fails_on_calls: a crash loop, an upstream outage) answering its
/// handshake, which it did all along: unless a file of its code changed after its last check (`code_changed_at`: a
/// fix deployed), a passing probe proves nothing and the outage holds until a trial call, a fix or a reset ends it.
/// With a declared check that failed at its last look, a passing check ends it: the check saw what broke the calls.
/// The result then says so, with the entry's own code.
ProbeResult held_for_trial(const boost::json::object* entry, ProbeResult result,
                           const std::optional<state::FilesSeen>& seen);

/// What `files` are now, through `reader` (a stat each): the newest modification time, and a stamp of each one's
/// modification time, size and inode (or its absence). Nothing for no files.
std::optional<state::FilesSeen> files_seen(const std::vector<std::string>& files, util::FileReader& reader);

/// The context for marking a server under `settings` (its TTL and backoff, policy applied).
MarkContext mark_context(const config::Settings& settings, util::EpochMs now, std::optional<std::string> source,
                         std::optional<state::RestoredBy> restored_by);

/// True when `result` is a probe that met silence (its handshake unanswered within the probe's timeout) and `entry`
/// is down because a call timed out in the agent itself: the probe waited less than the agent does, so it proves
/// nothing, and the server stays down for that reason until it answers (issue 38 item 3: a hung server stays
/// blocked; a slow one answers its handshake).
bool silence_keeps_a_timeout(const boost::json::object* entry, const ProbeResult& result);

/// `result` as the verdict it gives against `entry`: a failure, code timeout, when silence_keeps_a_timeout; else
/// itself. The hook's answer and every recorded mark read this.
ProbeResult held_to(const boost::json::object* entry, ProbeResult result);

/// Marks `entry` healthy or unhealthy from `result` (reason, code, Retry-After and probe details included).
/// The files an outage waits on are stat'ed through `files`.
void mark_from_probe(boost::json::object& entry, const ProbeResult& result, const MarkContext& context,
                     util::FileReader& files);

/// One server's probe, as `record_probes` needs it.
struct ProbedServer {
  /// Who the verdict is about.
  state::DefinitionInfo who;
  ProbeResult result;
  /// When its probe started: an entry checked after that (by a hook, meanwhile) is newer and wins.
  util::EpochMs started_at = 0;
  MarkContext context;
};

/// Records every result in `doc`, keeping verdicts that were checked after the probe started; `skipped` receives
/// the names left alone because a newer check won. Returns true when anything changed.
bool record_probes(boost::json::object& doc, const std::vector<ProbedServer>& probed, state::Writer by, util::FileReader& files,
                   std::vector<std::string>& skipped);

} // namespace mcphealth::probe
