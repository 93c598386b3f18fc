// Gemini CLI (checked against @google/gemini-cli 0.61.0): servers from its settings.json layers, started only in
// a trusted folder; hooks BeforeTool / AfterTool / SessionStart, whose payloads name the server outright
// (`mcp_context.server_name`); a block answered `{"decision":"deny","reason":...}` (Claude Code's
// `hookSpecificOutput` deny is ignored there). Any non-zero exit but 1 blocks, so the hook's own errors exit 0.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/agent/gemini_env.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cctype>

namespace mcphealth::agent {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// Gemini CLI's words for its servers' outages (inside its wrapper, which gemini_failure_of takes off), seen in the real
// program (tests/cli/test_real_gemini.sh).
constexpr hook::ClientWording k_gemini_wordings[] = {
    {"Gemini CLI 0.61.0", "MCP error -32000: Connection closed", hook::FailureReading::Says::transport,
     "a stdio server that died during the call"},
    {"Gemini CLI 0.61.0", "MCP error -32001: Request timed out", hook::FailureReading::Says::timeout,
     "a call slower than the server's `timeout` in its settings"},
};

/// `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`: the user's folder.
fs::path gemini_user_dir(const util::Environment& env) { return user_folder(env, "GEMINI_CLI_HOME", ".gemini", ".gemini"); }

/// The system settings file, which overrides every other layer: `$GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else
/// /etc/gemini-cli/settings.json.
fs::path system_settings(const util::Environment& env) {
  if (auto p = env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p && !p->empty()) return fs::path(*p);
  return "/etc/gemini-cli/settings.json";
}

/// The system defaults, under every other layer: `$GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, else system-defaults.json next
/// to the system settings.
fs::path system_defaults(const util::Environment& env) {
  if (auto p = env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH"); p && !p->empty()) return fs::path(*p);
  return system_settings(env).parent_path() / "system-defaults.json";
}

fs::path workspace_settings(const fs::path& project) { return project / ".gemini" / "settings.json"; }

/// The server and tool from a tool name `mcp_<server>_<tool>`: every split, longest server first (a server's name
/// may hold `_`).
std::vector<hook::CallTarget> gemini_tool_name_splits(std::string_view tool_name) {
  constexpr std::string_view prefix = "mcp_";
  std::vector<hook::CallTarget> out;
  if (tool_name.substr(0, prefix.size()) != prefix) return out;
  const std::string_view rest = tool_name.substr(prefix.size());
  for (std::size_t sep = rest.find('_', 1); sep != std::string_view::npos; sep = rest.find('_', sep + 1)) {
    if (sep + 1 >= rest.size()) break;
    out.push_back({std::string(rest.substr(0, sep)), std::string(rest.substr(sep + 1))});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

/// The server's own words inside Gemini CLI's wrapper, "MCP tool 'echo' reported tool error for function call:
/// {...} with response: [{"functionResponse":{..."response":{"error":{"message":"MCP error -32000: Connection
/// closed"}}}}]"; the whole text when it is not that shape.
std::string inner_error(const std::string& text) {
  constexpr std::string_view marker = " with response: ";
  const std::size_t at = text.rfind(marker);
  if (at == std::string::npos) return text;
  const util::JsonParse parsed = util::parse_json(std::string_view(text).substr(at + marker.size()));
  if (!parsed || !parsed->is_array()) return text;
  for (const json::value& item : parsed->get_array()) {
    if (!item.is_object()) continue;
    const json::object* call = util::get_object(item.get_object(), "functionResponse");
    const json::object* response = call ? util::get_object(*call, "response") : nullptr;
    const json::object* error = response ? util::get_object(*response, "error") : nullptr;
    if (error == nullptr) continue;
    if (auto message = util::get_string(*error, "message"); message && !message->empty()) return *message;
  }
  return text;
}

/// The failure a Gemini AfterTool payload carries (`tool_response.error`: `{message, type}` or a string), in the
/// server's own words when Gemini CLI wrapped them; nothing for a call that succeeded.
std::optional<std::string> gemini_failure_of(const json::object& payload) {
  const json::object* response = util::get_object(payload, "tool_response");
  if (response == nullptr) return std::nullopt;
  const json::value* error = response->if_contains("error");
  if (error == nullptr || error->is_null()) return std::nullopt;
  if (error->is_string()) return inner_error(std::string(error->get_string()));
  if (error->is_object()) {
    if (auto message = util::get_string(error->get_object(), "message")) return inner_error(*message);
  }
  return json::serialize(*error);
}

constexpr EventName k_gemini_events[] = {{"BeforeTool", hook::Event::pre_tool_use},
                                  {"AfterTool", hook::Event::post_tool_use},
                                  {"SessionStart", hook::Event::session_start}};

/// The event `name` is; an AfterTool that carries an error is the call's failure.
hook::Event meaning(std::string_view name, bool failed) {
  const hook::Event event = event_in(k_gemini_events, name);
  return event == hook::Event::post_tool_use && failed ? hook::Event::post_tool_use_failure : event;
}

class GeminiDialect final : public Dialect {
public:
  /// Its own tool events' names (its SessionStart is Claude Code's shape).
  bool recognizes(const json::object& payload) const override {
    return names_one_of(payload, "hook_event_name", {"BeforeTool", "AfterTool"});
  }

  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call;
    const json::object& payload = input.payload;
    const std::optional<std::string> from_payload = hook::string_field(input, "hook_event_name");
    name_event(call, event_flag, from_payload, "hook_event_name", "BeforeTool");
    if (input.incomplete) {
      // mcp_context comes last in Gemini's payload: a cut one has the tool's name, seldom the server's.
      const std::optional<std::string> tool_name = hook::find_raw_string_field(input.raw, "tool_name");
      call.event = meaning(call.event_name, input.raw.find("\"error\"") != std::string::npos);
      call.names_tool = tool_name.has_value();
      call.tool_name = tool_name.value_or("");
      if (auto server = hook::find_raw_string_field(input.raw, "server_name")) {
        call.target = hook::CallTarget{*server, call.tool_name};
      } else if (auto splits = gemini_tool_name_splits(call.tool_name); !splits.empty()) {
        call.target = splits.back();
      }
      return call;
    }
    const std::optional<std::string> failure = gemini_failure_of(payload);
    call.event = meaning(call.event_name, failure.has_value());
    call.tool_name = util::get_string(payload, "tool_name").value_or("");
    call.names_tool = payload.contains("tool_name");
    if (const json::object* mcp = util::get_object(payload, "mcp_context")) {
      const std::string server = util::get_string(*mcp, "server_name").value_or("");
      if (!server.empty()) call.target = hook::CallTarget{server, util::get_string(*mcp, "tool_name").value_or(call.tool_name)};
    }
    if (!call.target) {
      // No mcp_context: the tool's name alone, read every way it splits.
      std::vector<hook::CallTarget> splits = gemini_tool_name_splits(call.tool_name);
      if (!splits.empty()) {
        call.target = splits.back();
        if (splits.size() > 1) call.readings = std::move(splits);
      }
    }
    call.folder = util::get_string(payload, "cwd").value_or("");
    call.failure_text = failure.value_or("");
    call.tool_input = util::get_object(payload, "tool_input");
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override {
    if (outcome.decision == hook::HookOutcome::Decision::block) {
      return {json::serialize(json::object{{"decision", "deny"}, {"reason", util::valid_utf8(outcome.reason)}}) + "\n", 0};
    }
    if (!outcome.additional_context) return {};
    json::object specific{{"hookEventName", util::valid_utf8(outcome.event_name)},
                          {"additionalContext", util::valid_utf8(*outcome.additional_context)}};
    return {json::serialize(json::object{{"hookSpecificOutput", std::move(specific)}}) + "\n", 0};
  }

  std::vector<std::string_view> event_names() const override { return names_in(k_gemini_events); }

  std::span<const hook::ClientWording> failure_wordings() const override { return k_gemini_wordings; }
};

/// The parsed settings of one layer (an empty object when missing or unreadable; the report says which).
struct GeminiLayer {
  config::FileReport report;
  json::object root;
  config::Scope scope;
};

GeminiLayer read_gemini_layer(const fs::path& file, std::string_view label, config::Scope scope, util::FileReader& reader) {
  // Gemini CLI strips comments from its settings before it parses them.
  GeminiLayer layer{config::read_source({file, std::string(label)}, reader, config::FileFormat::json_with_comments), {}, scope};
  if (layer.report.status == config::FileReport::Status::ok || layer.report.status == config::FileReport::Status::no_servers) {
    if (auto text = reader.read(file)) {
      if (util::JsonParse parsed = util::parse_json(*text, util::JsonComments::allowed); parsed && parsed->is_object()) {
        layer.root = std::move(parsed->get_object());
      }
    }
  }
  return layer;
}

const json::value* setting(const json::object& root, std::string_view a, std::string_view b) {
  const json::object* outer = util::get_object(root, a);
  return outer ? outer->if_contains(b) : nullptr;
}

/// Where Gemini CLI keeps its folder trust rules.
fs::path trusted_folders_file(const util::Environment& env) {
  if (auto p = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p && !p->empty()) return *p;
  return gemini_user_dir(env) / "trustedFolders.json";
}

/// Whether Gemini CLI trusts `dir`, and why: the environment, `security.folderTrust.enabled`, then the longest
/// matching rule of trustedFolders.json (TRUST_FOLDER, TRUST_PARENT: the rule's parent, DO_NOT_TRUST). No rule:
/// not trusted (headless `gemini -p` refuses to run there).
std::pair<bool, std::string> trust_of(const fs::path& dir, const std::vector<const GeminiLayer*>& admin_and_user,
                                      const util::Environment& env, util::FileReader& reader) {
  const auto var = [&](const char* name) { return env.get(name).value_or(""); };
  if (var("GEMINI_RESTRICTED_MODE") == "true" || var("GEMINI_CLI_TRUST_WORKSPACE") == "false") {
    return {false, "GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE=false"};
  }
  if (var("GEMINI_CLI_TRUST_WORKSPACE") == "true") return {true, "GEMINI_CLI_TRUST_WORKSPACE=true"};
  bool trust_enabled = true; // the project's own file cannot turn it off
  for (const GeminiLayer* layer : admin_and_user) { // highest first: the first that says decides
    const json::value* folder_trust = setting(layer->root, "security", "folderTrust");
    if (folder_trust == nullptr || !folder_trust->is_object()) continue;
    if (auto enabled = util::get_bool(folder_trust->get_object(), "enabled")) {
      trust_enabled = *enabled;
      break;
    }
  }
  if (!trust_enabled) return {true, "security.folderTrust.enabled is false"};
  const fs::path file = trusted_folders_file(env);
  const auto text = reader.read(file);
  if (!text) return {false, "no rule for it in " + file.string()};
  util::JsonParse parsed = util::parse_json(*text);
  if (!parsed || !parsed->is_object()) return {false, file.string() + " does not parse"};
  const fs::path where = config::absolute_normal(dir);
  std::size_t longest = 0;
  std::optional<std::string> level;
  for (const auto& [rule, value] : parsed->get_object()) {
    if (!value.is_string()) continue;
    const std::string trust(value.get_string());
    fs::path base = config::absolute_normal(std::string(rule));
    if (trust == "TRUST_PARENT") base = base.parent_path();
    const auto [end, _] = std::mismatch(base.begin(), base.end(), where.begin(), where.end());
    if (end != base.end() || rule.size() < longest) continue;
    longest = rule.size();
    level = trust;
  }
  if (level == std::optional<std::string>("TRUST_FOLDER") || level == std::optional<std::string>("TRUST_PARENT")) {
    return {true, *level + " in " + file.string()};
  }
  if (level) return {false, *level + " in " + file.string()};
  return {false, "no rule for it in " + file.string()};
}

/// A Gemini definition in the form the probes read: `httpUrl` is Streamable HTTP, a bare `url` is SSE.
json::object gemini_as_probed(json::object raw) {
  if (auto http = util::get_string(raw, "httpUrl")) {
    raw["url"] = *http;
    raw["type"] = "http";
  } else if (raw.contains("url") && !raw.contains("type")) {
    raw["type"] = "sse";
  }
  return raw;
}

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// The names listed in `mcp.<key>`, lowered-cased as Gemini compares them; nothing when the list is not set.
std::optional<std::vector<std::string>> name_list(const json::object& merged_mcp, std::string_view key) {
  const json::value* list = merged_mcp.if_contains(key);
  if (list == nullptr || !list->is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& v : list->get_array()) {
    if (v.is_string()) out.push_back(lowered(util::trim(v.get_string())));
  }
  return out;
}

class GeminiCatalogue final : public Catalogue {
protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    config::Resolution res{.project_dir = inputs.project_dir};
    const bool at_home = config::absolute_normal(inputs.project_dir) == config::absolute_normal(util::home_dir(env));
    // Highest precedence first: system settings, workspace, user, system defaults.
    std::vector<GeminiLayer> layers;
    layers.push_back(read_gemini_layer(system_settings(env), "system", config::Scope::managed, reader));
    if (!at_home) layers.push_back(read_gemini_layer(workspace_settings(inputs.project_dir), "project", config::Scope::project, reader));
    layers.push_back(read_gemini_layer(gemini_user_dir(env) / "settings.json", "user", config::Scope::user, reader));
    layers.push_back(read_gemini_layer(system_defaults(env), "system-defaults", config::Scope::managed, reader));
    std::vector<const GeminiLayer*> not_project;
    for (const GeminiLayer& l : layers) {
      if (l.scope != config::Scope::project) not_project.push_back(&l);
    }
    const auto [trusted, why] = trust_of(inputs.project_dir, not_project, env, reader);
    res.trusted = trusted;
    // mcp.allowed / mcp.excluded: the highest layer that sets one decides.
    json::object mcp;
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
      if (it->scope == config::Scope::project && !trusted) continue;
      if (const json::object* m = util::get_object(it->root, "mcp")) {
        for (const auto& kv : *m) mcp[kv.key()] = kv.value();
      }
    }
    const auto allowed = name_list(mcp, "allowed");
    const auto excluded = name_list(mcp, "excluded");
    json::object enablement;
    if (auto text = reader.read(gemini_user_dir(env) / "mcp-server-enablement.json")) {
      if (util::JsonParse p = util::parse_json(*text); p && p->is_object()) enablement = std::move(p->get_object());
    }
    for (GeminiLayer& layer : layers) {
      res.files.push_back(layer.report);
      for (const config::ServerDefinition& def : layer.report.servers) {
        config::Candidate c;
        c.definition = def;
        c.definition.raw = gemini_as_probed(def.raw);
        start_as_gemini(c.definition, env);
        c.tool_server = config::tool_server_name(def.name);
        c.scope = layer.scope;
        if (layer.scope == config::Scope::project) c.project = config::absolute_normal(inputs.project_dir).string();
        const std::string id = lowered(util::trim(def.name));
        const json::object* state = util::get_object(enablement, id);
        if (!trusted) {
          c.standing = config::Standing::not_read;
          c.reason = "Gemini CLI starts no server in a folder it does not trust (" + why + ")";
          c.fix = "trust the folder: start `gemini` in it and accept the trust prompt, or add \"" +
                  config::absolute_normal(inputs.project_dir).string() + "\": \"TRUST_FOLDER\" to " +
                  trusted_folders_file(env).string();
        } else if (allowed && std::find(allowed->begin(), allowed->end(), id) == allowed->end()) {
          c.standing = config::Standing::denied;
          c.reason = "not in mcp.allowed";
        } else if (excluded && std::find(excluded->begin(), excluded->end(), id) != excluded->end()) {
          c.standing = config::Standing::denied;
          c.reason = "in mcp.excluded";
        } else if (state && util::get_bool(*state, "enabled") == false) {
          c.standing = config::Standing::disabled;
          c.reason = "disabled with `gemini mcp disable` (" + (gemini_user_dir(env) / "mcp-server-enablement.json").string() + ")";
        }
        res.candidates.push_back(std::move(c));
      }
    }
    // One winner per name, the highest layer's: a project server replaces a user one whole.
    config::pick_winners(res, env, reader);
    // What decides trust besides the files: its variables' values are part of the stamp.
    for (const char* name : {"GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE"}) res.variables.emplace_back(name);
    return res;
  }
};

class GeminiRegistration final : public HookFileRegistration {
public:
  // No personal file inside a project. The entry's timeout is in milliseconds: room for a probe that waits out a
  // silent server, and its reconnect.
  GeminiRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return gemini_user_dir(env) / "settings.json"; },
              .project_file = fs::path(".gemini") / "settings.json",
              .events = {{"BeforeTool", "mcp_.*"}, {"AfterTool", "mcp_.*"}, {"SessionStart", ""}},
              .required_events = {"BeforeTool", "AfterTool"},
              .sample_tool_name = "mcp_server_tool",
              .entry = {{"name", "mcphealth"}, {"type", "command"}, {"command", nullptr}, {"timeout", 90000}},
              .missing_command_blocks = true,
              .comments = util::JsonComments::allowed};
          return spec;
        }) {}
  /// The system's defaults under the user's, the system's settings over the project's.
  std::vector<fs::path> hook_files(const util::Environment& env, const fs::path& project) const override {
    return {system_defaults(env), gemini_user_dir(env) / "settings.json", workspace_settings(config::absolute_normal(project)),
            system_settings(env)};
  }
};

} // namespace

const Agent& gemini() {
  return make_agent<GeminiCatalogue, GeminiDialect, GeminiRegistration>({.id = "gemini",
                                                                         .name = "Gemini CLI",
                                                                         .authenticate = "run /mcp auth in Gemini CLI",
                                                                         .authenticate_short = "run /mcp auth",
                                                                         .program = "gemini",
                                                                         .tested_oldest = "0.61.0",
                                                                         .tested_newest = "0.61.0"});
}

} // namespace mcphealth::agent
