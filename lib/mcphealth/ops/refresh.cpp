#include <mcphealth/ops/refresh.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/lockfile.hpp>

#include <algorithm>

namespace mcphealth::ops {

namespace json = boost::json;

namespace {

/// Whether a down server a call asked for is looked at before its backoff ends (a `look_again` refresh).
enum class LookAgain { no, yes };

/// Why `c` needs no probe now, as its report line says it (`fresh`; `down, next retry in 26s`); nothing when it
/// needs one (no mark, a healthy one expired, or an unhealthy one whose retry is due).
std::optional<std::string> no_check_needed(const state::StateSnapshot& snap, const config::Candidate& c, util::EpochMs now,
                                           gate::RuleSettings& settings, LookAgain look) {
  const json::object* entry = state::decision_entry(snap, c.tool_server, c.fingerprint);
  if (entry == nullptr) return std::nullopt;
  const state::ServerEntry e = state::ServerEntry::from_json(*entry);
  const gate::CacheRules rules = gate::cache_rules(&e, settings);
  const state::Outlook o = gate::outlook_under(e, now, rules);
  const std::int64_t look_ms = look == LookAgain::yes ? rules.look_again_ms : 0;
  if (o.freshness == state::Freshness::fresh) return "fresh";
  if (o.freshness == state::Freshness::in_backoff) {
    if (gate::look_due(e, now, look_ms)) return std::nullopt; // a look a blocked call asked for

    return "down, next retry in " + util::format_duration_short(o.retry_at ? *o.retry_at - now : 0);
  }
  return std::nullopt;
}



} // namespace

RefreshReport refresh_stale(const RefreshRequest& request, const config::Settings& settings,
                            const config::DiscoveryInputs& inputs, const util::Environment& env, util::Clock& clock,
                            probe::Prober& prober, recover::CommandRunner& runner) {
  RefreshReport report;
  const config::Resolution res = request.agent->catalogue.resolve(inputs, env);
  const config::Policy policy = config::load_policy(settings.policy_path, env, util::disk(), inputs.project_dir);
  state::StateStore store(settings.state_path.value, clock);
  for (const config::Candidate* c : res.winners()) {
    if (!request.servers.empty() &&
        std::none_of(request.servers.begin(), request.servers.end(),
                     [&](const std::string& s) { return res.key_of(s) == c->tool_server; })) {
      continue;
    }
    const config::Settings server_settings = config::settings_for(settings, policy, *c);
    gate::ResolvedRuleSettings rules(settings, server_settings, gate::Refresh::background);
    const LookAgain look = request.look_again ? LookAgain::yes : LookAgain::no;
    // The one verdict each check needs (StateStore::read_lazily), not every verdict the state has learned.
    if (auto why = no_check_needed(store.read_lazily(), *c, clock.now_ms(), rules, look)) {
      report.lines.push_back(c->tool_server + ": skipped (" + *why + ")");
      continue;
    }
    const auto lock = store.lock_probe(c->fingerprint, 0);
    if (!lock && lock.error().is(util::LockFailure::timed_out)) {
      report.lines.push_back(c->tool_server + ": skipped (being probed)");
      continue;
    }
    const state::StateSnapshot snap = store.read_lazily();
    if (auto why = no_check_needed(snap, *c, clock.now_ms(), rules, look)) { // checked by someone else since
      report.lines.push_back(c->tool_server + ": skipped (" + *why + ")");
      continue;
    }
    const json::object* prev = state::decision_entry(snap, c->tool_server, c->fingerprint);
    const config::Settings own = config::unhurried(config::settings_for(settings, policy, *c), env);
    const recover::Recovery recovery =
        recover::check_and_recover(gate::recovery_request(*c, own, prev, clock.now_ms()), prober, runner, env);
    if (probe::gives_no_verdict(recovery.result.kind)) {
      report.lines.push_back(c->tool_server + ": not probed (" + recovery.result.reason + ")");
      continue;
    }
    probe::MarkContext context = probe::mark_context(own, clock.now_ms(), c->definition.source.string(), recovery.restored_by);
    context.reconnect = recover::reconnect_note(recovery.reconnect, context.now, "refresh");
    const state::DefinitionInfo who{c->fingerprint, c->definition.name, c->tool_server,
                                    std::string(config::scope_name(c->scope)), c->project, c->definition.source.string(),
                                    c->shape};
    const state::UpdateResult written = store.update(
        [&](json::object& doc) {
          state::record_verdict(doc, who, context.now, state::Writer::refresh,
                                [&](json::object& e) { probe::mark_from_probe(e, recovery.result, context, util::disk()); });
          return true;
        },
        state::k_lock_wait_ms, state::Touches::only({c->fingerprint}));
    if (!written) {
      report.lines.push_back(c->tool_server + ": not recorded (" + written.error().message + ")");
      continue;
    }
    report.any_down = report.any_down || !recovery.result.ok;
    report.lines.push_back(c->tool_server + ": " + std::string(state::health_name(probe::health_of(recovery.result))) +
                           (recovery.result.ok ? std::string() : " (" + recovery.result.reason + ")"));
  }
  return report;
}

} // namespace mcphealth::ops
