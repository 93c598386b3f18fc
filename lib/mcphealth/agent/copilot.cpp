// GitHub Copilot CLI (checked against @github/copilot 1.0.102): servers from ~/.copilot/mcp-config.json and, in a
// trusted folder, the workspace's .mcp.json or .github/mcp.json; hooks in ~/.copilot/settings.json. Two dialects:
// camelCase events (`preToolUse`: `toolName`, `toolArgs`, no event name in the payload) and PascalCase ones
// (`PreToolUse`: Claude Code's snake_case fields and its `hookSpecificOutput` answer). `install` writes the
// PascalCase ones; both are read. Tool names are `<server>-<tool>`, read against the configured names. Exit 1 and
// a missing command deny there, so the hook's own errors exit 0.
#include <mcphealth/agent/agent.hpp>

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

/// `$COPILOT_HOME`, else `~/.copilot`.
fs::path copilot_user_dir(const util::Environment& env) { return user_folder(env, "COPILOT_HOME", "", ".copilot"); }

/// The server part of Copilot CLI's tool names: every character outside `[A-Za-z0-9_-]` becomes `-` (`svc.v2` ->
/// `svc-v2-echo`, seen in 1.0.102), where Claude Code writes `_`.
std::string copilot_tool_server(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '-') c = '-';
  }
  return out;
}

/// Copilot CLI's own GitHub server, built in: its tools are `github-mcp-server-<tool>` and no definition of the
/// user's is theirs (a user server named `github` must not read them as its own).
constexpr std::string_view k_builtin_github = "github-mcp-server";

/// Every way a tool name `<server>-<tool>` splits, longest server first (a server's name may hold `-`).
std::vector<hook::CallTarget> copilot_tool_name_splits(std::string_view tool_name) {
  std::vector<hook::CallTarget> out;
  if (tool_name.size() > k_builtin_github.size() + 1 && tool_name.substr(0, k_builtin_github.size()) == k_builtin_github &&
      tool_name[k_builtin_github.size()] == '-') {
    out.push_back({std::string(k_builtin_github), std::string(tool_name.substr(k_builtin_github.size() + 1))});
    return out;
  }
  return hook::splits_at(tool_name, '-');
}

/// Its events in both spellings: PascalCase (Claude Code's shape) and camelCase.
constexpr EventName k_copilot_events[] = {
    {"PreToolUse", hook::Event::pre_tool_use},   {"PostToolUseFailure", hook::Event::post_tool_use_failure},
    {"PostToolUse", hook::Event::post_tool_use}, {"SessionStart", hook::Event::session_start},
    {"preToolUse", hook::Event::pre_tool_use},   {"postToolUseFailure", hook::Event::post_tool_use_failure},
    {"postToolUse", hook::Event::post_tool_use}, {"sessionStart", hook::Event::session_start}};

// Copilot CLI's words for its servers' outages, seen in the real program (tests/cli/test_real_copilot.sh).
constexpr hook::ClientWording k_copilot_wordings[] = {
    {"Copilot CLI 1.0.102", "MCP server '*': MCP request failed: MCP transport closed before the tool responded*",
     hook::FailureReading::Says::transport, "a stdio server that died during the call"},
    {"Copilot CLI 1.0.102", "MCP server '*': McpError: MCP error -32001: Request timed out",
     hook::FailureReading::Says::timeout, "a call slower than the server's `timeout` in mcp-config.json"},
};

class CopilotDialect final : public Dialect {
public:
  /// The camelCase payloads: no `hook_event_name` (every other agent's tool events name theirs), and Copilot's own
  /// `toolName` or `sessionId`. Its PascalCase ones are Claude Code's shape.
  bool recognizes(const json::object& payload) const override {
    return !payload.contains("hook_event_name") && (payload.contains("toolName") || payload.contains("sessionId"));
  }

  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call;
    const json::object& payload = input.payload;
    auto field = [&](std::string_view key) { return hook::string_field(input, key); };
    // PascalCase payloads name their event; camelCase ones do not, and are told by their fields.
    const std::optional<std::string> named = field("hook_event_name");
    const bool pascal = named.has_value();
    {
      const bool failed = input.incomplete ? input.raw.find("\"error\"") != std::string::npos : payload.contains("error");
      const bool session = input.incomplete ? input.raw.find("\"toolName\"") == std::string::npos
                                            : !payload.contains("toolName") && payload.contains("source");
      name_event(call, event_flag, named, "hook_event_name",
                 session ? "sessionStart" : failed ? "postToolUseFailure"
                 : (!input.incomplete && payload.contains("toolResult")) ? "postToolUse"
                                                                         : "preToolUse",
                 "the payload's fields");
    }
    call.event = event_in(k_copilot_events, call.event_name);
    const char* tool_key = pascal ? "tool_name" : "toolName";
    const std::optional<std::string> tool_name = field(tool_key);
    call.names_tool = tool_name.has_value();
    call.tool_name = tool_name.value_or("");
    std::vector<hook::CallTarget> splits = copilot_tool_name_splits(call.tool_name);
    if (!splits.empty()) {
      call.target = splits.back();
      if (splits.size() > 1) call.readings = std::move(splits);
    }
    if (input.incomplete) return call;
    call.folder = util::get_string(payload, "cwd").value_or("");
    call.failure_text = util::get_string(payload, "error").value_or("");
    call.tool_input = util::get_object(payload, pascal ? "tool_input" : "toolArgs");
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override {
    if (outcome.decision == hook::HookOutcome::Decision::block) {
      // Both dialects' deny: Copilot CLI 1.0.102 reads hookSpecificOutput after a PascalCase event, and the
      // top-level fields after a camelCase one; the model reads "Denied by preToolUse hook: <reason>".
      const std::string reason = util::valid_utf8(outcome.reason);
      json::object specific{{"hookEventName", "PreToolUse"}, {"permissionDecision", "deny"}, {"permissionDecisionReason", reason}};
      return {json::serialize(json::object{{"permissionDecision", "deny"},
                                           {"permissionDecisionReason", reason},
                                           {"hookSpecificOutput", std::move(specific)}}) +
                  "\n",
              0};
    }
    if (!outcome.additional_context) return {};
    // Session start's context is read at the top level (seen in 1.0.102); hookSpecificOutput is Claude Code's form.
    const std::string context = util::valid_utf8(*outcome.additional_context);
    json::object specific{{"hookEventName", util::valid_utf8(outcome.event_name)}, {"additionalContext", context}};
    return {json::serialize(json::object{{"additionalContext", context}, {"hookSpecificOutput", std::move(specific)}}) + "\n", 0};
  }

  std::vector<std::string_view> event_names() const override { return names_in(k_copilot_events); }

  std::span<const hook::ClientWording> failure_wordings() const override { return k_copilot_wordings; }
};

/// A JSON file Copilot CLI writes with `//` comment lines at its top (config.json).
std::optional<json::object> read_commented(util::FileReader& reader, const fs::path& file) {
  const auto text = reader.read(file);
  if (!text) return std::nullopt;
  std::string body;
  for (std::size_t start = 0; start < text->size();) {
    const std::size_t end = std::min(text->find('\n', start), text->size());
    const std::string_view line = std::string_view(*text).substr(start, end - start);
    if (util::trim(line).rfind("//", 0) != 0) body.append(line).append("\n");
    start = end + 1;
  }
  util::JsonParse parsed = util::parse_json(body);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  return std::move(parsed->get_object());
}

/// A Copilot definition in the form the probes read: `local` is stdio.
json::object copilot_as_probed(json::object raw) {
  if (util::get_string(raw, "type") == std::optional<std::string>("local")) raw.erase("type");
  return raw;
}

class CopilotCatalogue final : public Catalogue {
protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    config::Resolution res{.project_dir = inputs.project_dir};
    const fs::path dir = config::absolute_normal(inputs.project_dir);
    // Trust: COPILOT_ALLOW_ALL, or the folder (or one above it) in config.json's trustedFolders.
    std::string why = "not in " + (copilot_user_dir(env) / "config.json").string() + "'s trustedFolders";
    res.trusted = env.get("COPILOT_ALLOW_ALL") == std::optional<std::string>("true");
    if (res.trusted) why.clear();
    if (!res.trusted) {
      if (auto config = read_commented(reader, copilot_user_dir(env) / "config.json")) {
        if (const json::value* list = config->if_contains("trustedFolders"); list && list->is_array()) {
          for (const auto& v : list->get_array()) {
            if (!v.is_string()) continue;
            const fs::path base = config::absolute_normal(std::string(v.get_string()));
            const auto [end, _] = std::mismatch(base.begin(), base.end(), dir.begin(), dir.end());
            if (end == base.end()) res.trusted = true;
          }
        }
      }
    }
    std::vector<std::string> disabled;
    if (auto text = reader.read(copilot_user_dir(env) / "settings.json")) {
      if (util::JsonParse p = util::parse_json(*text); p && p->is_object()) {
        if (const json::value* list = p->get_object().if_contains("disabledMcpServers"); list && list->is_array()) {
          for (const auto& v : list->get_array()) {
            if (v.is_string()) disabled.emplace_back(v.get_string());
          }
        }
      }
    }
    // Workspace first (it replaces a user server whole), then the user's file.
    add_server_files(res,
                     {{dir / ".mcp.json", config::Scope::project},
                      {dir / ".github" / "mcp.json", config::Scope::project},
                      {copilot_user_dir(env) / "mcp-config.json", config::Scope::user}},
                     reader, [&](config::Candidate& c, const config::FileReport&) {
                       c.definition.raw = copilot_as_probed(c.definition.raw);
                       // Seen in 1.0.102: a relative `cwd` is taken from the session's folder (and `${VAR}` is
                       // expanded).
                       c.definition.cwd = util::get_string(c.definition.raw, "cwd").value_or("");
                       c.tool_server = copilot_tool_server(c.definition.name);
                       if (c.scope == config::Scope::project && !res.trusted) {
                         c.standing = config::Standing::not_approved;
                         c.reason = "Copilot CLI loads a workspace's servers only in a trusted folder (" + why + ")";
                       } else if (std::find(disabled.begin(), disabled.end(), c.definition.name) != disabled.end()) {
                         c.standing = config::Standing::disabled;
                         c.reason = "in disabledMcpServers of " + (copilot_user_dir(env) / "settings.json").string();
                       }
                     });
    config::pick_winners(res, env, reader); // the workspace's first: it replaces a user server whole
    res.variables.emplace_back("COPILOT_ALLOW_ALL");
    return res;
  }
};

class CopilotRegistration final : public HookFileRegistration {
public:
  // A repository's .github/hooks/ is the team's: not written by mcphealth. Tool names carry no MCP prefix: every
  // tool is matched, and the hook tells MCP calls by the configured names.
  CopilotRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return copilot_user_dir(env) / "settings.json"; },
              .events = claude_code_events(".*"),
              .required_events = {"PreToolUse", "PostToolUseFailure"},
              .sample_tool_name = "server-tool",
              .missing_command_blocks = true};
          return spec;
        }) {}
};

} // namespace

const Agent& copilot() {
  return make_agent<CopilotCatalogue, CopilotDialect, CopilotRegistration>(
      {.id = "copilot",
       .name = "Copilot CLI",
       .authenticate = "run /mcp auth in Copilot CLI",
       .authenticate_short = "run /mcp auth",
       .program = "copilot",
       .tested_oldest = "1.0.102",
       .tested_newest = "1.0.102"});
}

} // namespace mcphealth::agent
