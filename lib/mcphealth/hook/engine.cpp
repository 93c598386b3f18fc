#include <mcphealth/hook/engine.hpp>

#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

namespace mcphealth::hook {

namespace json = boost::json;

std::string resolve_event_name(const HookRequest& request, const util::Environment& env) {
  if (request.event_flag && !request.event_flag->empty()) return *request.event_flag;
  std::optional<std::string> from_payload = request.input.truncated
                                                ? find_raw_string_field(request.input.raw, "hook_event_name")
                                                : util::get_string(request.input.payload, "hook_event_name");
  if (from_payload && !from_payload->empty()) return *from_payload;
  if (auto v = env.get("CLAUDE_HOOK_EVENT_NAME"); v && !v->empty()) return *v;
  return "PreToolUse";
}

namespace {

using state::ServerEntry;
using state::StateStore;

/// One invocation's working state; the free function above is its only door.
class Invocation {
public:
  Invocation(const HookRequest& request, HookDeps& deps)
      : m_request(request), m_deps(deps) {}

  HookOutcome run();

private:
  HookOutcome pre_tool_use(const CallTarget& target);
  /// Steps 4-6 of PreToolUse: probe, mark, and on failure reconnect and probe again.
  HookOutcome probe_and_decide(const CallTarget& target, const config::ResolvedServer& server,
                               const std::string& source, const std::optional<state::ServerEntry>& before);
  HookOutcome post_tool_use_failure(const CallTarget& target);
  HookOutcome post_tool_use(const CallTarget& target);
  HookOutcome truncated(Event event);

  HookOutcome allow() { return m_outcome; }
  HookOutcome block(std::string message);
  /// Steps 1-2 of PreToolUse: a decision when the cache holds one (fresh healthy, or unhealthy in backoff).
  std::optional<HookOutcome> decide_from_cache(const CallTarget& target, const json::object* entry);

  void log(const std::string& line) { m_deps.log(line); }
  const config::Settings& settings();
  config::ConfigReader& reader();
  bool fail_open();
  void write(const StateStore::Mutator& mutate);
  bool remembered_unconfigured(const state::StateSnapshot& snap, const std::string& server);
  void remember_unconfigured(const std::string& server);
  std::int64_t probe_lock_wait_ms();
  probe::MarkContext mark_context(std::optional<std::string> source, std::optional<std::string> restored_by);

  const HookRequest& m_request;
  HookDeps& m_deps;
  /// The state file, resolved on first use: a non-MCP call never needs it.
  StateStore& store();
  std::optional<StateStore> m_store;
  HookOutcome m_outcome;
  std::optional<config::Settings> m_settings;
  std::optional<config::ConfigReader> m_reader;
  std::optional<std::string> m_fingerprint;
};

StateStore& Invocation::store() {
  if (!m_store) m_store.emplace(config::resolve_state_path(m_deps.env, m_request.overrides).value, m_deps.clock);
  return *m_store;
}

const config::Settings& Invocation::settings() {
  if (!m_settings) {
    // Resolved only off the hot path, so warnings about the setup never disturb a cache hit.
    m_settings = config::resolve_settings(m_deps.env, m_request.overrides);
    for (const auto& w : m_deps.setup_warnings) log(w);
    for (const auto& w : m_settings->warnings) log(w);
  }
  return *m_settings;
}

config::ConfigReader& Invocation::reader() {
  if (!m_reader) {
    const std::string cwd = util::get_string(m_request.input.payload, "cwd").value_or("");
    config::DiscoveryInputs in = config::discovery_inputs(m_deps.env, settings().config_paths.value, cwd);
    m_reader.emplace(config::search_order(in), in.project_dir);
  }
  return *m_reader;
}

bool Invocation::fail_open() {
  auto found = util::lookup_setting(m_deps.env, "ECC_MCP_HEALTH_FAIL_OPEN");
  return found && util::is_truthy(found->value);
}

HookOutcome Invocation::block(std::string message) {
  message = util::cap_utf8(message, k_max_model_text);
  log(message);
  if (fail_open()) return m_outcome; // same message, but the call goes through
  m_outcome.decision = HookOutcome::Decision::block;
  m_outcome.reason = std::move(message);
  return m_outcome;
}

void Invocation::write(const StateStore::Mutator& mutate) {
  state::UpdateResult r = store().update(mutate);
  if (r.moved_aside) {
    log("state file " + store().path().string() + " was not valid; its bytes were moved to " + r.moved_aside->string());
  }
  if (!r.ok()) log(r.message);
}

probe::MarkContext Invocation::mark_context(std::optional<std::string> source, std::optional<std::string> restored_by) {
  const auto& s = settings();
  return {m_deps.clock.now_ms(), s.ttl_ms.value, s.backoff_ms.value, s.max_backoff_ms.value, std::move(source),
          std::move(restored_by)};
}

std::int64_t Invocation::probe_lock_wait_ms() {
  const auto& s = settings();
  // Long enough for another hook's probe, reconnect and re-probe.
  return 2 * s.timeout_ms.value + s.reconnect_timeout_ms.value + 2000;
}

bool Invocation::remembered_unconfigured(const state::StateSnapshot& snap, const std::string& server) {
  const json::object* all = util::get_object(snap.doc, k_unconfigured_key);
  const json::object* miss = all ? util::get_object(*all, server) : nullptr;
  if (miss == nullptr) return false;
  const auto at = util::get_int(*miss, "checkedAt");
  if (!at || *at + settings().ttl_ms.value <= m_deps.clock.now_ms() || *at > m_deps.clock.now_ms()) return false;
  if (!m_fingerprint) m_fingerprint = config::config_fingerprint(reader().sources());
  return util::get_string(*miss, "configFingerprint") == m_fingerprint;
}

void Invocation::remember_unconfigured(const std::string& server) {
  if (!m_fingerprint) m_fingerprint = config::config_fingerprint(reader().sources());
  const util::EpochMs now = m_deps.clock.now_ms();
  const std::string fingerprint = *m_fingerprint;
  const std::int64_t ttl = settings().ttl_ms.value;
  write([&](json::object& doc) {
    json::value& all = doc[k_unconfigured_key];
    if (!all.is_object()) all = json::object();
    // Drop misses that have expired, so names seen once do not pile up in the file.
    std::vector<std::string> stale;
    for (const auto& kv : all.as_object()) {
      const json::object* m = kv.value().is_object() ? &kv.value().get_object() : nullptr;
      const auto at = m ? util::get_int(*m, "checkedAt") : std::nullopt;
      if (!at || *at + ttl <= now) stale.emplace_back(kv.key());
    }
    for (const auto& name : stale) all.as_object().erase(name);
    json::object miss;
    miss["checkedAt"] = now;
    miss["configFingerprint"] = fingerprint;
    all.as_object()[server] = std::move(miss);
    return true;
  });
}

std::optional<HookOutcome> Invocation::decide_from_cache(const CallTarget& target, const json::object* entry) {
  if (entry == nullptr) return std::nullopt;
  const ServerEntry e = ServerEntry::from_json(*entry);
  const util::EpochMs now = m_deps.clock.now_ms();
  if (e.healthy() && e.expires_at && *e.expires_at > now) return allow();
  if (e.unhealthy() && e.next_retry_at && *e.next_retry_at > now) {
    return block(target.server + " is marked unhealthy until " + util::format_iso8601_ms(*e.next_retry_at) +
                 "; skipping " + target.tool);
  }
  return std::nullopt;
}

HookOutcome Invocation::pre_tool_use(const CallTarget& target) {
  // The hot path: one read of the state file, no config read, no process.
  state::StateSnapshot snap = store().read();
  if (auto cached = decide_from_cache(target, snap.server(target.server))) return *cached;

  const std::string& name = target.server;
  if (remembered_unconfigured(snap, name)) {
    log("No MCP config found for " + name + "; skipping preflight probe");
    return allow();
  }
  std::optional<config::ServerDefinition> def = reader().find(name);
  if (!def) {
    log("No MCP config found for " + name + "; skipping preflight probe");
    remember_unconfigured(name);
    return allow();
  }
  config::ResolvedServer server = config::resolve_server(*def, m_deps.env);
  for (const auto& var : server.unset_vars) {
    log(name + " config references ${" + var + "}, which is not set; it is passed on literally");
  }
  // One probe at a time per server: a hook that finds one in flight waits for its result.
  util::RecordLock::Outcome lock_outcome{};
  util::RecordLock lock = util::RecordLock::acquire(store().probe_lock_path(), name, probe_lock_wait_ms(),
                                                    m_deps.clock, lock_outcome);
  if (lock_outcome == util::RecordLock::Outcome::taken_after_wait) {
    snap = store().read();
    if (auto after_wait = decide_from_cache(target, snap.server(name))) return *after_wait;
  }
  const json::object* entry_obj = snap.server(name);
  const std::optional<ServerEntry> before =
      entry_obj ? std::optional<ServerEntry>(ServerEntry::from_json(*entry_obj)) : std::nullopt;
  return probe_and_decide(target, server, def->source.string(), before);
}

HookOutcome Invocation::probe_and_decide(const CallTarget& target, const config::ResolvedServer& server,
                                         const std::string& source, const std::optional<ServerEntry>& before) {
  const std::string& name = target.server;
  const auto& s = settings();
  probe::ProbeResult result = m_deps.prober.probe(server, s.timeout_ms.value);
  if (result.kind == probe::Kind::not_probed) {
    log(name + " could not be probed (" + result.reason + "); skipping preflight probe");
    return allow();
  }
  if (result.ok) {
    const bool was_unhealthy = before && before->unhealthy();
    write([&](json::object& doc) {
      probe::mark_from_probe(state::entry_of(doc, name), result, mark_context(source, std::nullopt));
      return true;
    });
    if (was_unhealthy) log(name + " connection restored");
    return allow();
  }

  std::string reason = result.reason;
  std::string attempt_note;
  const state::FailureCode last_code =
      result.code.present() ? result.code : (before ? before->last_failure_code : state::FailureCode::none());
  const bool wants_reconnect = (result.code.present() || (before && before->unhealthy())) && !last_code.is_rate_limit();
  if (wants_reconnect) {
    if (auto command = find_reconnect_command(name, m_deps.env)) {
      ReconnectOutcome rc = run_reconnect(*command, name, /*defined=*/true, s.reconnect_timeout_ms.value, m_deps.runner);
      if (rc.status == ReconnectOutcome::Status::ok) {
        probe::ProbeResult again = m_deps.prober.probe(server, s.timeout_ms.value);
        if (again.ok) {
          write([&](json::object& doc) {
            probe::mark_from_probe(state::entry_of(doc, name), again, mark_context(source, "reconnect-command"));
            return true;
          });
          log(name + " connection restored after reconnect");
          return allow();
        }
        reason += "; reconnect reprobe failed: " + again.reason;
        attempt_note = " Reconnect attempt: ok.";
      } else {
        attempt_note = " Reconnect attempt: " + rc.reason + ".";
      }
    }
  }
  result.reason = reason;
  write([&](json::object& doc) {
    probe::mark_from_probe(state::entry_of(doc, name), result, mark_context(source, std::nullopt));
    return true;
  });
  return block(name + " is unavailable (" + reason + "). Blocking " + target.tool +
               " so Claude can fall back to non-MCP tools." + attempt_note);
}

HookOutcome Invocation::post_tool_use_failure(const CallTarget& target) {
  const json::object& payload = m_request.input.payload;
  if (util::get_bool(payload, "is_interrupt") == true) return allow(); // the user pressed Esc
  const std::string text = failure_text(payload);
  const std::optional<state::FailureCode> code = classify_failure(text);
  if (!code) return allow();

  const std::string& name = target.server;
  const auto& s = settings();
  std::optional<config::ServerDefinition> def = reader().find(name);
  const std::optional<std::string> source = def ? std::optional<std::string>(def->source.string()) : std::nullopt;
  util::EpochMs retry_at = 0;
  write([&](json::object& doc) {
    json::object& entry = state::entry_of(doc, name);
    state::mark_unhealthy(entry, {m_deps.clock.now_ms(), util::cap_utf8(text, k_max_model_text), *code, source,
                                  s.backoff_ms.value, s.max_backoff_ms.value, std::nullopt, std::nullopt});
    retry_at = util::get_int(entry, "nextRetryAt").value_or(0);
    return true;
  });
  if (retry_at == 0) retry_at = m_deps.clock.now_ms() + s.backoff_ms.value; // not written; say when it would be
  log(name + " reported " + code->text() + "; marking server unhealthy and attempting reconnect");

  bool restored = false;
  std::optional<ReconnectCommand> command = find_reconnect_command(name, m_deps.env);
  if (!command) {
    log(name + " reconnect skipped: no reconnect command configured");
  } else if (code->is_rate_limit()) {
    log(name + " reconnect skipped: the server is rate limiting (429), and a restart would burn the rate limit");
  } else {
    util::RecordLock::Outcome lock_outcome{};
    util::RecordLock lock =
        util::RecordLock::acquire(store().probe_lock_path(), name, 0, m_deps.clock, lock_outcome);
    if (lock_outcome == util::RecordLock::Outcome::timed_out) {
      log(name + " reconnect skipped: another hook is already probing or reconnecting it");
    } else {
      ReconnectOutcome rc = run_reconnect(*command, name, def.has_value(), s.reconnect_timeout_ms.value, m_deps.runner);
      if (rc.status == ReconnectOutcome::Status::refused) {
        log(name + " reconnect skipped: " + rc.reason);
      } else if (rc.status == ReconnectOutcome::Status::failed) {
        log(name + " reconnect failed: " + rc.reason);
      } else if (!def) {
        log(name + " reconnect completed but no config was available for a follow-up probe");
      } else {
        config::ResolvedServer server = config::resolve_server(*def, m_deps.env);
        probe::ProbeResult again = m_deps.prober.probe(server, s.timeout_ms.value);
        if (!again.ok) {
          log(name + " reconnect command ran, but health probe still failed: " + again.reason);
        } else {
          write([&](json::object& doc) {
            probe::mark_from_probe(state::entry_of(doc, name), again, mark_context(source, "post-failure-reconnect"));
            return true;
          });
          log(name + " connection restored");
          restored = true;
        }
      }
    }
  }
  if (!restored) {
    m_outcome.additional_context = util::cap_utf8(
        "MCP server " + name + " reported " + code->text() + " and is marked unhealthy until " +
            util::format_iso8601_ms(retry_at) + ". Do not retry its tools before then; use other tools instead.",
        k_max_model_text);
  }
  return allow();
}

HookOutcome Invocation::post_tool_use(const CallTarget& target) {
  state::StateSnapshot snap = store().read();
  const json::object* entry = snap.server(target.server);
  if (entry == nullptr) return allow();
  const ServerEntry e = ServerEntry::from_json(*entry);
  const util::EpochMs now = m_deps.clock.now_ms();
  const auto& s = settings();
  const auto needs_refresh = [&](const ServerEntry& cur) {
    if (cur.unhealthy()) return true;
    return cur.healthy() && cur.expires_at.value_or(0) - now < s.ttl_ms.value / 2;
  };
  if (!needs_refresh(e)) return allow(); // this runs on every success: write nothing when nothing changes
  bool restored = false;
  write([&](json::object& doc) {
    json::object& cur = state::entry_of(doc, target.server);
    const ServerEntry fresh = ServerEntry::from_json(cur);
    if (!needs_refresh(fresh)) return false;
    if (fresh.unhealthy()) {
      state::mark_healthy(cur, {now, s.ttl_ms.value, fresh.source, std::string("tool-success"), std::nullopt});
      restored = true;
    } else {
      cur["checkedAt"] = now;
      cur["expiresAt"] = now + s.ttl_ms.value;
    }
    return true;
  });
  if (restored) log(target.server + " connection restored (a tool call succeeded)");
  return allow();
}

HookOutcome Invocation::truncated(Event event) {
  const std::optional<CallTarget> target = find_target_in_raw(m_request.input.raw);
  const std::string limit = std::to_string(m_request.input.limit);
  if (event == Event::pre_tool_use) {
    const std::string tool = target ? target->tool : std::string("the call");
    if (!target) {
      const auto tool_name = find_raw_string_field(m_request.input.raw, "tool_name");
      if (tool_name) return allow(); // a non-MCP call: nothing to say
      log("Hook input exceeded " + limit + " bytes and no tool name was found in it; allowing the call");
      return allow();
    }
    // The JS hook's wording, which people grep for.
    if (fail_open()) {
      log("Hook input exceeded " + limit + " bytes while checking " + target->server + "; allowing " + tool +
          " because fail-open mode is enabled");
      return allow();
    }
    return block("Hook input exceeded " + limit + " bytes while checking " + target->server + "; blocking " + tool +
                 " to avoid bypassing MCP health checks");
  }
  if (event == Event::post_tool_use_failure && target) {
    log("Hook input exceeded " + limit + " bytes; not recording the failure of " + target->tool + " on " +
        target->server);
  }
  return allow();
}

HookOutcome Invocation::run() {
  m_outcome.event_name = resolve_event_name(m_request, m_deps.env);
  const Event event = event_from_name(m_outcome.event_name);
  if (m_request.input.truncated) return truncated(event);
  const std::optional<CallTarget> target = find_target(m_request.input.payload);
  if (!target) return allow();
  switch (event) {
  case Event::pre_tool_use: return pre_tool_use(*target);
  case Event::post_tool_use_failure: return post_tool_use_failure(*target);
  case Event::post_tool_use: return post_tool_use(*target);
  case Event::other: break;
  }
  return allow();
}

} // namespace

HookOutcome run_hook_engine(const HookRequest& request, HookDeps& deps) { return Invocation(request, deps).run(); }

} // namespace mcphealth::hook
