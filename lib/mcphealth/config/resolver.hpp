#pragma once
// What an agent starts for a folder, agent-neutral: every definition found (a Candidate), the one that wins per
// name, and why every other is not used (shadowed, not approved, disabled, denied, ...). Each agent's catalogue
// (agent/<id>.cpp) makes a Resolution by its own rules; every command asks the catalogue, none keeps a search of its
// own. The scopes and standings are Claude Code's names, which the other agents' rules map onto.
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// Where a definition comes from.
enum class Scope {
  explicit_file, // a file named by --config or ECC_MCP_CONFIG_PATH: trusted as the user's choice
  command_line,  // `claude --mcp-config FILE|JSON`: the user's own command line; first after managed
  managed,       // managed-mcp.json: when present, the only servers Claude Code starts
  local,         // ~/.claude.json -> projects["<dir>"].mcpServers
  project,       // .mcp.json: the repository's file, started only once approved
  user,          // ~/.claude.json -> mcpServers
  plugin,        // an enabled plugin's plugin.json or .mcp.json
  js_hook_file,  // a file the JS hook read but Claude Code does not: <project>/.claude.json, settings.json
};

/// The name of a scope, as output shows it: `explicit`, `command-line`, `managed`, `local`, `project`, `user`,
/// `plugin`, `js-hook-file`.
std::string_view scope_name(Scope scope);

/// Whether Claude Code uses a definition, and if not, why.
enum class Standing {
  active,          // Claude Code starts it: the one to probe
  shadowed,        // a definition of the same name in a scope of higher precedence wins
  not_approved,    // a project server the user has not approved (or has rejected)
  disabled,        // turned off with /mcp (disabledMcpServers)
  denied,          // deniedMcpServers matches it, or allowedMcpServers does not
  managed_only,    // managed-mcp.json is in force: only its servers start
  plugin_disabled, // its plugin is installed but not enabled
  not_read,        // in a file Claude Code does not read servers from
};

/// The name of a standing: `active`, `shadowed`, `not-approved`, `disabled`, `denied`,
/// `managed-only`, `plugin-disabled`, `not-read`.
std::string_view standing_name(Standing standing);

/// One definition found, and what Claude Code makes of it.
struct Candidate {
  ServerDefinition definition;
  /// The name as tool names spell it: `mcp__<tool_name>__...`.
  std::string tool_server;
  Scope scope = Scope::user;
  /// For local and project scope: the folder it belongs to.
  std::optional<std::string> project;
  /// For plugin scope: `<plugin>@<marketplace>`.
  std::optional<std::string> plugin;
  Standing standing = Standing::active;
  /// Why it is not active (empty when it is).
  std::string reason;
  /// What to do about it, where the agent knows better than the standing's own advice (Gemini CLI's untrusted
  /// folder: trust it); empty otherwise.
  std::string fix = {};
  /// For active definitions: the definition resolved against the environment (an unset ${VAR} without a default
  /// stays literal text, as Claude Code starts it; `resolved->unset_vars` names it).
  std::optional<ResolvedServer> resolved;
  /// For active definitions: the name and what decides a probe (transport, command, args, env
  /// names and a hash of the values, the folder the definition names, url, header names; for a stdio server of a
  /// project's own files, the folder it starts in): one verdict per fingerprint.
  std::string fingerprint;
  /// For active definitions: the fingerprint's parts, each a short digest (definition_shape): what tells two
  /// definitions of one name apart in words ("header Authorization changed").
  DefinitionShape shape = {};

  /// True when this is the definition Claude Code uses for its name.
  bool wins() const { return standing == Standing::active; }
  /// True when a user's `name` means this one: its name in the config file, or as tool names spell it.
  bool named(std::string_view name) const;
};

/// What the resolver saw and decided for one folder.
struct Resolution {
  std::filesystem::path project_dir;
  /// True when explicit config files replaced the search.
  bool explicit_files = false;
  /// Every server file read, in precedence order (for explain-config and error messages).
  std::vector<FileReport> files = {};
  /// Settings and plugin files that decided approvals, with what went wrong reading them (empty when nothing).
  std::vector<std::pair<std::filesystem::path, std::string>> settings_files = {};
  /// Every candidate, in precedence order.
  std::vector<Candidate> candidates = {};
  /// Every file the resolution stat'ed or read, misses included (util::RecordingReader): what it depends on, so
  /// what its stamp covers.
  std::vector<std::filesystem::path> read_files = {};
  /// The `${VAR}` names any definition references: their values are part of the stamp.
  std::vector<std::string> variables = {};
  /// Whether the folder is trusted (`hasTrustDialogAccepted`): project settings files count only then.
  bool trusted = false;
  /// Set when managed-mcp.json is in force.
  std::optional<std::filesystem::path> managed_config = {};

  /// The winning candidate for a name from a tool name (normalized), if any.
  const Candidate* winner(std::string_view tool_server) const;
  /// Every candidate for that name, in precedence order.
  std::vector<const Candidate*> candidates_for(std::string_view tool_server) const;
  /// The key `name` stands for: itself when a candidate is kept under it as written (a server whose tools Qwen
  /// Code renames is kept under its own name, config::qwen_renames), else its tool-name spelling.
  std::string key_of(std::string_view name) const;
  /// Every winning candidate, in precedence order.
  std::vector<const Candidate*> winners() const;
};

/// A short stamp of the files (path, size, modification time) and of the variables' values: equal stamps mean the
/// resolution would come out the same.
std::string resolution_stamp(const std::vector<std::filesystem::path>& files, const std::vector<std::string>& variables,
                             const util::Environment& env, util::FileReader& reader);

/// The stamp of a resolution made from `inputs`: of every file it read, as `inputs.reader` sees them now.
std::string resolution_stamp(const DiscoveryInputs& inputs, const Resolution& resolution, const util::Environment& env);

/// Settles `res.candidates` (in precedence order): every definition's `${VAR}` names go into `res.variables`; of the
/// active ones, the first of each name wins and is resolved against `env` (its fingerprint made), the later ones
/// are shadowed by it. Every agent's catalogue ends this way, with the reader it read the files with (a stdio
/// command's PATH lookup goes through it).
void pick_winners(Resolution& res, const util::Environment& env, util::FileReader& files);

/// Resolves an active candidate against `env` and makes its fingerprint (what pick_winners does for each winner);
/// also for a definition that does not win but that the client says it runs.
void resolve_candidate(Candidate& c, const util::Environment& env, const std::filesystem::path& project_dir,
                       util::FileReader& files);

/// The scope of Claude Code's own word for where a server's definition is (`mcp_server.source` in a hook payload).
/// Seen in 2.1.332: `user`, `local`, `project`, and `dynamic` for a server given with `--mcp-config` (the Agent
/// SDK's `mcpServers` reach it that way too). `plugin` is taken at its word, not seen. Nothing for another word.
std::optional<Scope> scope_of_client_source(std::string_view source);

/// Appends the names of `${NAME}` / `${NAME:-default}` references in every string of `v` (each once).
void referenced_variables(const boost::json::value& v, std::vector<std::string>& out);

/// Whether where a stdio server starts is part of its fingerprint even when its definition names no folder.
enum class StartFolder { ignored, counts };

/// Returns the fingerprint of a resolved server (see Candidate::fingerprint).
std::string definition_fingerprint(const ResolvedServer& server, StartFolder start_folder = StartFolder::ignored);

/// The parts the fingerprint is made of, each named (`command`, `args`, `env NAME`, `cwd`, `type`, `url`,
/// `header Name`) with a digest of its value cut to 8 hex digits: enough to tell that a part changed, never enough to
/// stand for a credential. Two definitions have one fingerprint exactly when they have one shape (a unit test holds
/// the two together).
DefinitionShape definition_shape(const ResolvedServer& server, StartFolder start_folder = StartFolder::ignored);

/// How the definition of shape `now` differs from the one of shape `before`, in words ("header Authorization changed,
/// url changed"); empty when the shapes do not tell (one is empty: written before shapes were kept).
std::string shape_difference(const DefinitionShape& before, const DefinitionShape& now);

/// One folder's resolution and the inputs it was made from.
struct FolderResolution {
  DiscoveryInputs inputs;
  Resolution resolution;
};

} // namespace mcphealth::config
