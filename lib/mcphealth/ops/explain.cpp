#include <mcphealth/ops/explain.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/recover.hpp>
#include <mcphealth/util/files.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::ops {

namespace json = boost::json;
namespace fs = std::filesystem;

std::string severity_name(Finding::Severity severity) { return severity == Finding::Severity::error ? "error" : "warning"; }

bool Explanation::has_errors() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Finding::Severity::error; });
}

namespace {

void add(Explanation& e, Finding::Severity s, std::string id, std::string message, std::string hint) {
  e.findings.push_back({s, std::move(id), std::move(message), std::move(hint)});
}

/// A definition's command line as written (before expansion), each word shell-quoted; or its URL.
std::string written_target(const config::ServerDefinition& def) {
  if (auto url = util::get_string(def.raw, "url"); url && !def.raw.contains("command")) return util::redact_url(*url);
  std::string out = util::shell_quote(util::get_string(def.raw, "command").value_or(""));
  if (auto it = def.raw.find("args"); it != def.raw.end() && it->value().is_array()) {
    std::vector<std::string> words;
    for (const auto& a : it->value().get_array()) words.push_back(a.is_string() ? std::string(a.get_string()) : json::serialize(a));
    for (const auto& a : util::redact_args(words)) out += " " + util::shell_quote(a);
  }
  return out;
}

std::string where(const config::Candidate& c) {
  return c.definition.source.string() + " (" + std::string(config::scope_name(c.scope)) + ")";
}

/// Step 1: the files read, and what is wrong with them.
void explain_files(Explanation& e, const config::Resolution& res, const config::Settings& settings) {
  e.files = res.files;
  std::vector<std::string> said; // ~/.claude.json is two reports (local and user scope): one finding
  for (const auto& f : e.files) {
    if (std::find(said.begin(), said.end(), f.source.file.string()) != said.end()) continue;
    said.push_back(f.source.file.string());
    if (f.status == config::FileReport::Status::parse_error) {
      add(e, Finding::Severity::error, "parse-error",
          f.source.file.string() + " does not parse: " + f.error + util::at_line(f.line, f.column),
          "fix the JSON; until then no server in it is found");
    } else if (f.status == config::FileReport::Status::unreadable) {
      add(e, Finding::Severity::error, "unreadable", f.source.file.string() + " cannot be read: " + f.error,
          "check its permissions");
    } else if (res.explicit_files && f.status == config::FileReport::Status::missing) {
      add(e, Finding::Severity::error, "config-path-missing",
          settings.config_paths.origin.name + " names " +
              f.source.file.string() + ", which does not exist",
          "it replaces the whole search, so servers defined elsewhere are not found; fix the path or unset it");
    }
  }
  for (const auto& [path, error] : res.settings_files) {
    add(e, Finding::Severity::error, "settings-unreadable", path.string() + " cannot be used: " + error,
        "fix it: approvals and plugins in it are not seen until then");
  }
  for (const auto& w : settings.warnings) {
    if (w.code == config::SettingWarning::Code::home_in_path) {
      add(e, Finding::Severity::warning, "config-path-home", w.text(), "write the absolute path instead");
    }
  }
  e.trusted = res.trusted;
  if (res.managed_config) e.managed_config = res.managed_config->string();
}

/// Step 2: per name, the definition the agent uses, what it shadows, and every definition it does not use.
void explain_servers(Explanation& e, const config::Resolution& res, const util::Environment& env,
                     const config::Settings& settings, const config::Policy& policy,
                     const std::vector<std::string>& only, const agent::Agent& agent) {
  const std::string name(agent.name);
  const bool claude = &agent == &agent::default_agent(); // whose settings and commands the advice may name
  const auto chosen = [&](const config::Candidate& c) {
    return only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& n) {
             return c.named(n);
           });
  };
  for (const auto* w : res.winners()) e.configured.push_back(w->tool_server);
  for (const auto& name : only) {
    const bool known = std::any_of(res.candidates.begin(), res.candidates.end(), [&](const config::Candidate& c) {
      return c.named(name);
    });
    if (!known) e.unknown_servers.push_back(name);
  }
  for (const auto& c : res.candidates) {
    if (!chosen(c)) continue;
    if (c.standing == config::Standing::shadowed) continue; // listed under its winner
    if (!c.wins()) {
      e.skipped.push_back({c.definition, c.tool_server, c.scope, c.standing, c.reason, written_target(c.definition)});
      add(e, Finding::Severity::warning, std::string(config::standing_name(c.standing)),
          c.definition.name + " in " + where(c) + " is not checked: " + c.reason,
          !c.fix.empty() ? c.fix
          : c.standing == config::Standing::not_approved
              ? (claude ? "approve it in Claude Code (it asks when the project opens), or list it in "
                          "enabledMcpjsonServers; mcphealth runs nothing Claude Code would not"
                        : "approve or trust it in " + name + "; mcphealth runs nothing " + name + " would not")
          : c.standing == config::Standing::not_read
              ? "move it to where " + name + " reads it" + (claude ? " (`claude mcp add`)" : "") + ", or delete it"
              : "nothing to do if that is what you meant");
      continue;
    }
    ServerExplanation s;
    s.name = c.definition.name;
    s.tool_server = c.tool_server;
    s.winner = c.definition;
    s.scope = c.scope;
    s.standing = c.standing;
    s.project = c.project;
    s.plugin = c.plugin;
    s.fingerprint = c.fingerprint;
    for (const auto* other : res.candidates_for(c.tool_server)) {
      if (other->standing == config::Standing::shadowed) {
        s.shadowed.push_back({other->definition, written_target(other->definition)});
      }
    }
    const config::ResolvedServer& resolved = *c.resolved;
    s.kind = config::transport_name(resolved.transport);
    s.unset_vars = resolved.unset_vars;
    if (const auto* stdio = std::get_if<config::StdioServer>(&resolved.transport)) {
      s.target = stdio->command;
      // An argument may carry a credential (`--db=postgresql://u:pw@h/db`, `--api-key sk-…`): shown redacted.
      s.args = util::redact_args(stdio->args);
      s.command_line = util::shell_quote(stdio->command);
      for (const auto& a : s.args) s.command_line += " " + util::shell_quote(a);
      s.env_names = stdio->env_names;
      s.start_folder = stdio->cwd.string();
      if (!stdio->executable.empty() && util::disk().executable(stdio->executable)) {
        s.resolved_command = stdio->executable.string();
      }
    } else if (const auto* http = std::get_if<config::HttpServer>(&resolved.transport)) {
      s.target = http->url.shown();
      for (const auto& [name, value] : http->headers) s.header_names.push_back(name);
    } else {
      s.unsupported_reason = std::get<config::UnsupportedServer>(resolved.transport).reason;
    }
    const config::Settings own = config::settings_for(settings, policy, c);
    s.reconnect = recover::reconnect_command_for(own, c.definition.name, env);
    for (auto& v : server_values(own, c.definition.name, env)) {
      if (v.kind == config::Origin::Kind::policy || v.kind == config::Origin::Kind::flag) s.own_settings.push_back(std::move(v));
    }

    if (own.check_refused) {
      add(e, Finding::Severity::warning, "check-not-run",
          s.name + " has a declared check in " + policy.path.value.string() + ", which does not run: " + *own.check_refused,
          "keep the policy in your own folder (~/.config/mcphealth/policy.json), not where a project's files put it");
    }
    if (!s.shadowed.empty()) {
      std::string list;
      for (const auto& d : s.shadowed) {
        list += (list.empty() ? "" : ", ") + d.definition.source.string() + " (" + d.definition.scope + ")";
      }
      add(e, Finding::Severity::warning, "shadowed",
          s.name + " is defined in " + std::to_string(s.shadowed.size() + 1) + " places; " + where(c) + " wins, shadowing " + list,
          "remove the definitions you do not mean, so the one you edit is the one used");
    }
    if (!s.unset_vars.empty()) {
      std::string vars;
      for (const auto& v : s.unset_vars) vars += (vars.empty() ? "" : ", ") + ("${" + v + "}");
      add(e, Finding::Severity::warning, "unset-variable",
          s.name + " uses " + vars + ", not set here: " + name +
              " warns and starts it with the literal text (if it then "
              "fails, the hook blocks its tools as misconfigured)",
          "set it where the agent runs (launchd and cron do not read your shell profile), or write ${VAR:-default}");
    }
    if (s.kind == "stdio" && !s.resolved_command) {
      add(e, Finding::Severity::warning, "command-not-found",
          s.name + ": command '" + s.target + "' is not on PATH (or not executable)",
          "use an absolute path, or set PATH in the server's env");
    }
    if (s.kind == "unsupported") {
      add(e, Finding::Severity::warning, "unsupported", s.name + ": " + s.unsupported_reason,
          "give it a command (stdio) or a type http/sse with a url");
    }
    e.servers.push_back(std::move(s));
  }
  if (res.winners().empty() && only.empty()) {
    // A file that does not parse may hold them: fixing it comes before adding one.
    const auto broken = std::find_if(res.files.begin(), res.files.end(), [](const config::FileReport& f) {
      return f.status == config::FileReport::Status::parse_error;
    });
    add(e, Finding::Severity::warning, "no-servers", name + " would start no MCP server in this folder",
        broken != res.files.end() ? "fix " + broken->source.file.string() + " first: the servers it defines are not read while it does not parse"
        : claude ? "add one with `claude mcp add`, or point ECC_MCP_CONFIG_PATH at your config"
                 : "add one where " + name + " reads its servers (explain-config lists the files)");
  }
}

/// Step 3: the settings in force, with their origin.
void explain_settings(Explanation& e, const util::Environment& env, const config::Settings& settings,
                      const config::Policy& policy) {
  std::vector<config::SettingWarning> limit_warnings;
  const auto input_limit = config::resolve_input_max_bytes(env, limit_warnings);
  e.settings = {
      {"state file", settings.state_path.value.string(), settings.state_path.origin.text()},
      {"TTL", std::to_string(settings.ttl_ms.value) + " ms", settings.ttl_ms.origin.text()},
      {"probe timeout", std::to_string(settings.timeout_ms.value) + " ms (in a call's hook)", settings.timeout_ms.origin.text()},
      {"probe timeout, no call waiting", std::to_string(config::unhurried(settings, env).timeout_ms.value) + " ms (probe, watch, refresh)",
       config::unhurried(settings, env).timeout_ms.origin.text()},
      {"backoff base", std::to_string(settings.backoff_ms.value) + " ms", settings.backoff_ms.origin.text()},
      {"backoff cap", std::to_string(settings.max_backoff_ms.value) + " ms", settings.max_backoff_ms.origin.text()},
      {"crash loop's backoff cap", std::to_string(config::crash_loop_cap_ms(settings)) + " ms (its trial calls)",
       settings.crash_loop_max_backoff_ms.origin.text()},
      {"reconnect timeout", std::to_string(settings.reconnect_timeout_ms.value) + " ms", settings.reconnect_timeout_ms.origin.text()},
      {"probe depth", std::string(config::probe_mode_name(settings.probe.value)), settings.probe.origin.text()},
      {"protocol", std::string(config::protocol_mode_name(settings.protocol.value)), settings.protocol.origin.text()},
      {"input limit", std::to_string(input_limit.value) + " bytes", input_limit.origin.text()},
      {"output mode", "json", "default (the hook's --output flag)"},
      {"fail-open", settings.fail_open.value ? "on" : "off", settings.fail_open.origin.text()},
      {"config files", settings.config_paths.value.empty() ? "searched" : "explicit", settings.config_paths.origin.text()},
  };
  e.policy_path = policy.path.value.string();
  switch (policy.status) {
  case config::Policy::Status::absent: e.policy_status = "none (" + policy.path.origin.text() + ")"; break;
  case config::Policy::Status::ok:
    e.policy_status = std::to_string(policy.rules.size()) + " server entries (" + policy.path.origin.text() + ")";
    break;
  case config::Policy::Status::invalid:
    e.policy_status = "not valid, ignored (" + policy.path.origin.text() + ")";
    for (const auto& problem : policy.problems) {
      add(e, Finding::Severity::error, "policy-invalid", policy.path.value.string() + ": " + problem.text(),
          "fix it (mcphealth policy lists every problem); until then the environment decides for every server");
    }
    break;
  }
  std::vector<config::SettingWarning> number_warnings = settings.warnings;
  number_warnings.insert(number_warnings.end(), limit_warnings.begin(), limit_warnings.end());
  for (const auto& w : number_warnings) {
    if (w.code == config::SettingWarning::Code::not_a_choice) {
      add(e, Finding::Severity::warning, "bad-variable", w.text(), "use one of the words it lists");
    } else if (w.code == config::SettingWarning::Code::not_a_whole_number) {
      add(e, Finding::Severity::warning, "bad-variable", w.text(), "use a whole number");
    } else if (w.code == config::SettingWarning::Code::capped) {
      add(e, Finding::Severity::warning, "bad-variable", w.text(), "no setting needs more than about 31 years");
    } else if (w.code == config::SettingWarning::Code::zero_timeout) {
      add(e, Finding::Severity::warning, "bad-variable", w.text(), "unset it, or give the milliseconds a probe may take");
    }
  }
  if (settings.fail_open.value) {
    add(e, Finding::Severity::error, "fail-open",
        "fail-open is on (" + settings.fail_open.origin.name +
            "): calls to servers known to be down are allowed",
        "unset it unless you are debugging");
  }
}

/// Whether an agent that runs only trusted hooks (Codex CLI) trusts mcphealth's: asked of the agent itself.
void explain_trust(Explanation& e, const util::Environment& env, const config::DiscoveryInputs& inputs,
                   const agent::Agent& agent, const agent::HookTrust& trust, const std::string& flag) {
  ask_hook_trust(e.hooks, env, inputs.project_dir, agent);
  if (e.hooks.trust == "unknown") {
    add(e, Finding::Severity::warning, "hook-trust-unknown",
        "cannot tell whether " + std::string(agent.name) +
            " trusts mcphealth's hooks (it runs only trusted ones): " + e.hooks.trust_detail,
        "run `mcphealth install" + flag + "` where " + std::string(agent.name) + " is on PATH, or " +
            trust.by_hand(inputs.project_dir));
  } else if (e.hooks.trust == "not trusted") {
    add(e, Finding::Severity::error, "hook-not-trusted",
        std::string(agent.name) + " skips mcphealth's hooks, silently: it has not trusted " + e.hooks.trust_detail,
        "run `mcphealth install" + flag + "` (it asks " + std::string(agent.name) + " to trust them), or " +
            trust.by_hand(inputs.project_dir));
  }
}

/// Step 4: whether Claude Code runs the hook, and whether the JS hook still does.
void explain_hooks(Explanation& e, const util::Environment& env, const config::DiscoveryInputs& inputs,
                   const agent::Agent& agent) {
  e.hooks = find_hook_registration(env, inputs.project_dir, agent);
  const std::string flag = &agent == &agent::default_agent() ? "" : " --agent " + std::string(agent.id);
  std::string missing;
  for (const auto& [event, registered] : e.hooks.required) {
    if (!registered) missing += (missing.empty() ? "" : " and ") + event;
  }
  if (!missing.empty()) {
    add(e, Finding::Severity::error, "hook-not-registered",
        std::string(agent.name) + "'s settings do not run `mcphealth hook` on " + missing + " for MCP tools",
        "run `mcphealth install" + flag + "` (or add the fragment `mcphealth explain-config" + flag +
            " --hook-snippet` prints)");
  }
  for (const std::string& file : e.hooks.disabled_in) {
    add(e, Finding::Severity::error, "hooks-disabled",
        file + " sets \"disableAllHooks\": true: " + std::string(agent.name) + " runs no hook, mcphealth's included",
        "remove disableAllHooks from " + file);
  }
  for (const auto& [command, problem] : e.hooks.problems) {
    add(e, Finding::Severity::error, "hook-command-wrong",
        "the registered `" + command + "` runs mcphealth's hook, but not as meant: " + problem,
        "run `mcphealth install" + flag + "` to write the command again");
  }
  // Registered is not enough: Claude Code runs the command with its own PATH, which a login shell's may not be.
  for (const auto& command : e.hooks.commands) {
    const std::vector<std::string> words = util::shell_words(command);
    if (words.empty()) continue;
    std::string program = words.front();
    if (program.rfind("~/", 0) == 0) program = (util::home_dir(env) / program.substr(2)).string();
    if (program.find('/') != std::string::npos) {
      if (!util::disk().executable(program)) {
        add(e, Finding::Severity::error, "hook-not-startable",
            "the hook is registered, but " + program + " is not an executable file, so " + std::string(agent.name) +
                " cannot start `" + command + "`",
            "run `mcphealth install" + flag + "` to register this binary's absolute path");
      } else if (const auto why = versioned_folder(program)) {
        add(e, Finding::Severity::warning, "hook-versioned-path",
            "the hook runs " + program + ", and " + *why + ": the next upgrade removes it and " +
                std::string(agent.name) + " cannot start the hook",
            "run `mcphealth install" + flag + "` from the stable path (a link on PATH such as ~/.local/bin/mcphealth)");
      }
    } else if (config::find_on_path(program, {"PATH=" + env.get("PATH").value_or("")}, {}, util::disk()).empty()) {
      add(e, Finding::Severity::error, "hook-not-startable",
          "the hook is registered, but `" + program + "` is not on PATH, so " + std::string(agent.name) + " cannot start `" + command +
              "` (PATH=" + env.get("PATH").value_or("") + ")",
          "run `mcphealth install" + flag + "` to register this binary's absolute path");
    }
  }
  if (const agent::HookTrust* trust = agent.registration.trust(); trust && !e.hooks.commands.empty()) {
    explain_trust(e, env, inputs, agent, *trust, flag);
  }
  for (const auto& w : e.hooks.js_hook) {
    add(e, Finding::Severity::error, "js-hook",
        "the JS hook still runs on the same cache file, without a lock (" + w + ")",
        "remove it (or disable the plugin): two writers without a lock lose each other's updates");
  }
}

} // namespace

Explanation explain(const util::Environment& env, const config::Settings& settings, const config::DiscoveryInputs& inputs,
                    const std::vector<std::string>& only, const agent::Agent* agent) {
  const agent::Agent& client = agent ? *agent : agent::default_agent();
  Explanation e;
  e.project_dir = inputs.project_dir.string();
  const config::Resolution res = client.catalogue.resolve(inputs, env);
  const config::Policy policy = config::load_policy(settings.policy_path, env, util::disk(), inputs.project_dir);
  explain_files(e, res, settings);
  explain_servers(e, res, env, settings, policy, only, client);
  explain_settings(e, env, settings, policy);
  explain_hooks(e, env, inputs, client);
  return e;
}

} // namespace mcphealth::ops
