// Claude Code: its payloads (snake_case, `mcp__<server>__<tool>`), its answer (`hookSpecificOutput`), its settings
// files, its words for outages, and its servers (agent/claude_code_servers.cpp holds those rules: scopes, approval,
// trust, managed files, plugins, `--mcp-config`).
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/agent/claude_code_args.hpp>
#include <mcphealth/agent/claude_code_servers.hpp>

#include <mcphealth/hook/classify.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>

namespace mcphealth::agent {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

using Says = hook::FailureReading::Says;

// Claude Code's words for its servers' outages, seen in the real client driven offline (tests/cli/test_real_claude.sh
// has a case for each row). The text carries no HTTP status for most of them: the hook asks the server.
constexpr hook::ClientWording k_wordings[] = {
    {"Claude Code 2.1.197", "MCP server \"*\" is not connected", Says::transport,
     "a stdio server that exited between two calls and could not be restarted"},
    {"Claude Code 2.1.197", "MCP error -32000: Connection closed", Says::transport,
     "a stdio server that died during the call"},
    {"Claude Code 2.1.197", "MCP server \"*\" tool \"*\" timed out after *", Says::timeout,
     "a call slower than MCP_TOOL_TIMEOUT (the same words in 2.1.332)"},
    // The HTTP wordings: each in the exact shape its version gives it, anchored at the start (a `*` only where the
    // body follows), and for a remote definition only. A `*` in front matched inside a stdio tool's own words (a
    // fetch it made failing so) and marked a healthy server down at once.
    {"Claude Code 2.1.197", "Unable to connect. Is the computer able to access the url?", Says::transport,
     "an HTTP server refusing connections (stopped)", true},
    {"Claude Code 2.1.197", "Streamable HTTP error: Error POSTing to endpoint:*", Says::http_unknown,
     "an HTTP server answering 403, 429 or 503 (the status is not in the text; the body follows)", true},
    {"Claude Code 2.1.197", "HTTP 401: Invalid OAuth error response*", Says::status,
     "an HTTP server answering 401 without an OAuth error body (the same words in 2.1.332)", true},
    // 2.1.332 drops the prefixes, and puts the error's code before Bun's words. Its `503 Service Unavailable` is a
    // generic sign (the server is asked).
    {"Claude Code 2.1.332", "ECONNREFUSED: Unable to connect. Is the computer able to access the url?", Says::transport,
     "an HTTP server refusing connections (stopped)", true},
    {"Claude Code 2.1.332", "Error POSTing to endpoint:*", Says::http_unknown,
     "an HTTP server answering 403, 429 or 503 (the status is not in the text; the body follows)", true},
    {"Claude Code 2.1.332", "Connection closed", Says::transport, "a stdio server that died during the call"},
    {"Claude Code 2.1.332", "Dynamic Client Registration rejected (HTTP 401)*", Says::status,
     "an HTTP server refusing the client's token", true},
};

class ClaudeDialect final : public Dialect {
public:
  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment& env) const override {
    hook::HookCall call;
    // --event, else the payload's hook_event_name, else CLAUDE_HOOK_EVENT_NAME, else PreToolUse.
    std::optional<std::string> from_payload = hook::string_field(input, "hook_event_name");
    const std::optional<std::string> from_env = env.get("CLAUDE_HOOK_EVENT_NAME");
    if (from_env && !from_env->empty()) name_event(call, event_flag, from_payload, "hook_event_name", *from_env, "CLAUDE_HOOK_EVENT_NAME");
    else name_event(call, event_flag, from_payload, "hook_event_name", "PreToolUse");
    call.event = hook::event_from_name(call.event_name);
    read_claude_shape(input, call);
    read_claude_failure(input, call);
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override { return hook_specific_answer(outcome); }

  std::vector<std::string_view> event_names() const override {
    return {"PreToolUse", "PostToolUseFailure", "PostToolUse", "SessionStart"};
  }

  std::span<const hook::ClientWording> failure_wordings() const override { return k_wordings; }
};

class ClaudeCatalogue final : public Catalogue {
public:
  std::vector<fs::path> known_folders(const config::DiscoveryInputs& base, const util::Environment& env) const override {
    return claude_code_projects(env, base.reader ? *base.reader : util::disk());
  }

  void read_start(config::DiscoveryInputs& inputs, const util::Environment& env) const override {
    inputs.mode = client_mode(env);
    // The servers given on its command line run too (and first): it says so only there. Its version on the way.
    ClientProcess client = client_process(env);
    inputs.client = std::move(client.args);
    inputs.client_version = claude_version(client.version, env);
  }

  void read_version(config::DiscoveryInputs& inputs, const util::Environment& env) const override {
    if (!inputs.client_version) inputs.client_version = claude_version(client_process(env).version, env);
  }

  // Checked in 2.1.197 and 2.1.332 on Linux: `claude mcp login` and a token refresh write `mcpOAuth` there (on
  // macOS it may be the keychain instead: then the file does not change, and nothing is gained or lost).
  std::vector<std::string> credential_files(const util::Environment& env) const override {
    return {(claude_paths(env).config_dir / ".credentials.json").string()};
  }

protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    return claude_code_servers(inputs, env, reader);
  }
};

// The same folders the catalogue reads servers and approvals from.
fs::path claude_config_dir(const util::Environment& env) { return claude_paths(env).config_dir; }
fs::path claude_managed_dir(const util::Environment& env) { return claude_paths(env).managed_dir; }

class ClaudeRegistration final : public HookFileRegistration {
public:
  ClaudeRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return claude_config_dir(env) / "settings.json"; },
              .project_file = fs::path(".claude") / "settings.json",
              .events = claude_code_events("mcp__.*"),
              .required_events = {"PreToolUse", "PostToolUseFailure"},
              .sample_tool_name = "mcp__server__tool"};
          return spec;
        }) {}
  /// The user's (and ~/.claude's, which is still looked at with CLAUDE_CONFIG_DIR set: a registration there is
  /// worth a word), the project's two, and the managed file.
  std::vector<fs::path> hook_files(const util::Environment& env, const fs::path& project) const override {
    const fs::path dir = config::absolute_normal(project);
    std::vector<fs::path> files = {claude_config_dir(env) / "settings.json",
                                   util::home_dir(env) / ".claude" / "settings.json", dir / ".claude" / "settings.json",
                                   dir / ".claude" / "settings.local.json", claude_managed_dir(env) / "managed-settings.json"};
    for (auto it = files.begin(); it != files.end(); ++it) {
      files.erase(std::remove(std::next(it), files.end(), *it), files.end());
    }
    return files;
  }
  std::optional<fs::path> install_file(InstallScope scope, const util::Environment& env,
                                       const fs::path& project) const override {
    if (scope == InstallScope::local) return config::absolute_normal(project) / ".claude" / "settings.local.json";
    return HookFileRegistration::install_file(scope, env, project);
  }
  bool has_status_line() const override { return true; }
};

} // namespace

std::vector<EventSpec> claude_code_events(const std::string& matcher) {
  // SessionStart has no tool to match.
  return {{"PreToolUse", matcher}, {"PostToolUseFailure", matcher}, {"PostToolUse", matcher}, {"SessionStart", ""}};
}

hook::HookCall read_claude_shaped_call(const hook::HookInput& input, const std::optional<std::string>& event_flag) {
  hook::HookCall call;
  const std::optional<std::string> named = hook::string_field(input, "hook_event_name");
  name_event(call, event_flag, named, "hook_event_name", "PreToolUse");
  call.event = hook::event_from_name(call.event_name);
  read_claude_shape(input, call);
  return call;
}

void read_claude_shape(const hook::HookInput& input, hook::HookCall& call) {
  if (input.incomplete) {
    const std::optional<std::string> tool_name = hook::find_raw_string_field(input.raw, "tool_name");
    call.names_tool = tool_name.has_value();
    call.tool_name = tool_name.value_or("");
    call.target = hook::find_target_in_raw(input.raw);
    return;
  }
  const json::object& payload = input.payload;
  call.tool_name = util::get_string(payload, "tool_name").value_or("");
  call.names_tool = payload.contains("tool_name");
  call.target = hook::find_target(payload);
  if (call.target && !hook::names_server_itself(payload)) {
    call.readings = hook::mcp_tool_name_splits(call.tool_name);
    if (call.readings.size() < 2) call.readings.clear();
  }
  call.folder = util::get_string(payload, "cwd").value_or("");
  call.tool_input = util::get_object(payload, "tool_input");
}

Answer hook_specific_answer(const hook::HookOutcome& outcome) {
  json::object specific;
  if (outcome.decision == hook::HookOutcome::Decision::block) {
    specific["hookEventName"] = "PreToolUse";
    specific["permissionDecision"] = "deny";
    // Names and errors come from outside: the answer stays JSON whatever bytes they hold.
    specific["permissionDecisionReason"] = util::valid_utf8(outcome.reason);
  } else if (outcome.additional_context) {
    specific["hookEventName"] = util::valid_utf8(outcome.event_name);
    specific["additionalContext"] = util::valid_utf8(*outcome.additional_context);
  } else {
    return {};
  }
  return {json::serialize(json::object{{"hookSpecificOutput", std::move(specific)}}) + "\n", 0};
}

const Agent& claude_code() {
  return make_agent<ClaudeCatalogue, ClaudeDialect, ClaudeRegistration>({.id = "claude-code",
                                                                         .name = "Claude Code",
                                                                         .authenticate = "run /mcp in Claude Code",
                                                                         .authenticate_short = "run /mcp",
                                                                         // NOTES.md: its tools are never listed
                                                                         .down_at_start = hook::messages::Client::AtStart::drops_for_the_session,
                                                                         .program = "claude",
                                                                         .tested_oldest = "2.1.197",
                                                                         .tested_newest = "2.1.332"});
}

} // namespace mcphealth::agent
