// Qwen Code (@qwen-code/qwen-code 0.24.4, seen in the real program; ../shared/agents/NEW-AGENTS.md): Claude Code's
// hooks in its settings files (`hooks.<Event>` groups with a `mcp__.*` matcher; PreToolUse, PostToolUseFailure,
// PostToolUse and SessionStart fire for MCP tools; a `hookSpecificOutput` deny or exit 2 blocks, exit 1 lets the
// call run), and Claude Code's payload shape without an `mcp_server` field. Servers: `mcpServers` in
// ~/.qwen/settings.json and a project's .qwen/settings.json, the project's used with no trust step. Not seen in the
// real program: which wins a name both define (taken here as the project's, by scope, as Gemini CLI, which Qwen
// Code forks, does), its login words, and whether its settings files take comments (taken as strict JSON).
#include <mcphealth/agent/agent.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>

namespace mcphealth::agent {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path qwen_user_dir(const util::Environment& env) { return util::home_dir(env) / ".qwen"; }

using QwenSays = hook::FailureReading::Says;

/// True when `name` ends as a name Qwen Code renamed does: `_` and seven base-36 digits.
bool ends_in_hash(std::string_view name) {
  if (name.size() < 8 || name[name.size() - 8] != '_') return false;
  return std::all_of(name.end() - 7, name.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); });
}

/// The call `tool_name` is when it is a tool of the server kept under `key`, which Qwen Code renames: its tools
/// are `mcp__<key, characters replaced>__<tool>_<hash>`, and only the hash of the name as configured tells
/// `my.svc`'s `echo` from `my_svc`'s (config::qwen_tool_name). A tool whose own name Qwen Code changed, or cut at
/// 63 units, cannot be told apart this way, and is read as the plain split of its name reads.
std::optional<hook::CallTarget> respell(std::string_view tool_name, std::string_view key) {
  constexpr std::size_t k_hash = 8; // `_` and seven base-36 digits
  if (!config::qwen_renames(key)) return std::nullopt; // its tools spell it: the plain split finds it
  const std::string prefix = "mcp__" + config::qwen_replaced(key) + "__";
  if (tool_name.size() <= prefix.size() + k_hash || !tool_name.starts_with(prefix)) return std::nullopt;
  const std::string_view tool = tool_name.substr(prefix.size(), tool_name.size() - prefix.size() - k_hash);
  if (config::qwen_tool_name(key, tool) != tool_name) return std::nullopt;
  return hook::CallTarget{std::string(key), std::string(tool), std::nullopt, true};
}

/// How Qwen Code words its servers' outages in PostToolUseFailure's `error` (0.24.4). A JSON-RPC error arrives as
/// its message alone, which the generic signs read.
constexpr hook::ClientWording k_qwen_wordings[] = {
    {"Qwen Code 0.24.4", "MCP tool execution may have completed before the connection failed*", QwenSays::transport,
     "a stdio server that died during the call (no \"Connection closed\" is said)"},
    {"Qwen Code 0.24.4", "Request timed out", QwenSays::timeout,
     "a call slower than the server's `timeout` in its settings (the MCP SDK's words, without their code)"},
};

class QwenDialect final : public Dialect {
public:
  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call = read_claude_shaped_call(input, event_flag);
    read_claude_failure(input, call);
    if (ends_in_hash(call.tool_name)) call.respell = respell; // else no name it renamed can be meant
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override { return hook_specific_answer(outcome); }

  std::vector<std::string_view> event_names() const override {
    return {"PreToolUse", "PostToolUseFailure", "PostToolUse", "SessionStart"};
  }

  std::span<const hook::ClientWording> failure_wordings() const override { return k_qwen_wordings; }
};

class QwenCatalogue final : public Catalogue {
public:
  /// A tool call's hook: Qwen Code runs in this folder now.
  void read_start(config::DiscoveryInputs& inputs, const util::Environment&) const override { inputs.agent_runs_here = true; }

protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    return read_server_files(
        inputs, env, reader,
        {{config::absolute_normal(inputs.project_dir) / ".qwen" / "settings.json", config::Scope::project},
         {qwen_user_dir(env) / "settings.json", config::Scope::user}},
        [&](config::Candidate& c, const config::FileReport&) {
          // A name Qwen Code renames is kept as written: its tools' names are not those of the server
          // whose name it was renamed to (`my.svc` is not `my_svc`), and the hook tells them apart by
          // Qwen Code's hash.
          if (config::qwen_renames(c.definition.name)) c.tool_server = c.definition.name;
          if (c.scope == config::Scope::project && !inputs.agent_runs_here) {
            // A cloned repository's command: Qwen Code starts it only in a session there, which only
            // its hook sees.
            c.standing = config::Standing::not_approved;
            c.reason = "a project's .qwen/settings.json: Qwen Code starts it in a session there (no trust "
                       "step), so mcphealth starts it only from that session's hook";
          }
        });
  }
};

class QwenRegistration final : public HookFileRegistration {
public:
  // A missing command lets the call run (seen), so a bare name that is not on PATH switches the gate off unseen:
  // missing_command_blocks stays false.
  QwenRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return qwen_user_dir(env) / "settings.json"; },
              .project_file = fs::path(".qwen") / "settings.json",
              .events = claude_code_events("mcp__.*"),
              .required_events = {"PreToolUse", "PostToolUseFailure"},
              .sample_tool_name = "mcp__server__tool"};
          return spec;
        }) {}
};

} // namespace

const Agent& qwen() {
  return make_agent<QwenCatalogue, QwenDialect, QwenRegistration>({.id = "qwen",
                                                                   .name = "Qwen Code",
                                                                   .authenticate = "run /mcp auth in Qwen Code",
                                                                   .authenticate_short = "run /mcp auth",
                                                                   .program = "qwen",
                                                                   .tested_oldest = "0.24.4",
                                                                   .tested_newest = "0.24.4"});
}

} // namespace mcphealth::agent
