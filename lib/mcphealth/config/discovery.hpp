#pragma once
// Where MCP server definitions live, in the order the hook reads them, and reading them: the JS hook's two files
// first, then Claude Code's own scopes in its precedence (local > project > user). First definition wins, whole.
#include <mcphealth/util/env.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// One place definitions may come from.
struct ConfigSource {
  /// `servers`: top-level `mcpServers`/`mcp_servers`; `project_entry`: `projects["<dir>"]` of `.claude.json`,
  /// walking up from the project dir to the nearest key (Claude Code's local scope).
  enum class Kind { servers, project_entry };
  std::filesystem::path file;
  Kind kind = Kind::servers;
  /// A short human label: `explicit`, `project .claude.json`, `local scope`, `project scope`, `user scope`, ...
  std::string scope;
};

/// What discovery starts from.
struct DiscoveryInputs {
  /// Explicit config files (`--config`, `ECC_MCP_CONFIG_PATH`); when non-empty they replace the search.
  std::vector<std::filesystem::path> explicit_paths;
  /// The project dir: `$CLAUDE_PROJECT_DIR`, else the payload's `cwd`, else the process cwd.
  std::filesystem::path project_dir;
  /// `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json`.
  std::filesystem::path claude_json;
  /// The home directory.
  std::filesystem::path home;
  /// Claude Code's folder for settings and plugins: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
  std::filesystem::path config_dir;
  /// Where managed (administrator) settings live: `$MCPHEALTH_MANAGED_DIR`, else `/etc/claude-code` (Linux) or
  /// `/Library/Application Support/ClaudeCode` (macOS).
  std::filesystem::path managed_dir;
};

/// Returns `p` absolute and lexically normal, without a trailing separator: the form `projects` keys have.
std::filesystem::path absolute_normal(const std::filesystem::path& p);

/// Builds the inputs from the environment: `CLAUDE_PROJECT_DIR` over `payload_cwd` over the process cwd.
DiscoveryInputs discovery_inputs(const util::Environment& env, std::vector<std::filesystem::path> explicit_paths,
                                 const std::string& payload_cwd);

/// Returns the sources in search order. Only stats files (for the nearest ancestor `.mcp.json`); reads nothing.
std::vector<ConfigSource> search_order(const DiscoveryInputs& inputs);

/// A stamp of every source's path and modification time: it changes when any config file is added, edited or
/// removed, so a remembered "no definition" can be trusted until then.
std::string config_fingerprint(const std::vector<ConfigSource>& sources);

/// A server definition as found, before expansion.
struct ServerDefinition {
  std::string name;
  std::filesystem::path source;
  std::string scope;
  boost::json::object raw;
};

/// What reading one source found.
struct FileReport {
  ConfigSource source;
  enum class Status { missing, unreadable, parse_error, no_servers, ok };
  Status status = Status::missing;
  std::string error;
  std::size_t line = 0;
  std::size_t column = 0;
  /// For a `project_entry` source: the `projects` key that matched.
  std::optional<std::string> project_key;
  /// The definitions, in file order.
  std::vector<ServerDefinition> servers;
};

/// Adds the definitions in `holder`'s `mcpServers` (or `mcp_servers`) to `report.servers`, first of a name wins.
void collect_servers(const boost::json::object& holder, FileReport& report);

/// Reads sources lazily, each at most once, in search order.
class ConfigReader {
public:
  ConfigReader(std::vector<ConfigSource> sources, std::filesystem::path project_dir)
      : m_sources(std::move(sources)), m_project_dir(std::move(project_dir)) {}

  /// Returns the winning definition of `name`: the first source that defines it.
  std::optional<ServerDefinition> find(std::string_view name);
  /// Returns every definition of `name`, winner first.
  std::vector<ServerDefinition> definitions_of(std::string_view name);
  /// Returns the winning definition of every name, in order of first appearance.
  std::vector<ServerDefinition> all_winners();
  /// Returns what reading each source found.
  const std::vector<FileReport>& reports();
  /// The sources, in search order.
  const std::vector<ConfigSource>& sources() const { return m_sources; }

private:
  const FileReport& report(std::size_t index);

  std::vector<ConfigSource> m_sources;
  std::filesystem::path m_project_dir;
  std::vector<std::optional<FileReport>> m_reports;
  std::vector<FileReport> m_all;
};

/// Reads one source.
FileReport read_source(const ConfigSource& source, const std::filesystem::path& project_dir);

} // namespace mcphealth::config
