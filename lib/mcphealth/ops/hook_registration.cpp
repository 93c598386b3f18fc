// Whether an agent's hook files register mcphealth, for which events, whether its matchers reach MCP tools, and
// whether the agent trusts the hook (ops/explain.hpp: find_hook_registration, ask_hook_trust, hook_snippet): what
// explain-config and doctor say of the gate.
#include <mcphealth/ops/explain.hpp>

#include <mcphealth/agent/hook_file.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <regex>

namespace mcphealth::ops {

namespace json = boost::json;
namespace fs = std::filesystem;

std::string hook_snippet(const std::string& binary, const agent::Agent& agent) {
  const json::array command{agent.registration.hook_entry(agent::hook_command(binary, agent))};
  json::object hooks;
  for (const agent::EventSpec& event : agent.registration.events()) {
    json::object group;
    if (!event.matcher.empty()) group["matcher"] = event.matcher; // a session event has no tool to match
    group["hooks"] = command;
    hooks[event.name] = json::array{std::move(group)};
  }
  return util::pretty_json(json::object{{"hooks", std::move(hooks)}});
}

namespace {

/// True when a hook matcher selects MCP tools: empty, `*`, or a pattern matching `sample` (an MCP tool's name as
/// the agent spells it: `mcp__server__tool`).
bool matcher_covers_mcp(const std::string& matcher, const std::string& sample) {
  if (matcher.empty() || matcher == "*") return true;
  try {
    return std::regex_match(sample, std::regex(matcher)) || std::regex_search(sample, std::regex("^(" + matcher + ")$"));
  } catch (const std::regex_error&) {
    return matcher.find(sample.substr(0, 4)) != std::string::npos;
  }
}

/// Whether mcphealth's hook command `command`, registered for MCP tools, runs as `agent`'s; records it. `event`
/// is covered when it does.
void take_command(const std::string& command, bool& covered, HookRegistration& reg, const agent::Agent& agent,
                  const json::object* entry = nullptr) {
  const std::optional<agent::HookCommand> ours = agent::read_hook_command(command);
  if (!ours) return;
  std::string problem = ours->problem;
  const std::string_view runs_as = ours->agent ? std::string_view(*ours->agent) : agent::default_agent().id;
  if (problem.empty() && runs_as != agent.id) {
    problem = "it reads payloads as " + std::string(runs_as) + "'s, not " + std::string(agent.name) + "'s (--agent " +
              std::string(agent.id) + " is missing)";
  }
  // Entries the agent runs but does not wait for, or runs once a session (checked in Claude Code 2.1.332: an async
  // deny does not stop the call).
  if (problem.empty() && entry != nullptr && util::get_bool(*entry, "async").value_or(false)) {
    problem = "it is marked \"async\": true, so " + std::string(agent.name) +
              " does not wait for it and a block does not stop the call";
  }
  if (problem.empty() && entry != nullptr && util::get_bool(*entry, "once").value_or(false)) {
    problem = "it is marked \"once\": true, so it runs once a session, not before every call";
  }
  if (!problem.empty()) {
    if (std::none_of(reg.problems.begin(), reg.problems.end(), [&](const auto& p) { return p.first == command; })) {
      reg.problems.emplace_back(command, problem);
    }
    return; // registered, but it would not gate as meant
  }
  covered = true;
  if (std::find(reg.commands.begin(), reg.commands.end(), command) == reg.commands.end())
    reg.commands.push_back(command);
  if (!reg.files.empty() && std::find(reg.registered_in.begin(), reg.registered_in.end(), reg.files.back()) ==
                                reg.registered_in.end()) {
    reg.registered_in.push_back(reg.files.back()); // scan_settings names the file it reads last
  }
}

void scan_settings(const fs::path& file, HookRegistration& reg, const agent::Agent& agent) {
  const auto read = util::read_file(file);
  if (!read) return;
  reg.files.push_back(file.string());
  if (agent::writes_plugin(agent.registration)) {
    // One plugin of mcphealth's own hands over every event: its first line names the command it runs.
    if (const std::optional<std::string> command = agent::plugin_command(*read)) {
      for (auto& required : reg.required) take_command(*command, required.second, reg, agent);
    }
    return;
  }
  util::JsonParse parsed = util::parse_json(*read, agent.registration.comments());
  if (!parsed) {
    reg.unparsed.emplace_back(file.string(), parsed.error().text());
    return;
  }
  if (!parsed->is_object()) {
    reg.unparsed.emplace_back(file.string(), "it is not a JSON object");
    return;
  }
  const json::object& root = parsed->get_object();
  if (util::get_bool(root, "disableAllHooks").value_or(false)) reg.disabled_in.push_back(file.string());
  if (const json::object* plugins = util::get_object(root, "enabledPlugins")) {
    for (const auto& kv : *plugins) {
      if (std::string(kv.key()).find("everything-claude-code") != std::string::npos && kv.value() == true) {
        reg.js_hook.push_back(file.string() + ": enabledPlugins " + std::string(kv.key()));
      }
    }
  }
  const json::object* hooks = util::get_object(root, "hooks");
  if (hooks == nullptr) return;
  const std::string sample = agent.registration.sample_tool_name();
  for (auto& required : reg.required) {
    // Named, not a structured binding: the lambda below captures it, which clang before 16 refuses for a binding.
    const std::string& event = required.first;
    bool* covered = &required.second;
    auto it = hooks->find(event);
    if (it == hooks->end() || !it->value().is_array()) continue;
    agent::for_each_hook(it->value().get_array(), agent.registration.layout(),
                         [&](const json::object& group, const json::object& entry) {
                           const std::string matcher = util::get_string(group, "matcher").value_or("");
                           const std::string command = agent::command_of(entry);
                           if (command.find("mcp-health-check") != std::string::npos) {
                             reg.js_hook.push_back(file.string() + ": " + event + " runs " + command);
                           }
                           if (!matcher_covers_mcp(matcher, sample)) return;
                           take_command(command, *covered, reg, agent, &entry);
                         });
  }
}

} // namespace

void ask_hook_trust(HookRegistration& reg, const util::Environment& env, const fs::path& project_dir,
                    const agent::Agent& agent) {
  const agent::HookTrust* trust = agent.registration.trust();
  if (trust == nullptr) return;
  util::SystemClock clock;
  const agent::TrustListing t = trust->list(env, project_dir, std::nullopt, agent::TrustWritten::no, clock);
  std::string untrusted;
  for (const agent::ListedHook& h : t.hooks) {
    if (h.ours && !h.trusted()) untrusted += (untrusted.empty() ? "" : ", ") + h.key + " (" + h.trust + ")";
  }
  if (!t.error.empty()) {
    reg.trust = "unknown";
    reg.trust_detail = t.error;
  } else if (!untrusted.empty()) {
    reg.trust = "not trusted";
    reg.trust_detail = untrusted;
  } else {
    reg.trust = "trusted";
  }
}

HookRegistration find_hook_registration(const util::Environment& env, const fs::path& project_dir, const agent::Agent& agent) {
  HookRegistration reg;
  reg.agent = std::string(agent.id);
  for (const std::string& event : agent.registration.required_events()) reg.required.emplace_back(event, false);
  // The user's own files are those the agent reads whatever the folder; the rest are the repository's.
  const std::vector<fs::path> own = agent.registration.hook_files(env, fs::path());
  std::vector<std::string> user_commands;
  for (const auto& f : agent.registration.hook_files(env, project_dir)) {
    scan_settings(f, reg, agent);
    HookRegistration alone; // what this file registers by itself
    for (const std::string& event : agent.registration.required_events()) alone.required.emplace_back(event, false);
    scan_settings(f, alone, agent);
    const bool users = std::find(own.begin(), own.end(), f) != own.end();
    for (const std::string& command : alone.commands) {
      if (users) user_commands.push_back(command);
      else reg.project_commands.emplace_back(command, f.string());
    }
  }
  std::erase_if(reg.project_commands, [&](const auto& pc) {
    return std::find(user_commands.begin(), user_commands.end(), pc.first) != user_commands.end();
  });
  if (!reg.required.empty()) reg.pre_tool_use = reg.required[0].second;
  if (reg.required.size() > 1) reg.post_tool_use_failure = reg.required[1].second;
  return reg;
}

} // namespace mcphealth::ops
