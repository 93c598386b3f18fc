#include <mcphealth/ops/explain.hpp>

#include <mcphealth/probe/probe.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <regex>
#include <sys/stat.h>

namespace mcphealth::ops {

namespace json = boost::json;
namespace fs = std::filesystem;

std::string severity_name(Finding::Severity severity) { return severity == Finding::Severity::error ? "error" : "warning"; }

bool Explanation::has_errors() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Finding::Severity::error; });
}

std::string hook_snippet() {
  json::object entry{{"matcher", "mcp__.*"}, {"hooks", json::array{json::object{{"type", "command"}, {"command", "mcphealth hook"}}}}};
  json::object hooks;
  for (const char* event : {"PreToolUse", "PostToolUseFailure", "PostToolUse"}) hooks[event] = json::array{entry};
  return util::pretty_json(json::object{{"hooks", std::move(hooks)}});
}

namespace {

/// True when a hook matcher selects MCP tools: empty, `*`, or a pattern matching `mcp__server__tool`.
bool matcher_covers_mcp(const std::string& matcher) {
  if (matcher.empty() || matcher == "*") return true;
  try {
    return std::regex_match("mcp__server__tool", std::regex(matcher)) ||
           std::regex_search("mcp__server__tool", std::regex("^(" + matcher + ")$"));
  } catch (const std::regex_error&) {
    return matcher.find("mcp__") != std::string::npos;
  }
}

void scan_settings(const fs::path& file, HookRegistration& reg) {
  util::FileRead read = util::read_file(file);
  if (read.status != util::FileRead::Status::ok) return;
  reg.files.push_back(file.string());
  util::JsonParse parsed = util::parse_json(read.bytes);
  if (!parsed.value || !parsed.value->is_object()) return;
  const json::object& root = parsed.value->get_object();
  if (const json::object* plugins = util::get_object(root, "enabledPlugins")) {
    for (const auto& kv : *plugins) {
      if (std::string(kv.key()).find("everything-claude-code") != std::string::npos && kv.value() == true) {
        reg.js_hook.push_back(file.string() + ": enabledPlugins " + std::string(kv.key()));
      }
    }
  }
  const json::object* hooks = util::get_object(root, "hooks");
  if (hooks == nullptr) return;
  for (const auto& [event, covered] : {std::pair<const char*, bool*>{"PreToolUse", &reg.pre_tool_use},
                                       std::pair<const char*, bool*>{"PostToolUseFailure", &reg.post_tool_use_failure}}) {
    auto it = hooks->find(event);
    if (it == hooks->end() || !it->value().is_array()) continue;
    for (const auto& group : it->value().get_array()) {
      if (!group.is_object()) continue;
      const std::string matcher = util::get_string(group.get_object(), "matcher").value_or("");
      auto list = group.get_object().find("hooks");
      if (list == group.get_object().end() || !list->value().is_array()) continue;
      for (const auto& h : list->value().get_array()) {
        if (!h.is_object()) continue;
        const std::string command = util::get_string(h.get_object(), "command").value_or("");
        if (command.find("mcp-health-check") != std::string::npos) {
          reg.js_hook.push_back(file.string() + ": " + event + " runs " + command);
        }
        if (command.find("mcphealth") != std::string::npos && command.find("hook") != std::string::npos &&
            matcher_covers_mcp(matcher)) {
          *covered = true;
        }
      }
    }
  }
}

std::string kind_of(const config::Transport& t) {
  if (const auto* h = std::get_if<config::HttpServer>(&t)) return h->type;
  if (std::holds_alternative<config::StdioServer>(t)) return "stdio";
  return "unsupported";
}

void add(Explanation& e, Finding::Severity s, std::string id, std::string message, std::string hint) {
  e.findings.push_back({s, std::move(id), std::move(message), std::move(hint)});
}

} // namespace

HookRegistration find_hook_registration(const util::Environment& env, const fs::path& project_dir) {
  HookRegistration reg;
  std::vector<fs::path> files;
  if (auto dir = env.get("CLAUDE_CONFIG_DIR"); dir && !dir->empty()) files.push_back(fs::path(*dir) / "settings.json");
  files.push_back(util::home_dir(env) / ".claude" / "settings.json");
  files.push_back(project_dir / ".claude" / "settings.json");
  files.push_back(project_dir / ".claude" / "settings.local.json");
  files.push_back("/etc/claude-code/managed-settings.json");
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  for (const auto& f : files) scan_settings(f, reg);
  return reg;
}

Explanation explain(const util::Environment& env, const config::Settings& settings, const config::DiscoveryInputs& inputs,
                    const std::vector<std::string>& only) {
  Explanation e;
  e.project_dir = inputs.project_dir.string();
  config::ConfigReader reader(config::search_order(inputs), inputs.project_dir);
  e.files = reader.reports();

  // Files.
  const bool explicit_paths = !settings.config_paths.value.empty();
  for (const auto& f : e.files) {
    if (f.status == config::FileReport::Status::parse_error) {
      add(e, Finding::Severity::error, "parse-error",
          f.source.file.string() + " does not parse: " + f.error + " at line " + std::to_string(f.line) + ", column " +
              std::to_string(f.column),
          "fix the JSON; until then no server in it is found");
    } else if (f.status == config::FileReport::Status::unreadable) {
      add(e, Finding::Severity::error, "unreadable", f.source.file.string() + " cannot be read: " + f.error,
          "check its permissions");
    } else if (explicit_paths && f.status == config::FileReport::Status::missing) {
      add(e, Finding::Severity::error, "config-path-missing",
          settings.config_paths.origin.substr(settings.config_paths.origin.find(' ') + 1) + " names " +
              f.source.file.string() + ", which does not exist",
          "it replaces the whole search, so servers defined elsewhere are not found; fix the path or unset it");
    }
  }
  for (const auto& w : settings.warnings) {
    if (w.find("launchd") != std::string::npos) {
      add(e, Finding::Severity::warning, "config-path-home", w, "write the absolute path instead");
    }
  }
  if (struct stat st {}; ::stat("/etc/claude-code/managed-mcp.json", &st) == 0) {
    add(e, Finding::Severity::warning, "managed-mcp",
        "/etc/claude-code/managed-mcp.json exists: Claude Code uses only the servers it defines",
        "point ECC_MCP_CONFIG_PATH at it so mcphealth checks the same servers");
  }

  // Servers.
  std::vector<config::ServerDefinition> winners = reader.all_winners();
  for (const auto& d : winners) e.configured.push_back(d.name);
  if (!only.empty()) {
    std::vector<config::ServerDefinition> chosen;
    for (const auto& name : only) {
      auto it = std::find_if(winners.begin(), winners.end(), [&](const auto& d) { return d.name == name; });
      if (it == winners.end()) e.unknown_servers.push_back(name);
      else chosen.push_back(*it);
    }
    winners = chosen;
  }
  for (const auto& def : winners) {
    ServerExplanation s;
    s.name = def.name;
    s.winner = def;
    auto all = reader.definitions_of(def.name);
    s.shadowed.assign(all.begin() + 1, all.end());
    config::ResolvedServer resolved = config::resolve_server(def, env);
    s.kind = kind_of(resolved.transport);
    s.unset_vars = resolved.unset_vars;
    if (const auto* stdio = std::get_if<config::StdioServer>(&resolved.transport)) {
      s.target = stdio->command;
      s.args = stdio->args;
      s.env_names = stdio->env_names;
      if (!stdio->executable.empty() && ::access(stdio->executable.c_str(), X_OK) == 0) {
        s.resolved_command = stdio->executable.string();
      }
    } else if (const auto* http = std::get_if<config::HttpServer>(&resolved.transport)) {
      s.target = http->url;
      for (const auto& [name, value] : http->headers) s.header_names.push_back(name);
    } else {
      s.unsupported_reason = std::get<config::UnsupportedServer>(resolved.transport).reason;
    }
    s.reconnect = hook::find_reconnect_command(def.name, env);

    if (!s.shadowed.empty()) {
      std::string where;
      for (const auto& d : s.shadowed) where += (where.empty() ? "" : ", ") + d.source.string() + " (" + d.scope + ")";
      add(e, Finding::Severity::warning, "shadowed",
          def.name + " is defined in " + std::to_string(all.size()) + " places; " + def.source.string() + " (" +
              def.scope + ") wins, shadowing " + where,
          "remove the definitions you do not mean, so the one you edit is the one used");
    }
    for (const auto& var : s.unset_vars) {
      add(e, Finding::Severity::warning, "unset-variable",
          def.name + " uses ${" + var + "}, which is not set here",
          "works by hand, fails under launchd or cron: set it where the agent runs, or use ${" + var + ":-default}");
    }
    if (s.kind == "stdio" && !s.resolved_command) {
      add(e, Finding::Severity::warning, "command-not-found",
          def.name + ": command '" + s.target + "' is not on PATH (or not executable)",
          "use an absolute path, or set PATH in the server's env");
    }
    if (s.kind == "unsupported") {
      add(e, Finding::Severity::warning, "unsupported", def.name + ": " + s.unsupported_reason,
          "give it a command (stdio) or a type http/sse with a url");
    }
    e.servers.push_back(std::move(s));
  }
  if (winners.empty() && only.empty()) {
    add(e, Finding::Severity::warning, "no-servers", "no MCP servers are defined in any file the hook reads",
        "add one with `claude mcp add`, or point ECC_MCP_CONFIG_PATH at your config");
  }

  // Settings.
  std::string depth_warning;
  probe::ProbeOptions probe_options = probe::probe_options_from_env(env, depth_warning);
  std::string depth = probe_options.depth == probe::Depth::liveness    ? "liveness"
                      : probe_options.depth == probe::Depth::handshake ? "handshake"
                                                                       : "auto";
  std::vector<std::string> ignored;
  const auto input_limit = config::resolve_input_max_bytes(env, ignored);
  e.settings = {
      {"state file", settings.state_path.value.string(), settings.state_path.origin},
      {"TTL", std::to_string(settings.ttl_ms.value) + " ms", settings.ttl_ms.origin},
      {"probe timeout", std::to_string(settings.timeout_ms.value) + " ms", settings.timeout_ms.origin},
      {"backoff base", std::to_string(settings.backoff_ms.value) + " ms", settings.backoff_ms.origin},
      {"backoff cap", std::to_string(settings.max_backoff_ms.value) + " ms", settings.max_backoff_ms.origin},
      {"reconnect timeout", std::to_string(settings.reconnect_timeout_ms.value) + " ms", settings.reconnect_timeout_ms.origin},
      {"probe depth", depth, env.get("MCPHEALTH_PROBE_DEPTH") && depth_warning.empty() ? "variable MCPHEALTH_PROBE_DEPTH" : "default"},
      {"input limit", std::to_string(input_limit.value) + " bytes", input_limit.origin},
      {"output mode", "json", "default (the hook's --output flag)"},
      {"fail-open", settings.fail_open.value ? "on" : "off", settings.fail_open.origin},
      {"config files", explicit_paths ? "explicit" : "searched", settings.config_paths.origin},
  };
  if (!depth_warning.empty()) add(e, Finding::Severity::warning, "bad-variable", depth_warning, "use liveness, handshake or auto");
  for (const auto& w : settings.warnings) {
    if (w.rfind("ignoring", 0) == 0) add(e, Finding::Severity::warning, "bad-variable", w, "use a whole number of milliseconds");
  }
  if (settings.fail_open.value) {
    add(e, Finding::Severity::error, "fail-open",
        "fail-open is on (" + settings.fail_open.origin.substr(settings.fail_open.origin.find(' ') + 1) +
            "): calls to servers known to be down are allowed",
        "unset it unless you are debugging");
  }

  // Hooks.
  e.hooks = find_hook_registration(env, inputs.project_dir);
  if (!e.hooks.pre_tool_use || !e.hooks.post_tool_use_failure) {
    std::string missing = !e.hooks.pre_tool_use && !e.hooks.post_tool_use_failure ? "PreToolUse and PostToolUseFailure"
                          : !e.hooks.pre_tool_use                                  ? "PreToolUse"
                                                                                   : "PostToolUseFailure";
    add(e, Finding::Severity::error, "hook-not-registered",
        "Claude Code's settings do not run `mcphealth hook` on " + missing + " for MCP tools",
        "add the fragment `mcphealth explain-config --hook-snippet` prints to ~/.claude/settings.json");
  }
  for (const auto& where : e.hooks.js_hook) {
    add(e, Finding::Severity::error, "js-hook",
        "the JS hook still runs on the same cache file, without a lock (" + where + ")",
        "remove it (or disable the plugin): two writers without a lock lose each other's updates");
  }
  return e;
}

} // namespace mcphealth::ops
