// Cursor, from its documented formats only (no Cursor is installable here: tested by contract, with payloads built
// from the docs): servers from ~/.cursor/mcp.json (a project's .cursor/mcp.json is not checked: whether Cursor
// enabled it cannot be told from its files); hooks in ~/.cursor/hooks.json or <dir>/.cursor/hooks.json as
// `{"version":1,"hooks":{"beforeMCPExecution":[{"command":...}]}}`. Its MCP events name the server by where it is
// (`url`, or `command`), not by name; a block is `{"permission":"deny","user_message","agent_message"}`.
#include <mcphealth/agent/agent.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

namespace mcphealth::agent {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path cursor_user_dir(const util::Environment& env) { return util::home_dir(env) / ".cursor"; }

constexpr EventName k_cursor_events[] = {{"beforeMCPExecution", hook::Event::pre_tool_use},
                                  {"afterMCPExecution", hook::Event::post_tool_use},
                                  {"postToolUseFailure", hook::Event::post_tool_use_failure},
                                  {"sessionStart", hook::Event::session_start}};

class CursorDialect final : public Dialect {
public:
  /// Its MCP events' names.
  bool recognizes(const json::object& payload) const override {
    return names_one_of(payload, "hook_event_name", {"beforeMCPExecution", "afterMCPExecution"});
  }

  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call = call_of_event(input, event_flag, "hook_event_name", "beforeMCPExecution", k_cursor_events);
    const json::object& payload = input.payload;
    auto field = [&](std::string_view key) { return hook::string_field(input, key); };
    const std::optional<std::string> tool = field("tool_name");
    call.names_tool = tool.has_value();
    call.tool_name = tool.value_or("");
    // The MCP events say where the server is; that is what tells an MCP call here.
    std::optional<std::string> where = field("url");
    if (!where || where->empty()) where = field("command");
    if (where && !where->empty()) {
      call.endpoint = *where;
      call.target = hook::CallTarget{"", call.tool_name.empty() ? "unknown" : call.tool_name};
    }
    if (input.incomplete) return call;
    if (const json::value* roots = payload.if_contains("workspace_roots"); roots && roots->is_array() && !roots->get_array().empty() &&
                                                                             roots->get_array().front().is_string()) {
      call.folder = std::string(roots->get_array().front().get_string());
    }
    call.failure_text = util::get_string(payload, "error").value_or("");
    call.tool_input = util::get_object(payload, "tool_input");
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override {
    if (outcome.decision == hook::HookOutcome::Decision::block) {
      const std::string reason = util::valid_utf8(outcome.reason);
      return {json::serialize(json::object{{"permission", "deny"}, {"user_message", reason}, {"agent_message", reason}}) + "\n", 0};
    }
    // An allow says nothing: an explicit one would skip the user's own permission prompt.
    if (!outcome.additional_context) return {};
    return {json::serialize(json::object{{"additional_context", util::valid_utf8(*outcome.additional_context)}}) + "\n", 0};
  }

  std::vector<std::string_view> event_names() const override { return names_in(k_cursor_events); }
};

class CursorCatalogue final : public Catalogue {
protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    return read_server_files(
        inputs, env, reader,
        {{config::absolute_normal(inputs.project_dir) / ".cursor" / "mcp.json", config::Scope::project}, {cursor_user_dir(env) / "mcp.json", config::Scope::user}},
        [](config::Candidate& c, const config::FileReport&) {
          if (c.scope != config::Scope::project) return;
          c.standing = config::Standing::not_approved;
          c.reason = "a project's .cursor/mcp.json: whether Cursor enabled it cannot be told from its files";
        });
  }
};

class CursorRegistration final : public HookFileRegistration {
public:
  CursorRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return cursor_user_dir(env) / "hooks.json"; },
              .project_file = fs::path(".cursor") / "hooks.json",
              .events = {{"beforeMCPExecution", ""},
                         {"afterMCPExecution", ""},
                         {"postToolUseFailure", ""},
                         {"sessionStart", ""}},
              .required_events = {"beforeMCPExecution"},
              .sample_tool_name = "tool",
              .entry = {{"command", nullptr}},
              .layout = Layout::flat,
              .file_keys = {{"version", 1}}};
          return spec;
        }) {}
};

} // namespace

const Agent& cursor() {
  return make_agent<CursorCatalogue, CursorDialect, CursorRegistration>(
      {.id = "cursor",
       .name = "Cursor",
       .authenticate = "re-authenticate it in Cursor's MCP settings",
       .authenticate_short = "re-authenticate it in Cursor's MCP settings"});
}

} // namespace mcphealth::agent
