#pragma once
// What one hook run reads, each piece on first use (a cache hit reads the state file, its folder's bindings and a
// few stats, nothing else): the state, the settings, the policy, the folder's configs and bindings. A Reader writes nothing: every
// write is the Recorder's (gate/recorder.hpp), and what is said goes through the Sink. gate/engine.cpp performs the
// steps of gate/steps.hpp with them.
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/gate/bindings.hpp>
#include <mcphealth/gate/lookup.hpp>
#include <mcphealth/gate/deps.hpp>
#include <mcphealth/gate/plan.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>

#include <optional>
#include <string>

namespace mcphealth::gate {

/// What a server name means in this folder: the definition the agent uses, or why there is none.
struct Target {
  hook::CallTarget call;
  state::Binding binding;
  /// The resolver's winner, once the configs were read (the slow path); nothing on the hot path.
  const config::Candidate* candidate = nullptr;
};

/// Where a run's words go: stderr lines (without the prefix), and the `-v` trace, whose text is made only when
/// someone reads it.
class Sink {
public:
  explicit Sink(const HookDeps& deps) : m_deps(deps) {}
  /// Says a line on stderr (without the prefix).
  void log(const std::string& line) const { m_deps.log(line); }
  /// True when a trace is read.
  bool tracing() const { return static_cast<bool>(m_deps.trace); }
  /// Hands a step of the decision path to the trace; `make` builds its text only when someone reads it.
  template <typename Make>
  void trace(Make&& make) const {
    if (m_deps.trace) m_deps.trace(make());
  }

private:
  const HookDeps& m_deps;
};

/// A policy file that was read and is not valid: what to say of it, once per change of the file (its stamp).
struct PolicyProblem {
  std::string stamp;
  std::string line;
};

/// The lazily read world of one hook run. Its reads are remembered for the run; none writes.
class Reader {
public:
  Reader(const HookRequest& request, const HookDeps& deps, const Sink& sink);

  const HookRequest& request() const { return m_request; }
  const HookDeps& deps() const { return m_deps; }
  const Sink& sink() const { return m_sink; }
  /// The agent that asked, and its payload read into the hook's terms.
  const agent::Agent& agent() const { return m_agent; }
  const hook::HookCall& call() const { return m_hc; }
  util::EpochMs now() const { return m_deps.clock.now_ms(); }
  /// The agent as the model's text names it.
  Voice voice() const;

  /// The state: the seam's store, else the file at the resolved path. Read through it; write through the Recorder.
  state::Store& store();

  /// The settings from the environment and the command line.
  const config::Settings& settings();
  /// The policy file, read the first time a decision needs it (never on a cache hit).
  const config::Policy& policy();
  /// The policy's problem, when this run read the policy and it is not valid (never reads it).
  std::optional<PolicyProblem> policy_problem() const;
  /// The settings of one server: the environment's with the policy laid over them. `c` is its definition when
  /// known (a policy entry can name its project); otherwise `name` (a tool-name server) and the bound project.
  const config::Settings& server_settings(const config::Candidate* c, const std::string& name = {});
  /// The setup's warnings (a malformed variable), said once and only off the hot path.
  void say_setup_warnings();

  /// The call being decided, and its definition once the configs named it.
  void set_call(const hook::CallTarget& call) { m_target_call = call; }
  const config::Candidate* candidate() const { return m_candidate; }
  /// The settings of the call being decided (the environment's before a call is known).
  const config::Settings& call_settings();
  /// Fail-open for the call being decided.
  FailOpen fail_open();
  /// `MCPHEALTH_REFRESH=inline` makes a stale mark wait for its probe; `background` (the default) does not.
  bool refresh_in_background() const;

  /// The discovery inputs of this run: the folder from the agent's variable, else the payload's cwd.
  const config::DiscoveryInputs& inputs();
  /// The folder's key in the state file's bindings.
  std::string folder_key();
  /// This folder's stored bindings, when they still hold (no watched file or variable changed): its one file,
  /// and stats. Read once per run, until forget_bindings.
  const std::optional<state::FolderBindings>& current_bindings();
  /// Reads the bindings again at their next use: the run bound the folder.
  void forget_bindings() { m_bindings = {}; }
  /// The stored binding of `call`'s server in this folder (of the definition the client names, when it names
  /// one), when the bindings still hold. The binding's project is remembered for the server's settings: a
  /// per-project policy rule must not depend on the order of calls.
  std::optional<state::Binding> bound_here(const hook::CallTarget& call);

  /// The folder's configs as the agent reads them (read once per run).
  const config::Resolution& read_configs();
  /// The target of a call, from the configs: the definition the client names (`call.source`), else the one the
  /// folder's rules pick. Remembers it as the definition being decided; binds nothing (Recorder::bind_folder).
  Target target(const hook::CallTarget& call);

  /// A tool name that splits more than one way (`mcp__my__srv__echo`: a server's name may hold `__`) is the
  /// longest server name this folder knows: from its current bindings, else from the configs. A name nothing
  /// defines keeps the first split. One split (the usual case) costs nothing. A tool the agent renamed
  /// (HookCall::respell) is looked for first.
  hook::CallTarget settle_split(const hook::CallTarget& first);
  /// The call, when the agent renamed its tool (HookCall::respell) and a name bound here (or configured, when the
  /// folder is not bound) is the one renamed.
  std::optional<hook::CallTarget> respelled();
  /// The definition the agent starts at `endpoint` (a URL, or a command line: the command alone or with its
  /// arguments), when the agent names a server that way. Reads the configs: there is no name to look up a binding
  /// by.
  std::optional<hook::CallTarget> by_endpoint(const std::string& endpoint, const std::string& tool);

  /// The file seam (the disk, or a test's files).
  util::FileReader& files() const { return reader(); }

private:
  util::FileReader& reader() const { return m_deps.files ? *m_deps.files : util::disk(); }

  const HookRequest& m_request;
  const HookDeps& m_deps;
  const Sink& m_sink;
  const agent::Agent& m_agent;
  const hook::HookCall m_hc;
  std::optional<state::StateStore> m_file_store;
  std::optional<config::Settings> m_settings;
  std::optional<config::Policy> m_policy;
  std::optional<config::Settings> m_server_settings;
  std::string m_server_settings_key;
  std::optional<std::string> m_bound_project;
  Lookup<state::FolderBindings> m_bindings;
  std::optional<hook::CallTarget> m_target_call;
  const config::Candidate* m_candidate = nullptr;
  /// The definition the client named, resolved here when the folder's rules would not start it.
  std::optional<config::Candidate> m_client_named;
  std::optional<config::DiscoveryInputs> m_inputs;
  std::optional<config::Resolution> m_resolution;
};

} // namespace mcphealth::gate
