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

fs::path windsurf_user_dir(const util::Environment& env) { return util::home_dir(env) / ".codeium" / "windsurf"; }

constexpr EventName k_windsurf_events[] = {{"pre_mcp_tool_use", hook::Event::pre_tool_use},
                                  {"post_mcp_tool_use", hook::Event::post_tool_use}};

class WindsurfDialect final : public Dialect {
public:
  /// Its payloads name their event `agent_action_name`; no other agent's has that field.
  bool recognizes(const json::object& payload) const override { return payload.contains("agent_action_name"); }

  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call = call_of_event(input, event_flag, "agent_action_name", "pre_mcp_tool_use", k_windsurf_events);
    const json::object& payload = input.payload;
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

  std::vector<std::string_view> event_names() const override { return names_in(k_windsurf_events); }
};

/// A Windsurf definition in the form the probes read: `serverUrl` is a remote server's URL.
json::object windsurf_as_probed(json::object raw) {
  if (auto url = util::get_string(raw, "serverUrl"); url && !raw.contains("url")) raw["url"] = *url;
  return raw;
}

class WindsurfCatalogue final : public Catalogue {
protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    return read_server_files(inputs, env, reader, {{windsurf_user_dir(env) / "mcp_config.json", config::Scope::user}},
                             [](config::Candidate& c, const config::FileReport& report) {
                               c.definition.raw = windsurf_as_probed(c.definition.raw);
                               if (util::get_bool(c.definition.raw, "disabled") == true) {
                                 c.standing = config::Standing::disabled;
                                 c.reason = "\"disabled\": true in " + report.source.file.string();
                               }
                             });
  }
};

class WindsurfRegistration final : public HookFileRegistration {
public:
  WindsurfRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return windsurf_user_dir(env) / "hooks.json"; },
              .project_file = fs::path(".windsurf") / "hooks.json",
              .system_file = "/etc/windsurf/hooks.json",
              .events = {{"pre_mcp_tool_use", ""}, {"post_mcp_tool_use", ""}},
              .required_events = {"pre_mcp_tool_use"},
              .sample_tool_name = "tool",
              .entry = {{"command", nullptr}},
              .layout = Layout::flat};
          return spec;
        }) {}
};

} // namespace

const Agent& windsurf() {
  return make_agent<WindsurfCatalogue, WindsurfDialect, WindsurfRegistration>(
      {.id = "windsurf",
       .name = "Windsurf",
       .authenticate = "re-authenticate it in Windsurf's MCP settings",
       .authenticate_short = "re-authenticate it in Windsurf's MCP settings"});
}

} // namespace mcphealth::agent
