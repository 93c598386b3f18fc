#pragma once
// The inputs of the search for MCP server definitions (the folder, explicit files, how the agent was started) and
// reading one file of definitions. Which definitions win, and which an agent starts at all, is its catalogue's
// (agent/agent.hpp); where each agent keeps its files, the agent's own.
#include <mcphealth/config/expand.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/files.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// One file definitions come from.
struct ConfigSource {
  std::filesystem::path file;
  /// A short label: `explicit`, `local`, `project`, `user`, `managed`, `plugin <id>`, `js-hook-file`.
  std::string scope;
};

/// What the agent was started with, where that decides which servers run (Claude Code's `--mcp-config` values,
/// read by agent/claude_code_args.cpp).
struct ClientArguments {
  /// Each `--mcp-config` value, in order: a file (relative to `cwd`) or a JSON text.
  std::vector<std::string> mcp_configs;
  /// `--strict-mcp-config`: only the `--mcp-config` servers start.
  bool strict = false;
  /// The client's working folder, where relative paths start.
  std::filesystem::path cwd;

  bool empty() const { return mcp_configs.empty() && !strict; }
  /// A short stamp of all of it: sessions started with other arguments bind apart.
  std::string stamp() const;
};

/// What discovery starts from.
struct DiscoveryInputs {
  /// Explicit config files (`--config`, `ECC_MCP_CONFIG_PATH`); when non-empty they replace the search.
  std::vector<std::filesystem::path> explicit_paths;
  /// The project dir: `$CLAUDE_PROJECT_DIR`, else the payload's `cwd`, else the process cwd.
  std::filesystem::path project_dir;
  /// The home directory.
  std::filesystem::path home;
  /// How the client runs. Headless Claude Code (`claude -p`) also starts the project's `.mcp.json` servers that
  /// are still pending approval (a rejected one stays off), whether or not the folder is trusted; interactive
  /// Claude Code starts only approved ones.
  enum class Mode { interactive, headless };
  Mode mode = Mode::interactive;
  /// What the client was started with (`claude --mcp-config ...`, agent/claude_code_args.hpp): its servers come first,
  /// and with `--strict-mcp-config` they are the only ones.
  std::optional<ClientArguments> client;
  /// Set for a tool call's hook by an agent that starts a project's servers unasked but only in a session there
  /// (Qwen Code): the agent runs in this folder now, so what it starts here is known. Elsewhere (probe, status)
  /// those servers are not started: nothing says the agent ever runs there.
  bool agent_runs_here = false;
  /// The version of the client the hook runs under, where its hook can see it (Claude Code's process): where the
  /// client's rules differ by version, its own apply. Nothing: not seen (agent/claude_code_args.hpp).
  std::optional<std::string> client_version;
  /// What reads the configuration files (util/files.hpp); nothing = the disk.
  util::FileReader* reader = nullptr;
};


/// Returns `p` absolute and lexically normal, without a trailing separator: the form `projects` keys have.
std::filesystem::path absolute_normal(const std::filesystem::path& p);

/// Builds the inputs from the environment: `CLAUDE_PROJECT_DIR` over `payload_cwd` over the process cwd.
DiscoveryInputs discovery_inputs(const util::Environment& env, std::vector<std::filesystem::path> explicit_paths,
                                 const std::string& payload_cwd);

/// A stamp of every source's path and modification time: it changes when any config file is added, edited or
/// removed, so a remembered "no definition" can be trusted until then.
std::string config_fingerprint(const std::vector<ConfigSource>& sources, util::FileReader& reader);

/// How an agent builds a stdio server's environment from its own (the hook's). Nothing set: every variable passes
/// on and the definition's `env` comes on top, as Claude Code and Copilot CLI do.
struct EnvRule {
  /// Whether one of the agent's variables passes on to the server (name, value); unset: every one does.
  std::function<bool(std::string_view name, std::string_view value)> passes = {};
  /// Variables the agent sets beneath what passes on (Gemini CLI's `GEMINI_CLI=1`).
  std::vector<std::pair<std::string, std::string>> beneath = {};
  /// Keys of the definition's `env` the agent will not set (Gemini CLI's `NODE_OPTIONS` and the like); unset: none.
  std::function<bool(std::string_view name)> refuses = {};
  /// What an unset variable in an `env` value becomes once the agent has built that environment (Gemini CLI reads
  /// the values again against it, and an unset one becomes "").
  UnsetVar unset_in_env = UnsetVar::literal;
};

/// A server definition as found, before expansion.
struct ServerDefinition {
  std::string name;
  std::filesystem::path source;
  std::string scope;
  boost::json::object raw;
  /// The folder the agent starts it in, as its config names it (Codex CLI's and Gemini CLI's `cwd`; a relative one
  /// is taken from the session's folder); empty: the session's folder, where Claude Code starts every server.
  std::string cwd = {};
  /// What of the hook's environment the agent passes on to it (Codex CLI: a few names, and the `env_vars` listed;
  /// Gemini CLI: what its redaction leaves).
  EnvRule env_rule = {};
  /// How the agent reads `${VAR}` in it.
  VarExpansion expansion = VarExpansion::braces;
};

/// What reading one source found.
struct FileReport {
  ConfigSource source;
  enum class Status { missing, unreadable, parse_error, no_servers, ok };
  Status status = Status::missing;
  std::string error;
  std::size_t line = 0;
  std::size_t column = 0;
  /// For local scope: the `projects` key of `~/.claude.json` that matched.
  std::optional<std::string> project_key;
  /// The definitions, in file order.
  std::vector<ServerDefinition> servers;
  /// Definitions past k_max_servers_per_file, not read (counted).
  std::size_t servers_not_read = 0;
};

/// The most server definitions read from one file: far past any real one, so a repository's file that names
/// hundreds of thousands costs a bounded time and nothing in the state for the rest.
inline constexpr std::size_t k_max_servers_per_file = 4096;

/// The keys a file holds its servers under, in the order they are read: Claude Code's `mcpServers` and Codex CLI's
/// `mcp_servers`, unless an agent names its own (opencode's `mcp`).
inline constexpr std::string_view k_servers_keys[] = {"mcpServers", "mcp_servers"};

/// Adds the definitions under `holder`'s `keys` to `report.servers`, first of a name wins, at most
/// k_max_servers_per_file (the rest counted in `servers_not_read`).
void collect_servers(const boost::json::object& holder, FileReport& report,
                     std::span<const std::string_view> keys = k_servers_keys);

/// How a configuration file is written: JSON, JSON with comments (Gemini CLI's settings), TOML.
enum class FileFormat { json, json_with_comments, toml };

/// Reads the servers under one file's top-level `keys` (`mcpServers`, or `mcp_servers`).
FileReport read_source(const ConfigSource& source, util::FileReader& reader,
                       FileFormat format = FileFormat::json, std::span<const std::string_view> keys = k_servers_keys);

} // namespace mcphealth::config
