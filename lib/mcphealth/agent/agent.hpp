#pragma once
// What differs from one coding agent to another, and nothing else: which servers it starts for a folder (its
// catalogue), how its hook payloads and answers are spelled (its dialect), and where and how its hooks are
// registered (its registration). The cache, probes, backoff and recovery are common ground. Each agent is one file,
// `agent/<id>.cpp`; the only other place that knows it exists is the table in `agent/agents.cpp`.
#include <mcphealth/agent/trust.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/hook/messages.hpp>
#include <mcphealth/hook/outcome.hpp>
#include <mcphealth/hook/payload.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/json.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::agent {

/// How the hook answers: the agent's JSON (the default), the exit code alone (block = 2, the reason on stderr), or
/// the input echoed with that exit code.
enum class AnswerMode { json, exit_code, passthrough };

/// What the hook writes: stdout's text, a line for stderr (where an agent that blocks by exit code reads the
/// reason), and the exit code.
struct Answer {
  std::string out;
  int exit_code = 0;
  std::string err = {};
};

/// An agent's hook payloads and answers. Exists so the engine decides on one neutral call (hook::HookCall), whichever
/// agent asked.
class Dialect {
public:
  virtual ~Dialect() = default;
  /// The call `input` describes (from its raw text when `input.incomplete`); `event_flag` is `--event`, when given.
  virtual hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                              const util::Environment& env) const = 0;
  /// The agent's answer to `outcome` in json mode (exit-code and passthrough modes are the same for every agent).
  virtual Answer answer_json(const hook::HookOutcome& outcome) const = 0;
  /// The events this agent fires that the hook acts on, by their names here (for `--event`'s check and messages).
  virtual std::vector<std::string_view> event_names() const = 0;
  /// How this agent words its servers' outages in a failure's text, learned from the real program; read before
  /// the generic signs (hook::read_failure). None for an agent known by contract only.
  virtual std::span<const hook::ClientWording> failure_wordings() const { return {}; }
  /// For an agent that fires no event for a failed call (Codex CLI): the last call to `target`'s server, read from
  /// `call.transcript` (a bounded read from its end), when that call failed. Nothing when it succeeded, when the
  /// record says nothing of that server, or for an agent that tells of its failures itself.
  virtual std::optional<hook::MissedFailure> missed_failure(const hook::HookCall& call,
                                                            const hook::CallTarget& target) const {
    (void)call;
    (void)target;
    return std::nullopt;
  }
  /// Whether a parsed payload is this agent's by a shape no other agent's payload has: only top-level fields the
  /// agent itself writes (never the model's arguments), and never a field another agent might add tomorrow. An
  /// agent that shares Claude Code's shape (Codex CLI, Qwen Code, Copilot CLI's PascalCase) recognizes nothing: its
  /// registration names it with `--agent`.
  virtual bool recognizes(const boost::json::object& payload) const {
    (void)payload;
    return false;
  }
};

/// Which definitions an agent starts for a folder. Exists so that probes, `status` and the hook ask one question
/// ("what runs here?") of any agent, and get agent-neutral definitions back.
class Catalogue {
public:
  virtual ~Catalogue() = default;
  /// What the agent starts in `inputs.project_dir`, and why each other definition found is not started. Every file
  /// it looks at goes through `inputs.reader` and is listed in `read_files`: the hot path re-checks those alone.
  config::Resolution resolve(const config::DiscoveryInputs& inputs, const util::Environment& env) const;

  /// The folders the agent keeps a record of besides the one `base` asks about (Claude Code's `projects` in
  /// `~/.claude.json`), for the commands that cover them all; none for most agents.
  virtual std::vector<std::filesystem::path> known_folders(const config::DiscoveryInputs&, const util::Environment&) const {
    return {};
  }

  /// What the way the agent was started changes in `inputs`, where its hook can tell (Claude Code: headless
  /// `claude -p`, and the servers given with `--mcp-config`); nothing for most agents. Called for a tool call's
  /// hook, not for a warm-up no call asked for.
  virtual void read_start(config::DiscoveryInputs&, const util::Environment&) const {}
  /// The client's version, where its hook can see it (Claude Code's process), for every event: approvals differ by
  /// version, and a warm-up binds the folder too. Nothing for most agents.
  virtual void read_version(config::DiscoveryInputs&, const util::Environment&) const {}
  /// The files the agent keeps its MCP servers' OAuth tokens in, where it keeps them in a file: a login or a token
  /// refresh rewrites them, so a server that refused the agent's token may take a call again once one changed (a
  /// probe carries no token, and cannot tell). None for most agents (not verified in their real programs).
  virtual std::vector<std::string> credential_files(const util::Environment&) const { return {}; }

protected:
  /// The agent's rules, reading every file through `reader` (which records them for resolve()).
  virtual config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                                  util::FileReader& reader) const = 0;
};

/// Which settings file `install` edits.
enum class InstallScope { user, project, local };

/// How a hook file lists an event's hooks: in groups (`{matcher, hooks: [entry]}`: Claude Code, Gemini CLI, Copilot
/// CLI's PascalCase events) or as entries themselves (`[entry]`: Cursor, Windsurf).
enum class Layout { nested, flat };

/// One hook event `install` registers, as the agent spells it.
struct EventSpec {
  std::string name;
  /// The tool matcher the group gets; empty for an event with no tool (session start).
  std::string matcher;
};

/// Where an agent's hooks are registered and how mcphealth's entry looks there. Every agent here keeps hooks in a
/// JSON file's `hooks.<Event>` list; what differs is the files, the events, the layout and the entry.
class Registration {
public:
  virtual ~Registration() = default;
  /// Every file a hook of this agent may be registered in for `project`, in the order the agent reads them.
  virtual std::vector<std::filesystem::path> hook_files(const util::Environment& env,
                                                        const std::filesystem::path& project) const = 0;
  /// The file `install --scope` edits; nothing when the agent has no file of that scope.
  virtual std::optional<std::filesystem::path> install_file(InstallScope scope, const util::Environment& env,
                                                            const std::filesystem::path& project) const = 0;
  /// The events `install` registers by default, with their matchers.
  virtual std::vector<EventSpec> events() const = 0;
  /// The events whose registration the gate needs (explain-config reports an error without them).
  virtual std::vector<std::string> required_events() const = 0;
  /// How the file lists an event's hooks.
  virtual Layout layout() const { return Layout::nested; }
  /// Top-level members the file must have (Cursor's `"version": 1`), added when missing.
  virtual std::vector<std::pair<std::string, boost::json::value>> file_keys() const { return {}; }
  /// Whether the agent has Claude Code's `statusLine` (install --statusline).
  virtual bool has_status_line() const { return false; }
  /// Whether a registered command that cannot be started blocks the agent's calls (Gemini CLI, Copilot CLI), rather
  /// than being passed over (Claude Code, Codex CLI): a bare name must then be on PATH when it is written.
  virtual bool missing_command_blocks() const { return false; }
  /// For an agent that runs a newly registered hook only once the user has trusted it (Codex CLI: the trust is its
  /// own record, which only it can write): how to ask it. Nothing for an agent that runs what is registered.
  virtual const HookTrust* trust() const { return nullptr; }
  /// Whether the agent's hook files may hold `//` and `/* */` comments (Gemini CLI strips them before parsing).
  virtual util::JsonComments comments() const { return util::JsonComments::refused; }
  /// An MCP tool's name as the agent spells it (`mcp__server__tool`), to tell whether a matcher selects MCP tools.
  virtual std::string sample_tool_name() const = 0;
  /// The entry a hook list gets for `command`: `{"type":"command","command":...}` and whatever else the agent wants.
  virtual boost::json::object hook_entry(const std::string& command) const = 0;
  /// For an agent whose hooks are code it runs itself (opencode's plugins): the whole text of mcphealth's own file
  /// (install_file), which runs `argv` (`command` as a shell would read it) and names `command` on its first line,
  /// `// mcphealth-hook: <command>`. Nothing for an agent whose hooks are entries in a JSON file.
  virtual std::optional<std::string> plugin_text(const std::vector<std::string>& argv,
                                                 const std::string& command) const {
    (void)argv;
    (void)command;
    return std::nullopt;
  }
};

/// A registration told as data: most agents keep their hooks as entries in the JSON file of a user folder and of a
/// project's, and differ in the files, the events, the layout and the entry alone. HookFileRegistration answers
/// from it; an agent with more (Claude Code's local file, Codex CLI's trust) derives from that.
struct HookFileSpec {
  /// The user's hook file (install's `--scope user`).
  std::function<std::filesystem::path(const util::Environment&)> user_file;
  /// A project's, relative to its folder (install's `--scope project`); empty: the agent has none mcphealth writes.
  std::filesystem::path project_file = {};
  /// A file the agent reads hooks from before the user's, which install never writes (a system file).
  std::filesystem::path system_file = {};
  std::vector<EventSpec> events;
  std::vector<std::string> required_events;
  std::string sample_tool_name;
  /// mcphealth's entry, in the agent's order, with `command` where its value goes (Registration::hook_entry).
  boost::json::object entry = {{"type", "command"}, {"command", nullptr}};
  Layout layout = Layout::nested;
  std::vector<std::pair<std::string, boost::json::value>> file_keys = {};
  bool missing_command_blocks = false;
  util::JsonComments comments = util::JsonComments::refused;
};

/// The Registration a HookFileSpec tells: hook files system, user, project; install writes the user's or the
/// project's. The spec is made where it is first asked for (a function-local static of the agent's): every agent's
/// registration is built with the table, on every hook call, and only install, explain-config and doctor read one.
class HookFileRegistration : public Registration {
public:
  explicit HookFileRegistration(const HookFileSpec& (*spec)()) : m_spec(spec) {}
  std::vector<std::filesystem::path> hook_files(const util::Environment& env,
                                                const std::filesystem::path& project) const override;
  std::optional<std::filesystem::path> install_file(InstallScope scope, const util::Environment& env,
                                                    const std::filesystem::path& project) const override;
  std::vector<EventSpec> events() const override { return spec().events; }
  std::vector<std::string> required_events() const override { return spec().required_events; }
  Layout layout() const override { return spec().layout; }
  std::vector<std::pair<std::string, boost::json::value>> file_keys() const override { return spec().file_keys; }
  bool missing_command_blocks() const override { return spec().missing_command_blocks; }
  util::JsonComments comments() const override { return spec().comments; }
  std::string sample_tool_name() const override { return spec().sample_tool_name; }
  boost::json::object hook_entry(const std::string& command) const override;

protected:
  const HookFileSpec& spec() const { return m_spec(); }

private:
  const HookFileSpec& (*m_spec)();
};

/// The first line of a plugin file of mcphealth's own names the hook command it runs.
inline constexpr std::string_view k_plugin_marker = "// mcphealth-hook: ";

/// Whether the agent's hooks are a plugin file of mcphealth's own (Registration::plugin_text), not JSON entries.
inline bool writes_plugin(const Registration& r) { return r.plugin_text({}, {}).has_value(); }

/// The hook command a plugin file of mcphealth's own names on its first line; nothing for another file.
inline std::optional<std::string> plugin_command(std::string_view text) {
  if (text.substr(0, k_plugin_marker.size()) != k_plugin_marker) return std::nullopt;
  const std::string_view rest = text.substr(k_plugin_marker.size());
  return std::string(rest.substr(0, rest.find('\n')));
}

/// What an agent is besides its three parts: its names and the words the model reads about it.
struct AgentFacts {
  /// As `--agent` takes it: `claude-code`, `gemini`.
  std::string_view id;
  /// As people read it: `Claude Code`, `Gemini CLI`.
  std::string_view name;
  /// What the user does to authenticate a server in this agent, whole ("run /mcp in Claude Code") and short
  /// ("run /mcp").
  std::string_view authenticate;
  std::string_view authenticate_short;
  /// What it does with a server it cannot start when a session begins (hook::messages::Client::down_at_start).
  hook::messages::Client::AtStart down_at_start = hook::messages::Client::AtStart::keeps_trying;
  /// The exit code this agent reads as "allow" when the hook itself fails; any other non-zero one may block.
  int allow_exit_code = 0;
  /// The program that says the agent's version (`claude --version`), and the oldest and newest versions the real
  /// program was tested with (tests/cli/test_real_*.sh); empty for an agent known by its contract only (an editor).
  std::string_view program = {};
  std::string_view tested_oldest = {};
  std::string_view tested_newest = {};
};

/// One agent: its facts and its three parts.
struct Agent : AgentFacts {
  const Catalogue& catalogue;
  const Dialect& dialect;
  const Registration& registration;
};

/// The agent of `facts` whose parts are a C, a D and an R (each made once, as the agent is): an agent file's
/// `const Agent& <id>()`.
template <class C, class D, class R>
const Agent& make_agent(const AgentFacts& facts) {
  static const C catalogue;
  static const D dialect;
  static const R registration;
  static const Agent agent{facts, catalogue, dialect, registration};
  return agent;
}

/// Where an agent keeps its user files: `$<var>/<below>` when `var` is set and not empty, else `~/<at_home>`
/// (`$CODEX_HOME`, else `~/.codex`; `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`).
std::filesystem::path user_folder(const util::Environment& env, std::string_view var,
                                  const std::filesystem::path& below, const std::filesystem::path& at_home);

/// One of an agent's server files, and the scope of what it defines.
struct ServerFile {
  std::filesystem::path file;
  config::Scope scope;
};
/// Reads `files` in order (each report into `res.files`) and makes a candidate of each definition: named as tool
/// names spell it, of its file's scope, a project file's with `res.project_dir` as its project. `shape` then applies
/// the agent's own rules to it (its standing and why, its tools' spelling, the form the probes read). The agent picks
/// the winners after (config::pick_winners): the shared part of a catalogue that reads files in layers.
void add_server_files(config::Resolution& res, const std::vector<ServerFile>& files, util::FileReader& reader,
                      const std::function<void(config::Candidate&, const config::FileReport&)>& shape = {});

/// A catalogue of server files alone, the most common one: reads `files` in order (add_server_files, with
/// `shape`) into a resolution of `inputs.project_dir`, and picks the winners (config::pick_winners).
config::Resolution
read_server_files(const config::DiscoveryInputs& inputs, const util::Environment& env, util::FileReader& reader,
                  const std::vector<ServerFile>& files,
                  const std::function<void(config::Candidate&, const config::FileReport&)>& shape = {});

/// One of an agent's hook event names, and the event it is: a dialect's table of them is its event_names() and
/// what each means, in one place.
struct EventName {
  std::string_view name;
  hook::Event event;
};
/// The event `name` is by `table`; Event::other for a name not in it.
hook::Event event_in(std::span<const EventName> table, std::string_view name);
/// The names of `table`, in its order (Dialect::event_names).
std::vector<std::string_view> names_in(std::span<const EventName> table);
/// Whether the payload's `key` is one of `names`: an agent's own event names, which no other agent sends
/// (Dialect::recognizes).
bool names_one_of(const boost::json::object& payload, std::string_view key, std::initializer_list<std::string_view> names);

/// Names the call's event, the one precedence every dialect keeps: `--event` (`flag`), else the payload's own name
/// for it (`named`, read from its field `field`), else `fallback` (what `fallback_source` says it is).
void name_event(hook::HookCall& call, const std::optional<std::string>& flag, const std::optional<std::string>& named,
                std::string_view field, std::string fallback, std::string fallback_source = "the default");

/// A call whose event the payload's `field` names (name_event's precedence, with `fallback` the default) and that
/// means what `table` says: how most dialects' read() begins.
hook::HookCall call_of_event(const hook::HookInput& input, const std::optional<std::string>& flag,
                             std::string_view field, std::string fallback, std::span<const EventName> table);

/// The call in a payload of Claude Code's shape whose event is named by `hook_event_name` alone (Codex CLI, Qwen
/// Code: `--event`, else that field, else PreToolUse), with its tool and target (read_claude_shape).
hook::HookCall read_claude_shaped_call(const hook::HookInput& input, const std::optional<std::string>& event_flag);

/// Reads the fields of Claude Code's payload shape into `call` (which Codex CLI's hooks send too): the tool's name
/// and its target (`mcp__<server>__<tool>`, every reading when the name splits more ways), the folder (`cwd`), the
/// tool's input; from a cut payload's raw text, the tool's name and target alone.
void read_claude_shape(const hook::HookInput& input, hook::HookCall& call);

/// Claude Code's four events as `install` registers them, its tool events with `matcher` (Qwen Code and Copilot
/// CLI's PascalCase hooks take the same).
std::vector<EventSpec> claude_code_events(const std::string& matcher);

/// Reads Claude Code's PostToolUseFailure fields into `call` (which Qwen Code sends too): the failure's text
/// (`error`), `is_interrupt` and `duration_ms`; nothing from a cut payload.
void read_claude_failure(const hook::HookInput& input, hook::HookCall& call);

/// The answer in Claude Code's form (`hookSpecificOutput`: a `permissionDecision` of `deny` with its reason, or
/// `additionalContext`), which Codex CLI reads too.
Answer hook_specific_answer(const hook::HookOutcome& outcome);

/// Resolves `base`'s folder and then (searching, not with explicit files) every folder `agent` knows that is still
/// there.
std::vector<config::FolderResolution> resolve_everywhere(const Agent& agent, const config::DiscoveryInputs& base,
                                                         const util::Environment& env);

/// One folder as one agent reads it.
struct AgentFolder {
  config::DiscoveryInputs inputs;
  config::Resolution resolution;
  const Agent* agent = nullptr;
  /// The folder asked about (`base`'s, or `--project`'s), not one found elsewhere.
  bool here = true;
};

/// Which folders folders_in_use covers.
struct FolderScope {
  /// These agents; empty = every agent.
  std::vector<const Agent*> agents = {};
  /// This folder alone, for each agent (`--project`); nothing = `base`'s folder and the folders found elsewhere.
  std::optional<std::filesystem::path> project = std::nullopt;
  /// The state file's bindings keys (state::bound_folders): every folder an agent's hook has run in.
  std::vector<std::string> bound_folders = {};
  /// For one of those, the definitions its stored bindings name while they still hold (stats only): a folder whose
  /// every definition its agent starts elsewhere already adds nothing, and is not read again (thousands of
  /// worktrees of a few repositories). Unset: every bound folder is read.
  std::function<std::optional<std::vector<std::string>>(const std::string& key)> still_binds = {};
};

/// The folders each agent runs servers in, each resolved as that agent reads it: `base`'s folder; every folder the
/// agent keeps a record of (Catalogue::known_folders: Claude Code's projects); and every folder where a hook of the
/// agent has run (a Gemini CLI project elsewhere: what runs there is in use too). Folders that are gone run no
/// session and are left out; with config files named outright (`--config`) only `base`'s folder counts. The one
/// rule of "which folders count as in use" that `probe`, `status`, `reset` and `watch` share.
std::vector<AgentFolder> folders_in_use(const config::DiscoveryInputs& base, const util::Environment& env,
                                        const FolderScope& scope = {});

/// The folder whose presence says `agent` is on this machine: its user-scope hook file's (`~/.claude`, `~/.codex`),
/// or for a plugin (in a `plugins` folder install may create) the config folder above it; empty when it has none.
std::filesystem::path agent_folder(const Agent& agent, const util::Environment& env);

/// Every agent, in the order commands list them.
const std::vector<const Agent*>& agents();

/// The agent with that id; nothing for an unknown one.
const Agent* find_agent(std::string_view id);

/// Claude Code: the agent when nothing says otherwise.
const Agent& default_agent();

/// The agent whose dialect recognizes `input` (Dialect::recognizes, asked of each agent in the table); nothing when
/// none does, or the payload was cut (its text may stop inside the model's arguments). Never from the environment:
/// a variable one agent sets is inherited by every agent started under it. `install` writes `--agent` for every
/// agent, so this serves hand-written registrations only.
const Agent* detect_agent(const hook::HookInput& input);

/// A folder's key in the state file's bindings for `agent`: the folder itself for Claude Code (whose keys predate
/// the others), else `<dir> (<id>)`; `how` qualifies it further (`headless`, `--mcp-config <stamp>`).
std::string folder_key(const Agent& agent, const std::string& dir, const std::vector<std::string>& how = {});

/// The agent and folder a bindings key names (what `folder_key` made): Claude Code's for a bare folder or one whose
/// first qualifier names no agent (`headless`).
std::pair<const Agent*, std::filesystem::path> read_folder_key(std::string_view key);

/// The ids of every agent, comma-separated, for messages and `--help`.
std::string agent_ids();

/// What `say` says of each agent, from the table, for `--help`: `Claude Code and Copilot CLI: X; Gemini CLI: Y`
/// (agents that say the same are named together; one that says nothing is left out).
std::string per_agent(const std::function<std::string(const Agent&)>& say);

/// The hook command `install` writes for `binary` and `agent`: `BINARY hook --agent ID`, for every agent (a bare
/// `BINARY hook`, which earlier versions wrote for Claude Code, still reads as Claude Code's). The binary is
/// shell-quoted when it needs to be.
std::string hook_command(const std::string& binary, const Agent& agent);

/// A registered command that runs mcphealth's hook, read as the hook's own parser would: its program is named
/// `mcphealth` (any folder), its first argument is `hook`.
struct HookCommand {
  std::string program;
  /// `--agent`'s value, when given.
  std::optional<std::string> agent;
  /// What is wrong with its arguments, as the hook would see it (an unknown option, a missing value); empty: none.
  std::string problem;
};

/// Reads `command`; nothing when it is not mcphealth's hook.
std::optional<HookCommand> read_hook_command(const std::string& command);

} // namespace mcphealth::agent
