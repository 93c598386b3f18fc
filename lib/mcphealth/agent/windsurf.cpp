// Windsurf, from its documented formats only (no Windsurf is installable here: tested by contract, with payloads
// built from the docs): servers from ~/.codeium/windsurf/mcp_config.json (`serverUrl` for a remote one); hooks in
// ~/.codeium/windsurf/hooks.json as `{"hooks":{"pre_mcp_tool_use":[{"command":...}]}}`, whose payload names the
// server (`tool_info.mcp_server_name`). A pre-hook blocks with exit 2, the reason on stderr.
#include <mcphealth/agent/agent.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

namespace mcphealth::agent {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path user_dir(const util::Environment& env) { return util::home_dir(env) / ".codeium" / "windsurf"; }

constexpr EventName k_events[] = {{"pre_mcp_tool_use", hook::Event::pre_tool_use},
                                  {"post_mcp_tool_use", hook::Event::post_tool_use}};

class WindsurfDialect final : public Dialect {
public:
  /// Its payloads name their event `agent_action_name`; no other agent's has that field.
  bool recognizes(const json::object& payload) const override { return payload.contains("agent_action_name"); }

  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call;
    const json::object& payload = input.payload;
    auto field = [&](std::string_view key) { return hook::string_field(input, key); };
    const std::optional<std::string> named = field("agent_action_name");
    name_event(call, event_flag, named, "agent_action_name", "pre_mcp_tool_use");
    call.event = event_in(k_events, call.event_name);
    const json::object* info = input.incomplete ? nullptr : util::get_object(payload, "tool_info");
    auto info_field = [&](std::string_view key) {
      return input.incomplete ? hook::find_raw_string_field(input.raw, key)
                              : info ? util::get_string(*info, key) : std::nullopt;
    };
    const std::optional<std::string> server = info_field("mcp_server_name");
    const std::optional<std::string> tool = info_field("mcp_tool_name");
    call.names_tool = server.has_value() || tool.has_value();
    call.tool_name = tool.value_or("");
    if (server && !server->empty()) call.target = hook::CallTarget{*server, tool.value_or("unknown")};
    if (input.incomplete) return call;
    if (info) call.tool_input = util::get_object(*info, "mcp_tool_arguments");
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override {
    // Windsurf reads a block from the exit code alone, the reason from stderr.
    if (outcome.decision == hook::HookOutcome::Decision::block) return {"", 2, outcome.reason};
    return {};
  }

  std::vector<std::string_view> event_names() const override { return names_in(k_events); }
};

/// A Windsurf definition in the form the probes read: `serverUrl` is a remote server's URL.
json::object as_probed(json::object raw) {
  if (auto url = util::get_string(raw, "serverUrl"); url && !raw.contains("url")) raw["url"] = *url;
  return raw;
}

class WindsurfCatalogue final : public Catalogue {
public:
protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    config::Resolution res;
    res.project_dir = inputs.project_dir;
    add_server_files(res, {{user_dir(env) / "mcp_config.json", config::Scope::user}}, reader,
                     [](config::Candidate& c, const config::FileReport& report) {
                       c.definition.raw = as_probed(c.definition.raw);
                       if (util::get_bool(c.definition.raw, "disabled") == true) {
                         c.standing = config::Standing::disabled;
                         c.reason = "\"disabled\": true in " + report.source.file.string();
                       }
                     });
    config::pick_winners(res, env, reader);
    return res;
  }
};

class WindsurfRegistration final : public Registration {
public:
  std::vector<fs::path> hook_files(const util::Environment& env, const fs::path& project) const override {
    return {"/etc/windsurf/hooks.json", user_dir(env) / "hooks.json", project / ".windsurf" / "hooks.json"};
  }
  std::optional<fs::path> install_file(InstallScope scope, const util::Environment& env, const fs::path& project) const override {
    if (scope == InstallScope::user) return user_dir(env) / "hooks.json";
    if (scope == InstallScope::project) return project / ".windsurf" / "hooks.json";
    return std::nullopt;
  }
  std::vector<EventSpec> events() const override { return {{"pre_mcp_tool_use", ""}, {"post_mcp_tool_use", ""}}; }
  std::vector<std::string> required_events() const override { return {"pre_mcp_tool_use"}; }
  Layout layout() const override { return Layout::flat; }
  std::string sample_tool_name() const override { return "tool"; }
  json::object hook_entry(const std::string& command) const override { return {{"command", command}}; }
};

} // namespace

const Agent& windsurf() {
  static const WindsurfCatalogue catalogue;
  static const WindsurfDialect dialect;
  static const WindsurfRegistration registration;
  static const Agent agent{"windsurf", "Windsurf", catalogue, dialect, registration,
                           "re-authenticate it in Windsurf's MCP settings", "re-authenticate it in Windsurf's MCP settings", 0};
  return agent;
}

} // namespace mcphealth::agent
