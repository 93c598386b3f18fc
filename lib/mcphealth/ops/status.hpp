#pragma once
// The operator's view of the state file: one row per server (cached, configured or both) with derived ages and
// times, and the warnings that explain silent failures (fail-open left on, an unwritable cache, a pinned backoff).
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/result.hpp>

#include <boost/json.hpp>
#include <map>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// A definition an agent finds but does not start (not approved, disabled, denied, ...): the words a command that
/// takes server names says of it, in place of "unknown server".
struct NotStarted {
  std::string name;
  std::string words;
};

/// What `resolution` holds that `agent` does not start in its folder, each name once, not counting a name another
/// definition of which it does start (a shadowed one).
std::vector<NotStarted> not_started_in(const config::Resolution& resolution, const agent::Agent& agent);

/// What `not_started` says of `name`, when it holds that name.
std::optional<std::string> why_not_started(const std::vector<NotStarted>& not_started, const std::string& name);

/// A server Claude Code would start in some folder: its name in tool names, the file that defines it, and its
/// definition's fingerprint.
struct ConfiguredServer {
  std::string name;
  std::string source;
  std::string fingerprint;
  std::string scope;
  std::optional<std::string> project;
  /// The policy says not to probe it (`probe: skip`): shown as `skipped` unless a failure marked it down.
  bool probe_skipped = false;
  /// The agents that start this definition (their ids), in the table's order.
  std::vector<std::string> agents = {};
  /// An agent starts it in the folder asked about (not only in another folder Claude Code knows).
  bool here = false;
  /// Its parts' digests (config::definition_shape): how a retired row differs from it.
  config::DefinitionShape shape = {};
};

/// One server as `status` shows it.
struct StatusRow {
  std::string name;
  /// The definition this verdict is about; nothing for an entry written without one (the JS hook's).
  std::optional<std::string> definition;
  /// Where the definition comes from (`user`, `project`, ...) and, for local and project scope, its folder.
  std::optional<std::string> scope;
  std::optional<std::string> project;
  /// How it is: `unknown` when configured but never checked (or another writer's status).
  state::Health health = state::Health::unknown;

  /// A verdict for a definition nothing uses now: no folder's binding points at it and (when configs were read) no
  /// agent starts it; the name's definition in force is another (a fixed config) or none. Never counted.
  bool superseded = false;
  /// Why it is superseded when another definition of its name and scope answers in its place (a token rotated, a
  /// folder moved): "header Authorization changed" (config::shape_difference), "folder moved to ...", or "replaced by a definition that
  /// answers" when the verdict kept no shape. Empty otherwise.
  std::string retired_because = {};
  /// For a down server that fails on calls: the breaker it is blocked as (its next check is a trial call).
  state::Breaker breaker = state::Breaker::none;
  /// A cached entry without a definition that no config defines (a failed call's name: a claude.ai connector, a
  /// payload's): shown, blocked by the hook while it lasts, never counted.
  bool unbound() const { return cached && !definition && configured == false; }

  /// True when the server is down (unhealthy or misconfigured) and its verdict is in force: what makes `status`
  /// exit 1.
  bool down() const { return !superseded && !unbound() && state::is_down(health); }
  bool cached = false;
  /// Whether it is configured; nothing when configs were not read (the status line).
  std::optional<bool> configured;
  /// The agents that start its definition (ids), when configs were read.
  std::vector<std::string> agents;
  /// Its definition is the one an agent uses in the folder asked about (when configs were read).
  bool here = false;
  std::optional<std::string> config_source;
  state::ServerEntry entry;
  /// The cache entry as stored, every field.
  boost::json::object raw;
  std::optional<std::int64_t> age_ms;
  /// How long the current outage has lasted (since the entry's `downSince`), while it is down.
  std::optional<std::int64_t> down_for_ms;
  /// Until a healthy mark expires (negative once expired).
  std::optional<std::int64_t> fresh_ms;
  /// Until an unhealthy server's next retry (negative once due).
  std::optional<std::int64_t> retry_in_ms;
  /// Its retry delay has reached the cap: it will only be retried every `max backoff`.
  bool pinned_at_cap = false;
  /// The backoff cap of its server (its policy's, else the environment's), when it is in backoff.
  std::int64_t backoff_cap_ms = 0;
  /// The last error as one line (how a process that exited ended, then the error's last meaningful line), and
  /// what to do about it (ops/hints.hpp); empty when there is none.
  std::string why;
  std::string hint;
};

/// Everything `status` reports.
struct StatusReport {
  std::vector<StatusRow> rows;
  std::vector<std::string> warnings;
  /// What is worth knowing but not worth a warning on every run (a server pinned at the backoff cap: its row says
  /// so too): in `--json`'s warnings, and on stderr with -v.
  std::vector<std::string> notes = {};
  /// Configured's, for a name asked about that no row has.
  std::vector<NotStarted> not_started = {};
};

/// Which rows a listing shows: the servers named (in the order named), only the down ones, only those an agent
/// starts; superseded verdicts only when asked for.
struct RowSelection {
  std::vector<std::string> servers;
  enum class Only { all, down } only = Only::all;
  /// An agent's id: only the definitions it starts.
  std::optional<std::string> agent = std::nullopt;
  bool superseded = false;
  /// Only the definitions an agent starts in the folder asked about (`status --here`): what `--statusline` counts.
  bool here = false;
};

/// How a row is named where a person reads it: its name, and where two rows share that name, which one
/// (`db (proj-b)`: the project's folder, by its last part; `db (user)`: the scope).
std::string display_name(const StatusRow& row, const std::vector<StatusRow>& rows);

/// The last folder of a project's path (`/home/u/src/proj-b/` gives `proj-b`): what tells two servers of one name
/// apart to a reader, in status, report and watch.
std::string project_word(const std::string& project);

/// Keeps the rows `selection` asks for, and of the per-server warnings those of the servers kept. A name no row has
/// is an error naming it and the names there are. A name asked for shows its row in force, not a superseded one.
util::Result<void> select_rows(StatusReport& report, const RowSelection& selection);

/// Keeps the rows of the definitions `folder`'s binding points at (Claude Code's binding of it), when the folder is
/// bound; else all of them. A name bound to no definition there is dropped.
void keep_bound_in(StatusReport& report, const std::optional<state::FolderBindings>& here);

/// What the agents' configs say is configured.
struct Configured {
  std::vector<ConfiguredServer> servers;
  /// Config files that could not be read (`~/.claude.json does not parse at line 3, column 7`): with one, what is
  /// configured is not known whole, so no cached server is called gone or superseded.
  std::vector<std::string> problems = {};
  /// Definitions found in the folder asked about that no agent starts there.
  std::vector<NotStarted> not_started = {};
};

/// Every definition an agent would start: Claude Code's in `base`'s folder or any folder it knows, every other
/// agent's in `base`'s folder, and each agent's in the folders its hooks have run in (`bound_folders`, the state
/// file's bindings keys); each once, with the agents that start it and whether one does in `base`'s folder.
Configured configured_everywhere(const config::DiscoveryInputs& base, const util::Environment& env,
                                 const config::Settings& settings, const agent::FolderScope& scope = {});

/// What the bindings beside `state_path` say, read in one pass over them: the folders the hooks have run in, as
/// agent::folders_in_use takes them (each with what its bindings still say it starts, so only a folder that may add
/// a definition is read again), and every definition some folder is bound to, each once (build_status's `bound`).
struct Bound {
  agent::FolderScope scope;
  std::vector<std::string> definitions;
};
Bound read_bound(const std::filesystem::path& state_path, const util::Environment& env);

/// The settings a cached row's rules are made from (gate::cache_rules): the environment's, and its server's, read
/// on first use, so the policy file is read only when a row's rules need its server's (a healthy row that claims no
/// long TTL reads nothing, and neither does the status line for it).
class RowSettings {
public:
  RowSettings(const config::Settings& environment, const util::Environment& env) : m_environment(environment), m_env(env) {}
  const config::Settings& environment() const { return m_environment; }
  /// The settings of `server` (a tool-server name), in `project` (none: user scope), with the policy laid over.
  const config::Settings& of(const std::string& server, const std::optional<std::string>& project);

private:
  const config::Settings& m_environment;
  const util::Environment& m_env;
  std::optional<config::Policy> m_policy;
  std::map<std::pair<std::string, std::optional<std::string>>, config::Settings> m_of;
};

/// Builds the report from a state snapshot: one row per definition's verdict, one per entry without a definition,
/// one per configured definition never checked. `configured` = nothing skips every config-based row and warning.
/// `bound` lists the definitions some folder's bindings point at (state::bound_definitions): with no configs
/// read, a verdict is superseded when some folder is bound and none to it (none given: none is called so).
StatusReport build_status(const state::StateSnapshot& snapshot, const std::optional<Configured>& configured,
                          RowSettings& settings, util::EpochMs now, const std::vector<std::string>& bound = {});

/// The warnings about the state file and settings alone: fail-open on (and by which variable), the file or its folder
/// not writable, a corrupt file moved aside, a newer version, an unreadable file.
std::vector<std::string> state_warnings(const std::filesystem::path& state_path, const state::StateSnapshot& snapshot,
                                        const config::Settings& settings);

/// Checks that the state writer could write `path`; if not, says why (the file, its folder, or the nearest existing
/// ancestor that is in the way).
util::Result<void> check_writable(const std::filesystem::path& path);

/// The one-line summary for a prompt: `mcp 5✔ 1✘ agentmemory` (`1!` needs auth, `1~` alive but silent, `2?` no
/// verdict yet); `mcp ?` when no server has a verdict yet (nothing checked is not "all fine").
std::string status_line(const StatusReport& report);

} // namespace mcphealth::ops
