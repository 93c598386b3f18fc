#pragma once
// Why a server is (not) found or (not) checked: every file the hook would read, each server's winning definition
// and what it shadows, the settings in force and where they come from, and findings with a severity and a hint.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/ops/policy.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/env.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// One finding.
struct Finding {
  enum class Severity { error, warning };
  Severity severity = Severity::warning;
  /// A stable identifier, for scripts: `config-path-missing`, `parse-error`, `fail-open`, ...
  std::string id;
  std::string message;
  std::string hint;
};

/// The name of a severity: `error` or `warning`.
std::string severity_name(Finding::Severity severity);

/// A definition Claude Code does not use, and why.
struct SkippedDefinition {
  config::ServerDefinition definition;
  /// The name as tool names spell it.
  std::string tool_server;
  config::Scope scope = config::Scope::user;
  config::Standing standing = config::Standing::not_approved;
  std::string reason;
  /// Its command line shell-quoted (stdio), or its URL: what mcphealth does NOT run.
  std::string target;
};

/// One server explained: the definition Claude Code uses for a name.
struct ServerExplanation {
  std::string name;
  /// The name as tool names spell it (`mcp__<tool_name>__...`).
  std::string tool_server;
  config::ServerDefinition winner;
  config::Scope scope = config::Scope::user;
  /// `active` or `misconfigured`.
  config::Standing standing = config::Standing::active;
  std::optional<std::string> project;
  std::optional<std::string> plugin;
  std::string fingerprint;
  /// The definitions this one shadows, each with what it would run (shell-quoted) or its URL.
  struct Shadowed {
    config::ServerDefinition definition;
    std::string target;
  };
  std::vector<Shadowed> shadowed;
  /// `stdio`, `http`, `sse` or `unsupported`.
  std::string kind;
  /// The command or URL after expansion.
  std::string target;
  std::vector<std::string> args;
  /// For stdio: the command and its arguments, each shell-quoted: what a probe runs.
  std::string command_line;
  /// For stdio: where the command resolves, or nothing when it is not on PATH.
  std::optional<std::string> resolved_command;
  /// For stdio: the folder it starts in (its session's, or the `cwd` its definition names).
  std::string start_folder;
  std::vector<std::string> env_names;
  std::vector<std::string> header_names;
  std::vector<std::string> unset_vars;
  std::optional<recover::ReconnectCommand> reconnect;
  std::string unsupported_reason;
  /// The per-server values a policy entry or a flag set (the rest are the settings in force for every server).
  std::vector<EffectiveSetting> own_settings;
};

/// Whether an agent's settings register a hook for MCP tools, and what runs there.
struct HookRegistration {
  /// The agent's id.
  std::string agent;
  /// Settings files read, in order.
  std::vector<std::string> files;
  /// Settings files that exist but do not parse, each with where (`syntax error at line 3, column 7`): the agent
  /// reads no hook from them either, so a hook registered there does not run.
  std::vector<std::pair<std::string, std::string>> unparsed;
  /// The events the gate needs (agent::Registration::required_events), each with whether mcphealth's hook runs on
  /// it for MCP tools.
  std::vector<std::pair<std::string, bool>> required;
  /// The first two of those: the gate's event and the failure event (`PreToolUse` and `PostToolUseFailure` for
  /// Claude Code).
  bool pre_tool_use = false;
  bool post_tool_use_failure = false;
  /// A registered mcphealth command the hook would not run as meant (an unknown option, another agent's
  /// `--agent`): the command and what is wrong.
  std::vector<std::pair<std::string, std::string>> problems;
  /// Where the JS hook (`mcp-health-check.js`, or an enabled everything-claude-code plugin) was found.
  std::vector<std::string> js_hook;
  /// The mcphealth hook commands registered for MCP tools, each once.
  std::vector<std::string> commands;
  /// The files that register one of them, each once.
  std::vector<std::string> registered_in;
  /// Of `commands`, those registered only in files a repository controls (its `.claude/settings.json`,
  /// `.gemini/settings.json`, ...), each with the file: a read-only command never runs them.
  std::vector<std::pair<std::string, std::string>> project_commands;
  /// Files that switch every hook off (`"disableAllHooks": true`): the agent runs none, mcphealth's included.
  std::vector<std::string> disabled_in;
  /// For an agent that runs only hooks the user trusts (Codex CLI): `trusted` (every one of mcphealth's that it
  /// lists), `not trusted` (one or more is not), or `unknown` (it could not be asked); empty for other agents.
  std::string trust;
  /// Why trust is what it is: the hooks not trusted, or why the agent could not be asked.
  std::string trust_detail;
};

/// The whole explanation.
struct Explanation {
  std::string project_dir;
  std::vector<config::FileReport> files;
  std::vector<ServerExplanation> servers;
  /// Definitions found but not used (not approved, disabled, denied, ...), shadowed ones excepted.
  std::vector<SkippedDefinition> skipped;
  /// Whether the folder is trusted (project settings files count only then).
  bool trusted = false;
  /// Set when managed-mcp.json is in force.
  std::optional<std::string> managed_config;
  std::vector<std::string> unknown_servers;
  /// Every configured server name, winners in search order (for messages about unknown names).
  std::vector<std::string> configured;
  std::vector<EffectiveSetting> settings;
  /// The policy file: where, and whether it applies.
  std::string policy_path;
  std::string policy_status;
  HookRegistration hooks;
  std::vector<Finding> findings;
  /// True when any finding is an error.
  bool has_errors() const;
};

/// Explains the configuration seen from `inputs` (only `only` servers when given, as tool names or config names).
/// The agent's servers and registration are explained (Claude Code when nothing).
Explanation explain(const util::Environment& env, const config::Settings& settings, const config::DiscoveryInputs& inputs,
                    const std::vector<std::string>& only, const agent::Agent* agent = nullptr);

/// Reads an agent's settings files (Claude Code's: user, project, project-local, managed) for hook registrations.
HookRegistration find_hook_registration(const util::Environment& env, const std::filesystem::path& project_dir,
                                        const agent::Agent& agent = agent::default_agent());

/// For an agent that runs only hooks the user trusts (Codex CLI): asks it whether it trusts mcphealth's, into
/// `reg.trust` and `reg.trust_detail`. Nothing for another agent.
void ask_hook_trust(HookRegistration& reg, const util::Environment& env, const std::filesystem::path& project_dir,
                    const agent::Agent& agent);

/// The settings fragment that registers mcphealth for the agent's events (MCP tools only, no matcher on a session
/// event), running `binary`, as `mcphealth install` writes it.
std::string hook_snippet(const std::string& binary, const agent::Agent& agent = agent::default_agent());

} // namespace mcphealth::ops
