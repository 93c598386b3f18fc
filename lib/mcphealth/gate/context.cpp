#include <mcphealth/gate/context.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/gate/bindings.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/history.hpp>

#include <algorithm>

namespace mcphealth::gate {

namespace json = boost::json;

Context::Context(const HookRequest& request, HookDeps& deps)
    : m_request(request), m_deps(deps), m_agent(request.client()),
      m_hc(m_agent.dialect.read(request.input, request.event_flag, deps.env)) {}

Voice Context::voice() const {
  return {std::string(m_agent.name), std::string(m_agent.authenticate), std::string(m_agent.authenticate_short)};
}

state::Store& Context::store() {
  if (m_deps.store) return *m_deps.store;
  if (!m_file_store)
    m_file_store.emplace(config::resolve_state_path(m_deps.env, m_request.overrides).value, m_deps.clock);
  return *m_file_store;
}

bool Context::update_state(const state::Mutator& mutate, std::int64_t lock_wait_ms) {
  // A write the hook makes anyway also says the hook ran, and with which PATH (doctor; probes outside a session):
  // no write of its own, so the cache hit stays without one.
  const state::HookSeen seen{.agent = std::string(m_agent.id), .at = now(), .event = m_hc.event_name,
                             .path = m_deps.env.get("PATH").value_or("")};
  const state::UpdateResult r = store().update(
      [&](json::object& doc) {
        if (!mutate(doc)) return false;
        state::note_hook_seen(doc, seen);
        return true;
      },
      lock_wait_ms);
  if (!r) {
    log(r.error().message);
    return false;
  }
  if (r->moved_aside) {
    log("state file " + store().path().string() + " was not valid; its bytes were moved to " +
        r->moved_aside->string());
  }
  return true;
}

void Context::note_seen() {
  update_state([](json::object&) { return true; });
}

void Context::note_blocked(const hook::HookOutcome& answer) {
  if (!m_target_call || answer.decision != hook::HookOutcome::Decision::block) return;
  const state::HistoryEvent line{.at = now(), .kind = state::HistoryKind::blocked, .server = m_target_call->server,
                                 .by = std::string(m_agent.id), .text = answer.reason, .event = answer.event_name};
  if (auto problem = store().append_history({line})) log(*problem);
}

void Context::note_failed_call(const hook::CallTarget& call, const std::string& text) {
  const state::HistoryEvent line{.at = now(), .kind = state::HistoryKind::failed_call, .server = call.server,
                                 .by = std::string(m_agent.id), .text = text, .event = m_hc.event_name};
  if (auto problem = store().append_history({line})) log(*problem);
}

const config::Settings& Context::settings() {
  if (!m_settings) m_settings = config::resolve_settings(m_deps.env, m_request.overrides);
  return *m_settings;
}

void Context::say_setup_warnings() {
  for (const auto& w : m_deps.setup_warnings) log(w);
  for (const auto& w : settings().warnings) log(w.text());
}

const config::Policy& Context::policy() {
  if (m_policy) return *m_policy;
  m_policy = config::load_policy(config::resolve_policy_path(m_deps.env, m_request.overrides), m_deps.env, reader());
  trace([&] {
    switch (m_policy->status) {
    case config::Policy::Status::absent: return "policy " + m_policy->path.value.string() + ": none";
    case config::Policy::Status::ok:
      return "policy " + m_policy->path.value.string() + ": " + std::to_string(m_policy->rules.size()) +
             " server entries";
    case config::Policy::Status::invalid: break;
    }
    return "policy " + m_policy->path.value.string() + ": not valid, ignored";
  });
  return *m_policy;
}

void Context::say_policy_problem() {
  if (!m_policy || m_policy->status != config::Policy::Status::invalid) return;
  const state::StateSnapshot snap = store().read();
  if (state::policy_problem_said(snap.doc) == m_policy->stamp) return;
  const std::size_t shown = std::min<std::size_t>(m_policy->problems.size(), 3);
  std::string problems;
  for (std::size_t i = 0; i < shown; ++i) problems += (i ? "; " : "") + m_policy->problems[i].text();
  if (m_policy->problems.size() > shown)
    problems += "; and " + std::to_string(m_policy->problems.size() - shown) + " more";
  log("policy file " + m_policy->path.value.string() + " is not valid, so it is ignored and the environment decides (" +
      problems + "); run mcphealth policy to see every problem");
  const std::string stamp = m_policy->stamp;
  update_state([&](json::object& doc) {
    state::remember_policy_problem(doc, stamp);
    return true;
  });
}

const config::Settings& Context::server_settings(const config::Candidate* c, const std::string& name) {
  // Without the candidate (the cache path), the bound definition's project, as its verdict is labelled.
  const std::optional<std::string> project_text = c ? c->project : m_bound_project;
  const std::string key = c ? "definition " + c->fingerprint : "name " + name + "\n" + project_text.value_or("");
  if (!m_server_settings || m_server_settings_key != key) {
    const std::optional<std::filesystem::path> project =
        project_text ? std::optional<std::filesystem::path>(*project_text) : std::nullopt;
    m_server_settings =
        config::settings_for(settings(), policy(), c ? c->tool_server : config::tool_server_name(name), project);
    m_server_settings_key = key;
  }
  return *m_server_settings;
}

const config::Settings& Context::call_settings() {
  return m_target_call ? server_settings(m_candidate, hook::server_key(*m_target_call)) : settings();
}

FailOpen Context::fail_open() { return call_settings().fail_open.value ? FailOpen::yes : FailOpen::no; }

std::int64_t Context::retry_bound() { return state::retry_bound(call_settings().max_backoff_ms.value); }

bool Context::refresh_in_background() const {
  const auto mode = m_deps.env.get("MCPHEALTH_REFRESH");
  return !mode || *mode != "inline";
}

const config::DiscoveryInputs& Context::inputs() {
  if (m_inputs) return *m_inputs;
  // Only the config paths: a cache hit must not pay for resolving every setting.
  std::vector<config::SettingWarning> said_later; // the same warnings come with settings(), off the hot path
  m_inputs = config::discovery_inputs(
      m_deps.env, config::resolve_config_paths(m_deps.env, m_request.overrides, said_later).value, m_hc.folder);
  m_inputs->reader = &reader();
  // A call proves the client started a server of that name, so the call's events follow the client's mode;
  // SessionStart (a warm-up no call asked for) keeps the interactive rule: nothing pending is started.
  if (m_hc.event != hook::Event::session_start) {
    m_agent.catalogue.read_start(*m_inputs, m_deps.env);
    if (const auto& client = m_inputs->client) {
      trace([&] { // the values may hold credentials: counted, not shown
        return std::string(m_agent.name) + " was started with " + std::to_string(client->mcp_configs.size()) +
               " --mcp-config value(s)" + (client->strict ? " and --strict-mcp-config" : "");
      });
    }
  } else {
    m_agent.catalogue.read_version(*m_inputs, m_deps.env);
  }
  if (m_inputs->client_version) {
    trace([&] { return std::string(m_agent.name) + " " + *m_inputs->client_version + ": its rules of approval apply"; });
  }
  return *m_inputs;
}

std::string Context::folder_key() {
  // Headless runs bind apart, their rule being another, and so do sessions given servers on their command line,
  // and every agent but Claude Code (whose keys predate the others).
  const config::DiscoveryInputs& in = inputs();
  std::vector<std::string> how;
  if (in.mode == config::DiscoveryInputs::Mode::headless) how.emplace_back("headless");
  if (in.client) how.push_back("--mcp-config " + in.client->stamp());
  if (in.agent_runs_here) how.emplace_back("in session"); // its bindings differ from what probe binds there
  if (in.client_version) how.push_back("version " + *in.client_version); // approvals differ by version
  return agent::folder_key(m_agent, in.project_dir.string(), how);
}

std::optional<state::FolderBindings> Context::current_bindings(const state::StateSnapshot& snap) {
  std::optional<state::FolderBindings> folder = state::folder_bindings(snap.doc, folder_key());
  if (!folder) return std::nullopt;
  const std::vector<std::filesystem::path> files(folder->files.begin(), folder->files.end());
  if (config::resolution_stamp(files, folder->variables, m_deps.env, reader()) != folder->stamp) return std::nullopt;
  return folder;
}

std::optional<state::Binding> Context::bound_here(const state::StateSnapshot& snap, const hook::CallTarget& call) {
  const std::optional<state::FolderBindings> folder = current_bindings(snap);
  if (!folder) return std::nullopt;
  return folder->find(binding_key(call));
}

const config::Resolution& Context::read_configs() {
  if (!m_resolution) {
    say_setup_warnings();
    m_resolution = m_agent.catalogue.resolve(inputs(), m_deps.env);
  }
  return *m_resolution;
}

const config::Resolution& Context::bind_folder(const ExtraBinding& extra) {
  const config::Resolution& res = read_configs();
  const std::string key = folder_key();
  const util::EpochMs at = now();
  update_state([&](json::object& doc) {
    record_bindings(doc, key, inputs(), res, m_deps.env, at, extra);
    // An entry from before definitions were told apart (or the JS hook's) becomes its definition's verdict.
    for (const config::Candidate* c : res.winners()) {
      if (!state::verdicts(doc).contains(c->fingerprint) && state::decision_entry(doc, c->tool_server, std::nullopt)) {
        state::record_verdict(doc, info_of(*c), at, state::Writer::adopted, [](json::object&) {});
      }
    }
    return true;
  });
  return res;
}

Target Context::target(const hook::CallTarget& call, Bind bind) {
  const config::Resolution& res = read_configs();
  state::Binding binding;
  if (std::optional<ClientWord> word = by_client_source(res, call, m_deps.env)) {
    m_client_named = std::move(word->candidate);
    m_candidate = m_client_named ? &*m_client_named : nullptr;
    binding = std::move(word->binding);
    trace([&] {
      const std::string which = m_candidate ? "its definition in " + m_candidate->definition.source.string()
                                            : std::string("a definition mcphealth does not find");
      return "the client says " + call.server + " runs from its " + *call.source + " servers: " + which;
    });
  } else {
    if (call.source) {
      trace([&] {
        return "the client says " + call.server + " runs from its " + *call.source +
               " servers, a word mcphealth does not map here: the folder's rules decide";
      });
    }
    m_candidate = res.winner(call.server);
    binding = binding_for(res, call.server);
  }
  if (bind == Bind::yes) bind_folder(std::pair{binding_key(call), binding});
  return Target{call, std::move(binding), m_candidate};
}

std::optional<util::EpochMs> Context::record(const config::Candidate& c, const probe::ProbeResult& result,
                                             std::optional<state::RestoredBy> by) {
  const config::Settings& s = server_settings(&c);
  const probe::MarkContext context = probe::mark_context(s, now(), c.definition.source.string(), by);
  std::optional<util::EpochMs> retry_at;
  const bool written = update_state([&](json::object& doc) {
    state::record_verdict(doc, info_of(c), context.now, state::Writer::hook, [&](json::object& entry) {
      probe::mark_from_probe(entry, result, context);
      retry_at = state::ServerEntry::from_json(entry).next_retry_at;
    });
    return true;
  });
  trace([&] {
    if (!written) return std::string("nothing recorded (the state file could not be written)");
    return "recorded definitions." + c.fingerprint.substr(0, 12) + " and servers." + c.tool_server + ": " +
           (result.ok
                ? "healthy for " + util::format_duration_short(s.ttl_ms.value)
                : "unhealthy, retry in " + util::format_duration_short(retry_at.value_or(context.now) - context.now));
  });
  return written ? retry_at : std::nullopt;
}

hook::CallTarget Context::settle_split(const hook::CallTarget& first) {
  if (m_hc.respell != nullptr) {
    if (std::optional<hook::CallTarget> renamed = respelled()) return *renamed;
  }
  const std::vector<hook::CallTarget>& splits = m_hc.readings;
  if (splits.size() < 2) return first;
  auto known = [&](auto&& is_defined) {
    for (const hook::CallTarget& s : splits) {
      if (is_defined(s.server)) {
        trace([&] {
          return "tool name " + m_hc.tool_name + " splits " + std::to_string(splits.size()) +
                 " ways: the server defined here is " + s.server;
        });
        return std::optional<hook::CallTarget>(s);
      }
    }
    return std::optional<hook::CallTarget>();
  };
  const state::StateSnapshot snap = store().read();
  if (const std::optional<state::FolderBindings> folder = current_bindings(snap)) {
    return known([&](const std::string& server) {
             const auto b = folder->find(config::tool_server_name(server));
             return b && b->meaning() != state::Binding::Meaning::undefined;
           })
        .value_or(first);
  }
  const config::Resolution& res = read_configs();
  return known([&](const std::string& server) {
           return std::any_of(res.candidates.begin(), res.candidates.end(),
                              [&](const config::Candidate& c) { return c.tool_server == server; });
         })
      .value_or(first);
}

std::optional<hook::CallTarget> Context::respelled() {
  auto found = [&](std::string_view key) {
    std::optional<hook::CallTarget> t = m_hc.respell(m_hc.tool_name, key);
    if (t) {
      trace([&] { return "tool name " + m_hc.tool_name + " is the agent's renaming of " + t->tool + " on " + t->server; });
    }
    return t;
  };
  const state::StateSnapshot snap = store().read();
  if (const std::optional<state::FolderBindings> folder = current_bindings(snap)) {
    if (folder->names == nullptr) return std::nullopt;
    for (const auto& kv : *folder->names) {
      if (std::optional<hook::CallTarget> t = found(kv.key())) return t;
    }
    return std::nullopt;
  }
  for (const config::Candidate& c : read_configs().candidates) {
    if (std::optional<hook::CallTarget> t = found(c.tool_server)) return t;
  }
  return std::nullopt;
}

std::optional<hook::CallTarget> Context::by_endpoint(const std::string& endpoint, const std::string& tool) {
  for (const config::Candidate* c : read_configs().winners()) {
    if (!c->resolved) continue;
    bool same = false;
    if (const auto* http = std::get_if<config::HttpServer>(&c->resolved->transport)) {
      same = util::same_url(http->url.for_transport(), endpoint);
    }
    if (const auto* stdio = std::get_if<config::StdioServer>(&c->resolved->transport)) {
      std::string line = stdio->command;
      for (const auto& a : stdio->args) line += " " + a;
      same = stdio->command == endpoint || line == endpoint;
    }
    if (same) {
      trace([&] { return "the server at " + util::redact_url(endpoint) + " is " + c->tool_server; });
      return hook::CallTarget{c->tool_server, tool};
    }
  }
  trace([&] { return "no definition here starts a server at " + util::redact_url(endpoint) + ": not checked"; });
  return std::nullopt;
}

} // namespace mcphealth::gate
