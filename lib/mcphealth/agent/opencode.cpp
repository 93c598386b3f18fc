// opencode (opencode-ai 1.18.33, seen in the real program; ../shared/agents/NEW-AGENTS.md). Its servers are the
// `mcp` entries of ~/.config/opencode/{config.json,opencode.json,opencode.jsonc} and of a project's opencode.json
// and .opencode/opencode.json(c), a later file's entry merged key by key over an earlier one's; a project's are
// used with no trust step, so mcphealth starts them only from a session's hook there (as for Qwen Code). Tool names
// are `<server>_<tool>`, read against the configured names. opencode has no hook commands: its plugins are JS
// modules it runs in-process. `install` writes one plugin file of mcphealth's own, which hands every MCP call, every
// failed one (opencode tells plugins of a failure only through its events) and each session's start to
// `mcphealth hook --agent opencode` in Claude Code's payload shape, and throws our reason when we block: the model
// reads exactly that text. Not seen in the real program: opencode.json files in folders above the project, the
// OPENCODE_CONFIG* variables (their servers are not read: mcphealth checks fewer servers, never more), `{file:...}`
// in a definition.
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

using OpencodeSays = hook::FailureReading::Says;

/// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
fs::path opencode_user_dir(const util::Environment& env) {
  return user_folder(env, "XDG_CONFIG_HOME", "opencode", fs::path(".config") / "opencode");
}

// opencode's words for its servers' outages (1.18.33, its event's `state.error`): the MCP SDK's own, as Claude Code
// 2.1.197 gave them.
constexpr hook::ClientWording k_opencode_wordings[] = {
    {"opencode 1.18.33", "MCP error -32000: Connection closed", OpencodeSays::transport,
     "a stdio server that died during the call"},
    {"opencode 1.18.33", "*Unable to connect. Is the computer able to access the url?", OpencodeSays::transport,
     "an HTTP server refusing connections (its prefix, if any, not seen: for a remote definition only)", true},
    {"opencode 1.18.33", "Streamable HTTP error: Error POSTing to endpoint:*", OpencodeSays::http_unknown,
     "an HTTP server answering 503 (the status is not in the text; the body follows)", true},
    {"opencode 1.18.33", "MCP error -32001: Request timed out", OpencodeSays::timeout,
     "a call slower than the server's `timeout` in its definition"},
};

class OpencodeDialect final : public Dialect {
public:
  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call;
    auto field = [&](std::string_view key) { return hook::string_field(input, key); };
    name_event(call, event_flag, field("hook_event_name"), "hook_event_name", "PreToolUse");
    call.event = hook::event_from_name(call.event_name);
    const std::optional<std::string> tool_name = field("tool_name");
    call.names_tool = tool_name.has_value();
    call.tool_name = tool_name.value_or("");
    std::vector<hook::CallTarget> splits = hook::splits_at(call.tool_name, '_');
    if (!splits.empty()) {
      call.target = splits.front();
      if (splits.size() > 1) call.readings = std::move(splits);
    }
    if (input.incomplete) return call;
    call.folder = util::get_string(input.payload, "cwd").value_or("");
    call.failure_text = util::get_string(input.payload, "error").value_or("");
    call.tool_input = util::get_object(input.payload, "tool_input");
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override { return hook_specific_answer(outcome); }

  std::vector<std::string_view> event_names() const override {
    return {"PreToolUse", "PostToolUseFailure", "PostToolUse", "SessionStart"};
  }

  std::span<const hook::ClientWording> failure_wordings() const override { return k_opencode_wordings; }
};

/// One config file's `mcp` entries.
struct OpencodeLayer {
  config::FileReport report;
  bool project = false;
};

/// Its servers are under `mcp`.
constexpr std::string_view k_mcp_key[] = {"mcp"};

OpencodeLayer read_opencode_layer(const fs::path& file, std::string_view label, bool project, util::FileReader& reader) {
  // opencode.jsonc takes comments, and so does opencode.json.
  return {config::read_source({file, std::string(label)}, reader, config::FileFormat::json_with_comments, k_mcp_key),
          project};
}

/// An opencode entry as the definition mcphealth probes: `local` (`command` an argv list, `environment`) becomes
/// `command` + `args` + `env`; `remote` becomes an HTTP server with its `url` and `headers`. Nothing for another
/// type.
std::optional<json::object> as_definition(const json::object& entry) {
  const std::string type = util::get_string(entry, "type").value_or("");
  json::object def;
  if (type == "local") {
    const json::value* command = entry.if_contains("command");
    if (command && command->is_array() && !command->get_array().empty() && command->get_array()[0].is_string()) {
      const json::array& argv = command->get_array();
      def["command"] = argv[0];
      def["args"] = json::array(argv.begin() + 1, argv.end());
    } else if (command && command->is_string()) {
      def["command"] = *command;
    } else {
      return std::nullopt;
    }
    if (const json::object* environment = util::get_object(entry, "environment")) def["env"] = *environment;
  } else if (type == "remote") {
    const json::value* url = entry.if_contains("url");
    if (url == nullptr || !url->is_string()) return std::nullopt;
    def["type"] = "http";
    def["url"] = *url;
    if (const json::object* headers = util::get_object(entry, "headers")) def["headers"] = *headers;
  } else {
    return std::nullopt;
  }
  return def;
}

class OpencodeCatalogue final : public Catalogue {
public:
  /// A tool call's hook: opencode runs in this folder now.
  void read_start(config::DiscoveryInputs& inputs, const util::Environment&) const override { inputs.agent_runs_here = true; }

protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    config::Resolution res{.project_dir = inputs.project_dir};
    const fs::path dir = config::absolute_normal(inputs.project_dir);
    const fs::path user = opencode_user_dir(env);
    // In the order opencode loads them: a later file's entry is merged over an earlier one's.
    std::vector<OpencodeLayer> layers;
    layers.push_back(read_opencode_layer(user / "config.json", "user", false, reader));
    layers.push_back(read_opencode_layer(user / "opencode.json", "user", false, reader));
    layers.push_back(read_opencode_layer(user / "opencode.jsonc", "user", false, reader));
    const auto no_project = env.get("OPENCODE_DISABLE_PROJECT_CONFIG");
    if (!no_project || no_project->empty() || *no_project == "0" || *no_project == "false") {
      layers.push_back(read_opencode_layer(dir / "opencode.json", "project", true, reader));
      layers.push_back(read_opencode_layer(dir / "opencode.jsonc", "project", true, reader));
      layers.push_back(read_opencode_layer(dir / ".opencode" / "opencode.json", "project", true, reader));
      layers.push_back(read_opencode_layer(dir / ".opencode" / "opencode.jsonc", "project", true, reader));
    }
    struct Merged {
      json::object entry;
      fs::path source;
      bool project = false;
    };
    std::vector<std::pair<std::string, Merged>> merged;
    for (const OpencodeLayer& layer : layers) {
      res.files.push_back(layer.report);
      for (const config::ServerDefinition& def : layer.report.servers) {
        const std::string& name = def.name;
        auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.first == name; });
        if (it == merged.end()) it = merged.insert(merged.end(), {name, {}});
        for (const auto& field : def.raw) it->second.entry[field.key()] = field.value();
        it->second.source = layer.report.source.file;
        // Any key from a project's file makes it the repository's definition.
        it->second.project = it->second.project || layer.project;
      }
    }
    for (const auto& [name, m] : merged) {
      config::Candidate c;
      c.definition.name = name;
      c.definition.source = m.source;
      c.definition.scope = m.project ? "project" : "user";
      c.tool_server = config::tool_server_name(name);
      c.scope = m.project ? config::Scope::project : config::Scope::user;
      if (m.project) c.project = dir.string();
      const std::optional<json::object> def = as_definition(m.entry);
      c.definition.raw = def.value_or(m.entry);
      c.definition.expansion = config::VarExpansion::env_colon;
      if (!def) {
        // opencode checks every entry against its schema and refuses the whole file for one that fails
        // ("Configuration is invalid", seen with 1.18.33): no server of the folder starts, not only this one.
        c.standing = config::Standing::not_read;
        c.reason = util::get_string(m.entry, "type") ? "it is not a local entry with a command list or a remote one with a url"
                                                     : "it has no \"type\"";
        c.reason += ", so opencode refuses " + m.source.string() + " whole (\"Configuration is invalid\") and starts "
                    "nothing it defines";
        c.fix = "give it \"type\": \"local\" with a \"command\" list, or \"type\": \"remote\" with a \"url\"";
      } else if (util::get_bool(m.entry, "enabled") == std::optional<bool>(false)) {
        c.standing = config::Standing::disabled;
        c.reason = "\"enabled\": false in " + m.source.string();
      } else if (m.project && !inputs.agent_runs_here) {
        // A cloned repository's command: opencode starts it only in a session there, which only its hook sees.
        c.standing = config::Standing::not_approved;
        c.reason = "a project's opencode.json: opencode starts it in a session there (no trust step), so mcphealth "
                   "starts it only from that session's hook";
      }
      res.candidates.push_back(std::move(c));
    }
    config::pick_winners(res, env, reader);
    return res;
  }
};

/// The plugin `install` writes. Its first line names the hook command it runs, which explain-config reads.
constexpr std::string_view k_plugin_template = R"JS(// mcphealth-hook: @COMMAND@
// mcphealth's gate for opencode, written by `mcphealth install --agent opencode` (`mcphealth uninstall --agent
// opencode` removes it; an install writes it anew). It hands each MCP tool call, each failed one and each
// session's start to mcphealth's hook, and throws the reason of a call mcphealth blocks: the model reads it.
import { spawn } from "node:child_process";

const HOOK = @ARGV@;

// Runs the hook with one payload on stdin; resolves to its JSON answer, or null (the call then goes ahead).
// Asynchronous: a synchronous spawn would stop opencode's event loop while the hook runs.
function ask(payload) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(HOOK[0], HOOK.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve(null);
    }
    child.on("error", () => resolve(null));
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("close", () => {
      try {
        resolve(out.trim() ? JSON.parse(out) : null);
      } catch {
        resolve(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const McphealthGate = async ({ client, directory }) => {
  let prefixes = null; // "<server>_" for each MCP server opencode has, as its tool names spell it
  const isMcp = async (tool) => {
    if (prefixes === null) {
      try {
        const status = await client.mcp.status();
        const servers = Object.keys(status?.data ?? status ?? {});
        prefixes = servers.map((name) => name.replace(/[^a-zA-Z0-9_-]/g, "_") + "_");
      } catch {
        return true; // the servers cannot be listed: let mcphealth tell
      }
    }
    return prefixes.some((p) => tool.startsWith(p));
  };
  const blocked = new Set(); // calls we blocked: their error is our reason, not a failure
  const reported = new Set(); // failures already handed over
  let started = null; // the SessionStart answer, asked once: said to the model with each request
  const start = (sessionID) => (started ??= ask(payload("SessionStart", { session_id: sessionID })).then(
    (answer) => answer?.hookSpecificOutput?.additionalContext ?? null));

  const payload = (event, extra) => ({ hook_event_name: event, cwd: directory, ...extra });
  return {
    "tool.execute.before": async (input) => {
      if (!(await isMcp(input.tool))) return;
      const answer = await ask(payload("PreToolUse", { tool_name: input.tool, session_id: input.sessionID }));
      const out = answer?.hookSpecificOutput;
      if (out?.permissionDecision === "deny") {
        blocked.add(input.callID);
        throw new Error(out.permissionDecisionReason);
      }
    },
    "tool.execute.after": async (input) => {
      if (await isMcp(input.tool)) await ask(payload("PostToolUse", { tool_name: input.tool, session_id: input.sessionID }));
    },
    event: async ({ event }) => {
      if (event?.type === "session.created") {
        start(event.properties?.sessionID ?? event.properties?.info?.id); // early; opencode does not wait for it
        return;
      }
      const part = event?.type === "message.part.updated" ? event.properties?.part : null;
      if (part?.type !== "tool" || part.state?.status !== "error") return;
      if (blocked.has(part.callID) || reported.has(part.callID) || !(await isMcp(part.tool))) return;
      reported.add(part.callID);
      await ask(payload("PostToolUseFailure", { tool_name: part.tool, session_id: part.sessionID, error: String(part.state.error ?? "") }));
    },
    // Each request waits for the session start's answer (asked here if no session.created came first).
    "experimental.chat.system.transform": async (input, output) => {
      const context = await start(input?.sessionID);
      if (context) output.system.push(context);
    },
  };
};
)JS";

class OpencodeRegistration final : public HookFileRegistration {
public:
  // What the plugin hands over; it is one file, so the events come and go together.
  OpencodeRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return opencode_user_dir(env) / "plugins" / "mcphealth.js"; },
              .project_file = fs::path(".opencode") / "plugins" / "mcphealth.js",
              .events = {{"PreToolUse", ""}, {"PostToolUseFailure", ""}, {"PostToolUse", ""}, {"SessionStart", ""}},
              .required_events = {"PreToolUse", "PostToolUseFailure"},
              .sample_tool_name = "server_tool",
              .entry = {{"command", nullptr}}};
          return spec;
        }) {}
  std::optional<std::string> plugin_text(const std::vector<std::string>& argv, const std::string& command) const override {
    json::array list;
    for (const std::string& a : argv) list.emplace_back(a);
    // Each placeholder is filled where the template has it, in one pass: a path holding `@ARGV@` is text, not a
    // placeholder, and a line break in it cannot end the comment line and become code (install refuses such a
    // path before; this keeps the plugin one comment line whoever calls it).
    std::string line;
    for (char ch : command) line += ch == '\n' ? std::string("\\n") : ch == '\r' ? std::string("\\r") : std::string(1, ch);
    const std::string_view t = k_plugin_template;
    const std::size_t at_command = t.find("@COMMAND@");
    const std::size_t at_argv = t.find("@ARGV@");
    return std::string(t.substr(0, at_command)) + line + std::string(t.substr(at_command + 9, at_argv - at_command - 9)) +
           json::serialize(list) + std::string(t.substr(at_argv + 6));
  }
};

} // namespace

const Agent& opencode() {
  return make_agent<OpencodeCatalogue, OpencodeDialect, OpencodeRegistration>(
      {.id = "opencode",
       .name = "opencode",
       .authenticate = "run `opencode mcp auth` for it",
       .authenticate_short = "run opencode mcp auth",
       .program = "opencode",
       .tested_oldest = "1.18.33",
       .tested_newest = "1.18.33"});
}

} // namespace mcphealth::agent
