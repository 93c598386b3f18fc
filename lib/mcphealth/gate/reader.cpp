#include <mcphealth/gate/reader.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/gate/bindings.hpp>
#include <mcphealth/probe/record.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/history.hpp>

#include <algorithm>

namespace mcphealth::gate {

namespace json = boost::json;

Reader::Reader(const HookRequest& request, const HookDeps& deps, const Sink& sink)
    : m_request(request), m_deps(deps), m_sink(sink), m_agent(request.client()),
      m_hc(m_agent.dialect.read(request.input, request.event_flag, deps.env)) {}

Voice Reader::voice() const {
  return {std::string(m_agent.name), std::string(m_agent.authenticate), std::string(m_agent.authenticate_short),
          &m_agent == &agent::default_agent() ? std::string("Claude") : std::string(m_agent.name),
          m_agent.down_at_start};
}

state::Store& Reader::store() {
  if (m_deps.store) return *m_deps.store;
  if (!m_file_store)
    m_file_store.emplace(config::resolve_state_path(m_deps.env, m_request.overrides).value, m_deps.clock);
  return *m_file_store;
}

const config::Settings& Reader::settings() {
  if (!m_settings) m_settings = config::resolve_settings(m_deps.env, m_request.overrides);
  return *m_settings;
}

void Reader::say_setup_warnings() {
  for (const auto& w : m_deps.setup_warnings) m_sink.log(w);
  for (const auto& w : settings().warnings) m_sink.log(w.text());
}

const config::Policy& Reader::policy() {
  if (m_policy) return *m_policy;
  m_policy = config::load_policy(config::resolve_policy_path(m_deps.env, m_request.overrides), m_deps.env, reader(),
                                 inputs().project_dir);
  m_sink.trace([&] {
    switch (m_policy->status) {
    case config::Policy::Status::absent: return "policy " + m_policy->path.value.string() + ": none";
    case config::Policy::Status::ok:
      return "policy " + m_policy->path.value.string() + ": " + std::to_string(m_policy->rules.size()) +
             " server entries" + (m_policy->checks_refused ? "; its checks do not run: " + *m_policy->checks_refused : "");
    case config::Policy::Status::invalid: break;
    }
    return "policy " + m_policy->path.value.string() + ": not valid, ignored";
  });
  return *m_policy;
}

std::optional<PolicyProblem> Reader::policy_problem() const {
  if (!m_policy || m_policy->status != config::Policy::Status::invalid) return std::nullopt;
  const std::size_t shown = std::min<std::size_t>(m_policy->problems.size(), 3);
  std::string problems;
  for (std::size_t i = 0; i < shown; ++i) problems += (i ? "; " : "") + m_policy->problems[i].text();
  if (m_policy->problems.size() > shown)
    problems += "; and " + std::to_string(m_policy->problems.size() - shown) + " more";
  return PolicyProblem{m_policy->stamp, "policy file " + m_policy->path.value.string() +
                                            " is not valid, so it is ignored and the environment decides (" +
                                            problems + "); run mcphealth policy to see every problem"};
}

const config::Settings& Reader::server_settings(const config::Candidate* c, const std::string& name) {
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

const config::Settings& Reader::call_settings() {
  return m_target_call ? server_settings(m_candidate, hook::server_key(*m_target_call)) : settings();
}

FailOpen Reader::fail_open() { return call_settings().fail_open.value ? FailOpen::yes : FailOpen::no; }

bool Reader::refresh_in_background() const {
  const auto mode = m_deps.env.get("MCPHEALTH_REFRESH");
  return !mode || *mode != "inline";
}

const config::DiscoveryInputs& Reader::inputs() {
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
      m_sink.trace([&] { // the values may hold credentials: counted, not shown
        return std::string(m_agent.name) + " was started with " + std::to_string(client->mcp_configs.size()) +
               " --mcp-config value(s)" + (client->strict ? " and --strict-mcp-config" : "");
      });
    }
  } else {
    m_agent.catalogue.read_version(*m_inputs, m_deps.env);
  }
  if (m_inputs->client_version) {
    m_sink.trace([&] { return std::string(m_agent.name) + " " + *m_inputs->client_version + ": its rules of approval apply"; });
  }
  return *m_inputs;
}

std::string Reader::folder_key() {
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

const std::optional<state::FolderBindings>& Reader::current_bindings() {
  if (m_bindings.asked()) return m_bindings.answer();
  std::optional<state::FolderBindings> folder = store().bindings(folder_key());
  if (folder) {
    const std::vector<std::filesystem::path> files(folder->files.begin(), folder->files.end());
    if (config::resolution_stamp(files, folder->variables, m_deps.env, reader()) != folder->stamp) folder.reset();
  }
  m_bindings = std::move(folder);
  return m_bindings.answer();
}

std::optional<state::Binding> Reader::bound_here(const hook::CallTarget& call) {
  const std::optional<state::FolderBindings>& folder = current_bindings();
  if (!folder) return std::nullopt;
  std::optional<state::Binding> bound = folder->find(binding_key(call));
  if (bound) m_bound_project = bound->project;
  return bound;
}

const config::Resolution& Reader::read_configs() {
  if (!m_resolution) {
    say_setup_warnings();
    m_resolution = m_agent.catalogue.resolve(inputs(), m_deps.env);
  }
  return *m_resolution;
}

Target Reader::target(const hook::CallTarget& call) {
  const config::Resolution& res = read_configs();
  state::Binding binding;
  if (std::optional<ClientWord> word = by_client_source(res, call, m_deps.env, reader())) {
    m_client_named = std::move(word->candidate);
    m_candidate = m_client_named ? &*m_client_named : nullptr;
    binding = std::move(word->binding);
    m_sink.trace([&] {
      const std::string which = m_candidate ? "its definition in " + m_candidate->definition.source.string()
                                            : std::string("a definition mcphealth does not find");
      return "the client says " + call.server + " runs from its " + *call.source + " servers: " + which;
    });
  } else {
    if (call.source) {
      m_sink.trace([&] {
        return "the client says " + call.server + " runs from its " + *call.source +
               " servers, a word mcphealth does not map here: the folder's rules decide";
      });
    }
    m_candidate = res.winner(call.server);
    binding = binding_for(res, call.server);
  }
  return Target{call, std::move(binding), m_candidate};
}

hook::CallTarget Reader::settle_split(const hook::CallTarget& first) {
  if (m_hc.respell != nullptr) {
    if (std::optional<hook::CallTarget> renamed = respelled()) return *renamed;
  }
  const std::vector<hook::CallTarget>& splits = m_hc.readings;
  if (splits.size() < 2) return first;
  auto known = [&](auto&& is_defined) {
    for (const hook::CallTarget& s : splits) {
      if (is_defined(s.server)) {
        m_sink.trace([&] {
          return "tool name " + m_hc.tool_name + " splits " + std::to_string(splits.size()) +
                 " ways: the server defined here is " + s.server;
        });
        return std::optional<hook::CallTarget>(s);
      }
    }
    return std::optional<hook::CallTarget>();
  };
  if (const std::optional<state::FolderBindings>& folder = current_bindings()) {
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

std::optional<hook::CallTarget> Reader::respelled() {
  auto found = [&](std::string_view key) {
    std::optional<hook::CallTarget> t = m_hc.respell(m_hc.tool_name, key);
    if (t) {
      m_sink.trace([&] { return "tool name " + m_hc.tool_name + " is the agent's renaming of " + t->tool + " on " + t->server; });
    }
    return t;
  };
  if (const std::optional<state::FolderBindings>& folder = current_bindings()) {
    for (const auto& kv : folder->names) {
      if (std::optional<hook::CallTarget> t = found(kv.key())) return t;
    }
    return std::nullopt;
  }
  for (const config::Candidate& c : read_configs().candidates) {
    if (std::optional<hook::CallTarget> t = found(c.tool_server)) return t;
  }
  return std::nullopt;
}

std::optional<hook::CallTarget> Reader::by_endpoint(const std::string& endpoint, const std::string& tool) {
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
      m_sink.trace([&] { return "the server at " + util::redact_url(endpoint) + " is " + c->tool_server; });
      return hook::CallTarget{c->tool_server, tool};
    }
  }
  m_sink.trace([&] { return "no definition here starts a server at " + util::redact_url(endpoint) + ": not checked"; });
  return std::nullopt;
}

} // namespace mcphealth::gate
