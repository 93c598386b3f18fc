#include "explain_config.hpp"

#include "choices.hpp"
#include "output.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/ops/explain.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

#include <cstdio>

namespace mcphealth::cli {

namespace json = boost::json;

void register_explain_config(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* sub = app.add_subcommand("explain-config", "Explain which config files the hook reads, what wins, and what is wrong");
  sub->add_option("servers", o->servers, "Only these servers")->type_name("SERVER");
  sub->add_flag("--json", o->json, "Print the same content as JSON");
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  sub->add_option("--agent", o->agent, "Whose servers and hooks: " + agent::agent_ids() + " (default: claude-code)")
      ->type_name("ID")
      ->check(one_of_words(ids));
  sub->add_flag("--hook-snippet", o->hook_snippet, "Print the settings.json fragment that registers this mcphealth (its absolute path), and nothing else");
  sub->add_option("--cwd", o->cwd, "Project dir (default: $CLAUDE_PROJECT_DIR, else the current dir)")->type_name("DIR")->check(existing_folder());
  sub->footer("Exit: 0 clean or warnings only, 1 an error finding, 2 usage error. Never prints env or header values.");
  sub->callback([o, &command_line] { command_line.exit_code = run_explain_config(*o, command_line.globals); });
}

namespace {

std::string file_status(const config::FileReport& f) {
  switch (f.status) {
  case config::FileReport::Status::missing: return "missing";
  case config::FileReport::Status::unreadable: return "unreadable: " + f.error;
  case config::FileReport::Status::parse_error:
    return "parse error" + util::at_line(f.line, f.column) + ": " + f.error;
  case config::FileReport::Status::no_servers: return "exists, no servers";
  case config::FileReport::Status::ok: break;
  }
  if (f.servers_not_read > 0) {
    return "exists; " + std::to_string(f.servers_not_read) + " server definitions past the first " +
           std::to_string(config::k_max_servers_per_file) + " not read";
  }
  return "exists";
}

/// A reconnect command as a person reads it: the shell text, or the argv words.
std::string reconnect_text(const recover::ReconnectCommand& c) {
  if (c.argv.empty()) return util::redact(c.command);
  return config::ReconnectSpec{c.argv, {}}.text() + " (no shell)";
}

json::array strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.push_back(json::value(s));
  return a;
}

json::object hooks_json(const ops::HookRegistration& hooks) {
  json::object events, problems;
  for (const auto& [event, registered] : hooks.required) events[event] = registered;
  for (const auto& [command, problem] : hooks.problems) problems[command] = problem;
  return {{"agent", hooks.agent},
          {"settingsFiles", strings(hooks.files)},
          {"preToolUse", hooks.pre_tool_use},
          {"postToolUseFailure", hooks.post_tool_use_failure},
          {"events", std::move(events)},
          {"commandProblems", std::move(problems)},
          {"jsHook", strings(hooks.js_hook)},
          {"trust", hooks.trust.empty() ? json::value(nullptr) : json::value(hooks.trust)}};
}

json::object to_json(const ops::Explanation& e) {
  json::array files;
  for (const auto& f : e.files) {
    json::array names;
    for (const auto& d : f.servers) names.push_back(json::value(d.name));
    json::object o{{"path", f.source.file.string()}, {"scope", f.source.scope}, {"status", file_status(f)}, {"servers", std::move(names)}};
    if (f.project_key) o["projectKey"] = *f.project_key;
    if (f.status == config::FileReport::Status::parse_error) {
      o["line"] = f.line;
      o["column"] = f.column;
    }
    files.push_back(std::move(o));
  }
  json::array servers;
  for (const auto& s : e.servers) {
    json::array shadowed;
    for (const auto& d : s.shadowed) {
      shadowed.push_back(json::object{{"path", d.definition.source.string()}, {"scope", d.definition.scope}, {"target", d.target}});
    }
    json::object o{{"name", s.name}, {"toolName", s.tool_server}, {"source", s.winner.source.string()},
                   {"scope", config::scope_name(s.scope)}, {"standing", config::standing_name(s.standing)},
                   {"definition", s.fingerprint}, {"shadowed", std::move(shadowed)}, {"kind", s.kind}, {"target", s.target},
                   {"args", strings(s.args)}, {"envNames", strings(s.env_names)}, {"headerNames", strings(s.header_names)},
                   {"unsetVariables", strings(s.unset_vars)}};
    o["project"] = s.project ? json::value(*s.project) : json::value(nullptr);
    o["plugin"] = s.plugin ? json::value(*s.plugin) : json::value(nullptr);
    o["commandLine"] = s.kind == "stdio" ? json::value(s.command_line) : json::value(nullptr);
    o["resolvedCommand"] = s.resolved_command ? json::value(*s.resolved_command) : json::value(nullptr);
    o["startsIn"] = s.kind == "stdio" ? json::value(s.start_folder) : json::value(nullptr);
    o["reconnectCommand"] = s.reconnect ? json::value(reconnect_text(*s.reconnect)) : json::value(nullptr);
    o["reconnectVariable"] = s.reconnect ? json::value(s.reconnect->variable) : json::value(nullptr);
    json::object own;
    for (const auto& v : s.own_settings) own[v.name] = json::object{{"value", v.value}, {"origin", v.origin}};
    o["ownSettings"] = std::move(own);
    servers.push_back(std::move(o));
  }
  json::array skipped;
  for (const auto& k : e.skipped) {
    skipped.push_back(json::object{{"name", k.definition.name}, {"toolName", k.tool_server},
                                   {"source", k.definition.source.string()}, {"scope", config::scope_name(k.scope)},
                                   {"standing", config::standing_name(k.standing)}, {"reason", k.reason}, {"target", k.target}});
  }
  json::array settings;
  for (const auto& s : e.settings) settings.push_back(json::object{{"name", s.name}, {"value", s.value}, {"origin", s.origin}});
  json::array findings;
  for (const auto& f : e.findings) {
    findings.push_back(json::object{{"severity", ops::severity_name(f.severity)}, {"id", f.id}, {"message", f.message}, {"hint", f.hint}});
  }
  return {{"projectDir", e.project_dir},
          {"files", std::move(files)},
          {"servers", std::move(servers)},
          {"notChecked", std::move(skipped)},
          {"trusted", e.trusted},
          {"managedConfig", e.managed_config ? json::value(*e.managed_config) : json::value(nullptr)},
          {"settings", std::move(settings)},
          {"policy", json::object{{"path", e.policy_path}, {"status", e.policy_status}}},
          {"hooks", hooks_json(e.hooks)},
          {"findings", std::move(findings)}};
}

void print_text(const ops::Explanation& e, bool color) {
  auto bold = [&](const std::string& s) { return color ? "\033[1m" + s + "\033[0m" : s; };
  std::printf("%s\n", bold("Project dir: " + util::escape_control(e.project_dir)).c_str());
  // Claude Code's trust dialog (the other agents' rules say their own words under the servers they do not start).
  if (e.hooks.agent == agent::default_agent().id) {
    // The record of trust is in the file of local scope (~/.claude.json): when that does not read, nothing is known.
    const auto unread = std::find_if(e.files.begin(), e.files.end(), [](const config::FileReport& f) {
      return f.source.scope == "local" && (f.status == config::FileReport::Status::parse_error ||
                                           f.status == config::FileReport::Status::unreadable);
    });
    if (unread != e.files.end()) {
      say("  trusted: unknown: %s does not read, and it holds Claude Code's record of trusted folders\n",
          tilde(unread->source.file.string()));
    } else {
      say("  trusted: %s\n", e.trusted ? "yes (hasTrustDialogAccepted)" : "no: its own settings files approve nothing");
    }
  }
  if (e.managed_config) say("  managed config in force: %s\n", e.managed_config->c_str());
  std::printf("\n%s\n", bold("Config files, in precedence order").c_str());
  int i = 1;
  for (const auto& f : e.files) {
    constexpr std::size_t k_names_shown = 40; // the rest are in --json; a line of thousands says nothing
    std::string names;
    for (std::size_t n = 0; n < f.servers.size() && n < k_names_shown; ++n) names += (n == 0 ? "" : ", ") + f.servers[n].name;
    if (f.servers.size() > k_names_shown) names += " and " + std::to_string(f.servers.size() - k_names_shown) + " more";
    std::printf("  %d. ", i++);
    say("%s (%s%s): %s%s\n", f.source.file.c_str(), f.source.scope.c_str(),
                f.project_key ? (", projects[\"" + *f.project_key + "\"]").c_str() : "", file_status(f).c_str(),
                names.empty() ? "" : ("; defines " + names).c_str());
  }
  std::printf("\n%s\n", bold("Servers").c_str());
  if (e.servers.empty()) say("  (none)\n");
  for (const auto& s : e.servers) {
    say("  %s: %s, %s scope, from %s%s\n", s.name.c_str(), s.kind.c_str(), std::string(config::scope_name(s.scope)).c_str(),
                s.winner.source.c_str(), s.unset_vars.empty() ? "" : " (uses unset variables)");
    if (s.tool_server != s.name) say("    in tool names: mcp__%s__...\n", s.tool_server.c_str());
    for (const auto& d : s.shadowed) {
      say("    shadowed: %s (%s), which would run %s\n", d.definition.source.c_str(), d.definition.scope.c_str(),
                  d.target.c_str());
    }
    if (s.kind == "stdio") {
      say("    command: %s\n", s.command_line.c_str());
      say("    on PATH: %s\n", s.resolved_command ? s.resolved_command->c_str() : "NO, not found");
      say("    starts in: %s\n", s.start_folder.c_str());
    } else if (s.kind != "unsupported") {
      say("    url: %s\n", s.target.c_str());
    } else {
      say("    %s\n", s.unsupported_reason.c_str());
    }
    std::string env_names, header_names, unset;
    for (const auto& n : s.env_names) env_names += (env_names.empty() ? "" : ", ") + n;
    for (const auto& n : s.header_names) header_names += (header_names.empty() ? "" : ", ") + n;
    for (const auto& n : s.unset_vars) unset += (unset.empty() ? "" : ", ") + ("${" + n + "}");
    if (!env_names.empty()) say("    env sets: %s\n", env_names.c_str());
    if (!header_names.empty()) say("    headers: %s\n", header_names.c_str());
    if (!unset.empty()) say("    unset here: %s\n", unset.c_str());
    say("    reconnect: %s\n",
                s.reconnect ? (reconnect_text(*s.reconnect) + " (from " + s.reconnect->variable + ")").c_str() : "none configured");
    for (const auto& v : s.own_settings) {
      say("    %s: %s  [%s]\n", v.name.c_str(), v.value.c_str(), v.origin.c_str());
    }
  }
  const agent::Agent* agent = agent::find_agent(e.hooks.agent);
  const std::string agent_name(agent ? agent->name : agent::default_agent().name);
  std::printf("\n%s\n", bold("Not checked (" + agent_name + " does not start these here)").c_str());
  if (e.skipped.empty()) say("  (none)\n");
  for (const auto& k : e.skipped) {
    say("  %s: %s, from %s (%s)\n    would run: %s\n", k.definition.name.c_str(),
                std::string(config::standing_name(k.standing)).c_str(), k.definition.source.c_str(),
                std::string(config::scope_name(k.scope)).c_str(), k.target.c_str());
    say("    why: %s\n", k.reason.c_str());
  }
  std::printf("\n%s\n", bold("Settings").c_str());
  for (const auto& s : e.settings) say("  %-18s %s  [%s]\n", (s.name + ":").c_str(), s.value.c_str(), s.origin.c_str());
  say("  %-18s %s: %s\n", "policy file:", e.policy_path.c_str(), e.policy_status.c_str());
  say("  (precedence: flag > policy servers.<name> > policy defaults > MCPHEALTH_* > ECC_* > default; a\n"
              "   server's own values are listed with it; mcphealth policy shows them all)\n");
  std::printf("\n%s\n", bold("Hooks").c_str());
  std::string registered;
  for (const auto& [event, on] : e.hooks.required) {
    registered += (registered.empty() ? "" : "; ") + event + ": " + (on ? "✔ registered" : "✘ NOT registered");
  }
  say("  %s (read: %s)\n", registered.c_str(),
      e.hooks.files.empty() ? "no settings files" : std::to_string(e.hooks.files.size()).append(" settings file(s)").c_str());
  if (!e.hooks.trust.empty()) {
    say("  trust: %s%s\n", e.hooks.trust.c_str(), e.hooks.trust_detail.empty() ? "" : (" (" + e.hooks.trust_detail + ")").c_str());
  }
  std::printf("\n%s\n", bold("Findings").c_str());
  if (e.findings.empty()) say("  none: all clear\n");
  for (const auto& f : e.findings) {
    // The symbols of the tables and the man page: ✘ for what breaks the gate, ! for what deserves a look.
    std::string sev = (f.severity == ops::Finding::Severity::error ? "✘ " : "! ") + ops::severity_name(f.severity);
    if (color) sev = (f.severity == ops::Finding::Severity::error ? "\033[31m" : "\033[33m") + sev + "\033[0m";
    std::printf("  %s: ", sev.c_str());
    // Broken between words at the terminal's edge, not mid-word by the terminal.
    const std::size_t used = 4 + ops::severity_name(f.severity).size() + 2;
    std::printf("%s\n    hint: %s\n", wrap_words(util::escape_control(f.message), terminal_width(), used, "    ").c_str(),
                wrap_words(util::escape_control(f.hint), terminal_width(), 10, "          ").c_str());
  }
}

} // namespace

int run_explain_config(const ExplainOptions& o, const GlobalOptions& globals) {
  const agent::Agent* chosen = o.agent ? agent::find_agent(*o.agent) : nullptr;
  const agent::Agent& agent = chosen ? *chosen : agent::default_agent();
  if (o.hook_snippet) {
    const auto binary = ops::this_binary();
    std::fputs(ops::hook_snippet(binary ? binary->string() : std::string("mcphealth"), agent).c_str(), stdout);
    return k_exit_ok;
  }
  util::ProcessEnvironment env;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  const config::DiscoveryInputs inputs = discovery_for(env, settings, o.cwd);
  const ops::Explanation e = ops::explain(env, settings, inputs, o.servers, &agent);
  if (!e.unknown_servers.empty()) {
    util::log::error(util::unknown_name("server", e.unknown_servers.front(), e.configured));
    return k_exit_usage;
  }
  if (o.json) print_json(to_json(e));
  else print_text(e, use_color(stdout));
  return e.has_errors() ? k_exit_unhealthy : k_exit_ok;
}

} // namespace mcphealth::cli
