#include <mcphealth/gate/plan.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/state/outage.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::gate {

namespace messages = hook::messages;
using hook::HookOutcome;
using hook::k_max_model_text_bytes;

std::string BlockLine::with(const std::string& act) const {
  return found + (join == Join::clause ? "; " : ". ") + act + after;
}

Plan allow(const std::string& event, std::optional<std::string> context) {
  Plan plan;
  plan.answer.event_name = event;
  // Whatever the model reads passes the one redactor last: a server's or a tool's words may hold a secret.
  if (context) plan.answer.additional_context = util::cap_utf8(util::redact(*context), k_max_model_text_bytes);
  return plan;
}

Plan block(const std::string& event, BlockLine line, std::string for_model) {
  Plan plan = allow(event);
  plan.answer.decision = HookOutcome::Decision::block;
  plan.answer.reason =
      util::cap_utf8(util::redact(std::string(messages::k_block_lead) + for_model), k_max_model_text_bytes);
  plan.block_line = std::move(line);
  return plan;
}

Plan settle(Plan plan, FailOpen fail_open) {
  if (!plan.block_line) return plan;
  const BlockLine& line = *plan.block_line;
  if (fail_open == FailOpen::yes) {
    if (!line.give_way.empty()) {
      plan.said.push_back(util::cap_utf8(line.with(line.give_way), k_max_model_text_bytes)); // the JS hook's own line
    } else {
      // The JS hook says its block line under fail-open too (people grep for "skipping" and "Blocking"); the line
      // after it says what happens instead.
      plan.said.push_back(util::cap_utf8(line.with(line.action), k_max_model_text_bytes));
      plan.said.push_back("fail-open mode is enabled: the call is allowed");
    }
    plan.answer.decision = HookOutcome::Decision::allow;
    plan.answer.reason.clear();
  } else {
    plan.said.push_back(util::cap_utf8(line.with(line.action), k_max_model_text_bytes));
  }
  plan.block_line.reset();
  return plan;
}

std::optional<Plan> answer_from_cache(const std::string& event, const hook::CallTarget& call, const CacheDecision& d,
                                      util::EpochMs now, const Voice& voice) {
  const state::ServerEntry& e = d.entry;
  const state::Outlook& st = d.outlook;
  std::optional<Plan> plan;
  switch (d.verdict) {
  case CacheVerdict::allow:
    plan = allow(event);
    if (d.trial_call) {
      plan->said.push_back(call.server + " " + (e.upstream ? "failed on its upstream" : "fails on calls") + ": " +
                           std::to_string(e.failed_calls) + " in a row; its retry has come, so " + call.tool +
                           " is the trial call: if it succeeds the server is back, if it fails it is blocked longer");
    }
    if (d.credentials_changed) {
      plan->said.push_back(call.server + " refused " + voice.name + "'s token, and " + voice.name +
                           "'s credentials changed since (a login or a token refresh): letting " + call.tool +
                           " try the new one");
    }
    break;
  case CacheVerdict::block_misconfigured:
    plan = block(event,
                 {call.server + " is marked misconfigured until " + util::format_iso8601_ms(*st.retry_at),
                  "skipping " + call.tool},
                 messages::blocked_misconfigured(
                     call.server, call.tool, d.missing_variable.empty() ? "a variable" : d.missing_variable, voice));
    break;
  case CacheVerdict::block_down: {
    messages::Down down{call.server,         call.tool,          e.last_error.value_or(""),
                        e.last_failure_code, *st.retry_at - now, std::nullopt,
                        e.failure_count};
    down.client = voice;
    down.credentials_refused = d.credentials_refused;
    if (e.down_since && *e.down_since <= now) down.down_for_ms = now - *e.down_since;
    // Down for failing on calls, not a later outage of another kind that the count outlived.
    if (fails_on_calls(e)) {
      down.failed_calls = e.failed_calls;
      down.failed_tool = e.last_failed_tool.value_or("");
      down.upstream = e.upstream;
    }
    plan = block(
        event,
        {call.server + " is marked unhealthy until " + util::format_iso8601_ms(*st.retry_at), "skipping " + call.tool},
        messages::blocked_from_cache(down));
    if (d.look_again) plan->look.push_back(hook::server_key(call));
    break;
  }
  case CacheVerdict::allow_and_refresh:
    plan = allow(event);
    plan->refresh.push_back(hook::server_key(call));
    break;
  case CacheVerdict::no_entry:
  case CacheVerdict::probe: return std::nullopt;
  }
  if (plan->blocks() && d.retry_capped) {
    plan->said.push_back(call.server + ": nextRetryAt " + util::format_iso8601_ms(*e.next_retry_at) +
                         " is further out than any backoff writes; honouring it only until " +
                         util::format_iso8601_ms(*st.retry_at));
  }
  return plan;
}

std::string describe(const CacheDecision& d, const std::string& server, util::EpochMs now) {
  const state::ServerEntry& e = d.entry;
  const state::Outlook& st = d.outlook;
  switch (d.verdict) {
  case CacheVerdict::no_entry: return "cache: no entry for " + server;
  case CacheVerdict::allow:
    if (d.credentials_changed) {
      return "cache: refused the agent's token " + util::format_duration_short(now - e.checked_at.value_or(now)) +
             " ago, and the agent's credential files changed since: allow, to try the new one";
    }
    if (d.trial_call) {
      return "cache: fails on calls (" + std::to_string(e.failed_calls) + " in a row), its retry due: allow, as the trial call";
    }
    return "cache: healthy, fresh for " + util::format_duration_short(st.fresh_until.value_or(now) - now) + ": allow";
  case CacheVerdict::block_down:
  case CacheVerdict::block_misconfigured:
    return "cache: unhealthy (" + e.last_error.value_or("") + "), retry in " +
           util::format_duration_short(*st.retry_at - now) + ": block" +
           (d.look_again ? "; last looked at " + util::format_duration_short(now - e.checked_at.value_or(now)) +
                               " ago: a background look for the next call"
                         : std::string());
  case CacheVerdict::allow_and_refresh:
    return "cache: healthy but expired " + util::format_duration_short(st.stale_for_ms) +
           " ago: allow now; a background refresh re-probes it";
  case CacheVerdict::probe: break;
  }
  if (st.freshness == state::Freshness::stale) {
    return "cache: healthy but expired " + util::format_duration_short(st.stale_for_ms) +
           " ago, by more than a TTL (or refresh is inline): probe now";
  }
  if (st.freshness == state::Freshness::due) return "cache: unhealthy, retry due: probe";
  if (d.code_changed) {
    return "cache: fails on calls, retry in " + util::format_duration_short(st.retry_at.value_or(now) - now) +
           ", but a file of its code changed since: probe now, and the call tries it if it answers";
  }
  if (d.look_again) {
    return "cache: unhealthy, retry in " + util::format_duration_short(st.retry_at.value_or(now) - now) +
           ", but last looked at " + util::format_duration_short(now - e.checked_at.value_or(now)) +
           " ago and a call asks for it: look now (no reconnect before its retry)";
  }
  return "cache: status '" + e.status + "' decides nothing: probe";
}

Plan allow_unbound(const std::string& event, const std::string& server, const state::Binding& binding) {
  Plan plan = allow(event);
  if (binding.meaning() == state::Binding::Meaning::undefined) {
    plan.said.push_back("No MCP config found for " + server + "; skipping preflight probe");
    if (!binding.reason.empty())
      plan.said.push_back("it may be defined where mcphealth could not look: " + binding.reason);
  } else {
    plan.said.push_back(server + " is not checked: " + binding.reason + "; skipping preflight probe");
  }
  return plan;
}

Plan answer_after_probe(const std::string& event, const ProbeFinding& f, util::EpochMs now, const Voice& voice) {
  const probe::ProbeResult& result = f.result;
  const std::string& name = f.call.server;
  const recover::Attempt attempt = f.recovery.reconnect.attempt;
  Plan plan = allow(event);
  if (result.kind == probe::Kind::not_probed || result.kind == probe::Kind::local_fault) {
    plan.said.push_back(name + " could not be probed (" + result.reason + "); skipping preflight probe");
    return plan;
  }
  if (result.ok) {
    if (f.recovery.restored_by)
      plan.said.push_back(name + " connection restored after reconnect");
    else if (f.was_unhealthy)
      plan.said.push_back(name + " connection restored");
    return plan;
  }
  std::string attempt_note;
  if (attempt == recover::Attempt::ok || attempt == recover::Attempt::failed || attempt == recover::Attempt::refused) {
    attempt_note = " Reconnect attempt: " + recover::describe(f.recovery.reconnect) + ".";
  }
  // The JS hook's wording, which people grep for.
  const std::string fall_back = "Blocking " + f.call.tool + " so " + voice.falls_back + " can fall back to non-MCP tools.";
  if (result.kind == probe::Kind::misconfigured) {
    return block(
        event,
        {name + " is " + result.reason + ", so it fails under " + voice.name + " too", fall_back, BlockLine::Join::sentence},
        messages::blocked_misconfigured(name, f.call.tool,
                                        f.missing_variable.empty() ? "a variable" : f.missing_variable, voice));
  }
  messages::Down down{name, f.call.tool, result.reason, result.code};
  down.client = voice;
  if (f.retry_at) down.blocked_for_ms = *f.retry_at - now;
  down.restart_tried = attempt == recover::Attempt::ok || attempt == recover::Attempt::failed;
  down.credentials_refused = refuses_credentials(result.kind, result.code);
  return block(event,
               {name + " is unavailable (" + result.reason + ")", fall_back, BlockLine::Join::sentence, attempt_note},
               messages::blocked_after_probe(down));
}

Plan answer_incomplete(const std::string& event_name, hook::Event event, const std::optional<hook::CallTarget>& call,
                       bool names_tool, std::size_t limit) {
  const std::string bytes = std::to_string(limit);
  if (event == hook::Event::pre_tool_use) {
    if (!call) {
      if (names_tool) return allow(event_name); // not an MCP call
      // The name comes after the cut: it may be an MCP call, and letting it through unchecked is the bypass.
      return block(event_name,
                   {"Hook input exceeded " + bytes + " bytes before its tool name",
                    "blocking the call to avoid bypassing MCP health checks"},
                   messages::blocked_input_too_large_unnamed(bytes));
    }
    return block(event_name,
                 {"Hook input exceeded " + bytes + " bytes while checking " + call->server,
                  "blocking " + call->tool + " to avoid bypassing MCP health checks", BlockLine::Join::clause, "",
                  "allowing " + call->tool + " because fail-open mode is enabled"},
                 messages::blocked_input_too_large(call->server, call->tool, bytes));
  }
  Plan plan = allow(event_name);
  if (event == hook::Event::post_tool_use_failure && call) {
    plan.said.push_back("Hook input exceeded " + bytes + " bytes; not recording the failure of " + call->tool + " on " +
                        call->server);
  }
  return plan;
}

AfterSuccess after_success(const state::ServerEntry& entry, util::EpochMs now, std::int64_t ttl_ms) {
  if (entry.unhealthy()) return AfterSuccess::restore;
  if (entry.healthy() && entry.expires_at.value_or(0) - now < ttl_ms / 2) return AfterSuccess::extend;
  if (entry.failed_calls > 0) return AfterSuccess::forget_failed_calls;
  return AfterSuccess::nothing;
}

AfterSuccess take_success_in(boost::json::object& entry, util::EpochMs now, std::int64_t ttl_ms) {
  const state::ServerEntry fresh = state::ServerEntry::from_json(entry);
  const std::int64_t ttl = fresh.ttl_ms().value_or(ttl_ms);
  const AfterSuccess after = after_success(fresh, now, ttl);
  if (after == AfterSuccess::nothing) return after;
  state::clear_failed_calls(entry); // a call succeeded: the row of failed ones ends
  switch (after) {
  case AfterSuccess::nothing:
  case AfterSuccess::forget_failed_calls: break;
  case AfterSuccess::restore: {
    state::MarkContext restored;
    restored.now = now;
    restored.ttl_ms = ttl;
    restored.source = fresh.source;
    restored.restored_by = state::RestoredBy::tool_success;
    state::mark_healthy(entry, state::healthy_mark(restored));
    break;
  }
  case AfterSuccess::extend: state::refresh_healthy(entry, now, ttl); break;
  }
  return after;
}

bool is_proof(const hook::FailureReading& reading) { return reading.code.has_value() && !reading.wording.empty(); }

bool ask_after_failure(const hook::FailureReading& reading, bool remote, bool probe_skipped) {
  if (probe_skipped) return false;
  // A remote server is cheap to ask: asked unless the client's own framing gave the status, or said it gave up
  // waiting (a slow server answers a probe: that says nothing of a call it does not answer in time).
  if (remote) {
    return !is_proof(reading) || (reading.says != hook::FailureReading::Says::status &&
                                  reading.says != hook::FailureReading::Says::timeout);
  }
  // A stdio server is asked only when generic words in the text are all there is: they may be the tool's own.
  return reading.code.has_value() && !is_proof(reading);
}

namespace {

/// True when the client's POST failed without a status and the probe's POST got a refusal (forbidden, rate limited,
/// unavailable, ...): what the client met. A status a live endpoint gives a probe otherwise counts as up
/// (`reachable`), and an unauthorized one only says the probe had no token.
bool refuses_as_it_refused_the_client(const hook::FailureReading& reading, const probe::ProbeResult& asked) {
  return reading.says == hook::FailureReading::Says::http_unknown && asked.http_status &&
         (*asked.http_status < 200 || *asked.http_status >= 300) &&
         state::row_of_status(*asked.http_status).kind != state::Outage::unauthorized;
}

/// True when a probe's refusal is the one the client met: the client said unauthorized in its own framing, or its
/// text is the server's own OAuth error description. Without that, a probe's 401 only says the probe had no token
/// (the client has one): a tool's text saying "401 Unauthorized" (its own API's) is no refusal of the agent's token.
bool failure_is_the_servers_refusal(const hook::FailureReading& reading, const std::string& text,
                                    const probe::ProbeResult& asked) {
  if (is_proof(reading) && reading.code && state::outage_of(*reading.code) == state::Outage::unauthorized) return true;
  return asked.auth_error && !asked.auth_error->empty() && text.find(*asked.auth_error) != std::string::npos;
}

} // namespace

Asked read_asked(const hook::FailureReading& reading, const std::string& text, const probe::ProbeResult& asked,
                 state::UnhealthyMark& mark) {
  if (asked.kind == probe::Kind::not_probed || asked.kind == probe::Kind::local_fault) return Asked::unknown;
  if (!asked.ok || refuses_as_it_refused_the_client(reading, asked)) {
    std::string why = asked.reason;
    if (why.empty() && asked.http_status) why = "HTTP " + std::to_string(*asked.http_status);
    mark.error = util::cap_utf8(why.empty() ? text : why, k_max_model_text_bytes);
    mark.code = asked.code.present() ? asked.code
                : asked.http_status  ? state::FailureCode::http(*asked.http_status)
                                     : state::FailureCode::transport();
    mark.retry_after_ms = asked.retry_after_ms;
    mark.probe = asked.details();
    return Asked::down;
  }
  if (asked.kind == probe::Kind::needs_auth && failure_is_the_servers_refusal(reading, text, asked)) {
    // The client's own token no longer works: the server refuses it as it refuses a probe without one.
    mark.code = state::code_of(state::Outage::unauthorized);
    mark.probe = asked.details();
    return Asked::down;
  }
  return Asked::up;
}

Plan answer_after_failure(const std::string& event, const messages::Down& down, FailureRecord record) {
  switch (record) {
  case FailureRecord::restored: return allow(event, messages::failed_then_restored(down.server, down.code));
  case FailureRecord::marked: return allow(event, messages::failed_and_marked_down(down));
  case FailureRecord::not_recorded: break;
  }
  // Nothing was recorded, so nothing will block the next call: say what is known, not a mark that does not exist.
  return allow(event, messages::failed_not_recorded(down));
}

Plan plan_session_start(const std::string& event, const std::vector<SessionServer>& servers, util::EpochMs now,
                        const Voice& voice) {
  using Note = messages::SessionNote;
  std::vector<Note> notes;
  std::vector<std::string> refresh;
  for (const SessionServer& s : servers) {
    if (s.entry && s.health == state::Health::misconfigured && s.unset_variable) {
      notes.push_back({s.name, Note::Kind::misconfigured, *s.unset_variable, std::nullopt});
      continue;
    }
    if (!s.entry) {
      if (!s.skipped) refresh.push_back(s.name);
      continue;
    }
    const state::ServerEntry& e = *s.entry;
    const state::Outlook st = outlook_under(e, now, s.rules);
    if (s.health == state::Health::needs_auth) notes.push_back({s.name, Note::Kind::needs_auth, {}, std::nullopt});
    if (st.freshness == state::Freshness::in_backoff) {
      notes.push_back({s.name, Note::Kind::down, e.last_error.value_or(""), *st.retry_at - now});
    } else if (st.freshness != state::Freshness::fresh && !s.skipped) {
      // Down, its retry due: the refresh probes it now, and the model hears it may come back.
      if (st.freshness == state::Freshness::due && e.unhealthy()) {
        notes.push_back({s.name, Note::Kind::rechecking, e.last_error.value_or(""), std::nullopt});
      }
      refresh.push_back(s.name);
    }
  }
  Plan plan = notes.empty() ? allow(event) : allow(event, messages::session_start(notes, voice));
  plan.refresh = std::move(refresh);
  return plan;
}

} // namespace mcphealth::gate
