// The table of agents: the one place that knows which agents exist. Adding one is a file `agent/<id>.cpp`
// defining its accessor, and a row here.
#include <mcphealth/agent/agent.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <set>

namespace mcphealth::agent {

const Agent& claude_code(); // agent/claude_code.cpp
const Agent& codex();       // agent/codex.cpp
const Agent& gemini();      // agent/gemini.cpp
const Agent& copilot();     // agent/copilot.cpp
const Agent& cursor();      // agent/cursor.cpp (by contract)
const Agent& qwen();        // agent/qwen.cpp
const Agent& opencode();    // agent/opencode.cpp
const Agent& windsurf();    // agent/windsurf.cpp (by contract)

config::Resolution Catalogue::resolve(const config::DiscoveryInputs& inputs, const util::Environment& env) const {
  util::RecordingReader reader(inputs.reader ? *inputs.reader : util::disk());
  config::Resolution res = read(inputs, env, reader);
  res.read_files = reader.paths();
  return res;
}

std::vector<config::FolderResolution> resolve_everywhere(const Agent& agent, const config::DiscoveryInputs& base,
                                                         const util::Environment& env) {
  std::vector<std::filesystem::path> dirs{base.project_dir};
  util::FileReader& reader = base.reader ? *base.reader : util::disk();
  if (base.explicit_paths.empty()) {
    for (auto& d : agent.catalogue.known_folders(base, env)) {
      // A folder that is gone runs no session, so nothing starts there (and a server probed in it would fail).
      if (!reader.stat(d)) continue;
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(std::move(d));
    }
  }
  std::vector<config::FolderResolution> out;
  for (const auto& dir : dirs) {
    config::DiscoveryInputs in = base;
    in.project_dir = dir;
    config::Resolution res = agent.catalogue.resolve(in, env);
    out.push_back({std::move(in), std::move(res)});
  }
  return out;
}

std::vector<AgentFolder> folders_in_use(const config::DiscoveryInputs& base, const util::Environment& env,
                                        const FolderScope& scope) {
  const std::vector<const Agent*>& who = scope.agents.empty() ? agents() : scope.agents;
  std::vector<AgentFolder> out;
  auto add = [&](const Agent& a, config::DiscoveryInputs in, bool here) {
    config::Resolution res = a.catalogue.resolve(in, env);
    out.push_back({std::move(in), std::move(res), &a, here});
  };
  if (scope.project) {
    for (const Agent* a : who) {
      config::DiscoveryInputs in = base;
      in.project_dir = config::absolute_normal(*scope.project);
      add(*a, std::move(in), true);
    }
    return out;
  }
  for (const Agent* a : who) {
    for (auto& f : resolve_everywhere(*a, base, env)) {
      const bool here = f.inputs.project_dir == base.project_dir;
      out.push_back({std::move(f.inputs), std::move(f.resolution), a, here});
    }
  }
  if (!base.explicit_paths.empty()) return out;
  util::FileReader& reader = base.reader ? *base.reader : util::disk();
  // Each agent's folder once: a set, as thousands of folders may be bound (a key per agent, headless run, version).
  std::set<std::pair<const Agent*, std::string>> done;
  std::set<std::pair<const Agent*, std::string>> started; // each agent's definitions in the folders so far
  const auto note_started = [&](const AgentFolder& f) {
    for (const config::Candidate* c : f.resolution.winners()) started.emplace(f.agent, c->fingerprint);
  };
  for (const AgentFolder& f : out) {
    done.emplace(f.agent, f.inputs.project_dir.string());
    note_started(f);
  }
  for (const std::string& key : scope.bound_folders) {
    const auto [agent, dir] = read_folder_key(key);
    if (std::find(who.begin(), who.end(), agent) == who.end()) continue;
    if (!done.emplace(agent, dir.string()).second || !reader.stat(dir)) continue;
    if (scope.still_binds) {
      const std::optional<std::vector<std::string>> binds = scope.still_binds(key);
      if (binds && std::all_of(binds->begin(), binds->end(),
                               [&, a = agent](const std::string& fp) { return started.contains({a, fp}); })) {
        continue;
      }
    }
    config::DiscoveryInputs in = base;
    in.project_dir = dir;
    add(*agent, std::move(in), false);
    note_started(out.back());
  }
  return out;
}

const std::vector<const Agent*>& agents() {
  static const std::vector<const Agent*> table = {&claude_code(), &codex(),    &gemini(), &copilot(),
                                                  &cursor(),      &windsurf(), &qwen(),   &opencode()};
  return table;
}

const Agent* find_agent(std::string_view id) {
  for (const Agent* a : agents()) {
    if (a->id == id) return a;
  }
  return nullptr;
}

const Agent& default_agent() { return claude_code(); }

std::filesystem::path agent_folder(const Agent& agent, const util::Environment& env) {
  const auto file = agent.registration.install_file(InstallScope::user, env, std::filesystem::current_path());
  if (!file) return {};
  return writes_plugin(agent.registration) ? file->parent_path().parent_path() : file->parent_path();
}

const Agent* detect_agent(const hook::HookInput& input) {
  if (input.incomplete || input.payload.empty()) return nullptr;
  for (const Agent* a : agents()) {
    if (a->dialect.recognizes(input.payload)) return a;
  }
  return nullptr;
}

std::string folder_key(const Agent& agent, const std::string& dir, const std::vector<std::string>& how) {
  std::string qualifiers;
  if (&agent != &default_agent()) qualifiers = agent.id;
  for (const auto& h : how) qualifiers += (qualifiers.empty() ? "" : ", ") + h;
  return qualifiers.empty() ? dir : dir + " (" + qualifiers + ")";
}

std::pair<const Agent*, std::filesystem::path> read_folder_key(std::string_view key) {
  const std::size_t open = key.rfind(" (");
  if (open == std::string_view::npos || key.back() != ')') return {&default_agent(), std::filesystem::path(key)};
  const std::string_view qualifiers = key.substr(open + 2, key.size() - open - 3);
  const Agent* named = find_agent(qualifiers.substr(0, qualifiers.find(", ")));
  return {named ? named : &default_agent(), std::filesystem::path(key.substr(0, open))};
}

void add_server_files(config::Resolution& res, const std::vector<ServerFile>& files, util::FileReader& reader,
                      const std::function<void(config::Candidate&, const config::FileReport&)>& shape) {
  const std::string project = config::absolute_normal(res.project_dir).string();
  for (const ServerFile& f : files) {
    res.files.push_back(config::read_source({f.file, std::string(config::scope_name(f.scope))}, reader));
    const config::FileReport& report = res.files.back();
    for (const config::ServerDefinition& def : report.servers) {
      config::Candidate c;
      c.definition = def;
      c.tool_server = config::tool_server_name(def.name);
      c.scope = f.scope;
      if (f.scope == config::Scope::project) c.project = project;
      if (shape) shape(c, report);
      res.candidates.push_back(std::move(c));
    }
  }
}

std::filesystem::path user_folder(const util::Environment& env, std::string_view var,
                                  const std::filesystem::path& below, const std::filesystem::path& at_home) {
  if (auto set = env.get(var); set && !set->empty())
    return below.empty() ? std::filesystem::path(*set) : std::filesystem::path(*set) / below;
  return util::home_dir(env) / at_home;
}

config::Resolution read_server_files(const config::DiscoveryInputs& inputs, const util::Environment& env,
                                     util::FileReader& reader, const std::vector<ServerFile>& files,
                                     const std::function<void(config::Candidate&, const config::FileReport&)>& shape) {
  config::Resolution res{.project_dir = inputs.project_dir};
  add_server_files(res, files, reader, shape);
  config::pick_winners(res, env, reader);
  return res;
}

std::vector<std::filesystem::path> HookFileRegistration::hook_files(const util::Environment& env,
                                                                    const std::filesystem::path& project) const {
  std::vector<std::filesystem::path> files;
  if (!spec().system_file.empty()) files.push_back(spec().system_file);
  files.push_back(spec().user_file(env));
  if (!spec().project_file.empty()) files.push_back(config::absolute_normal(project) / spec().project_file);
  return files;
}

std::optional<std::filesystem::path> HookFileRegistration::install_file(InstallScope scope,
                                                                        const util::Environment& env,
                                                                        const std::filesystem::path& project) const {
  if (scope == InstallScope::user) return spec().user_file(env);
  if (scope == InstallScope::project && !spec().project_file.empty()) {
    return config::absolute_normal(project) / spec().project_file;
  }
  return std::nullopt;
}

boost::json::object HookFileRegistration::hook_entry(const std::string& command) const {
  boost::json::object entry = spec().entry;
  entry["command"] = command;
  return entry;
}

hook::Event event_in(std::span<const EventName> table, std::string_view name) {
  for (const EventName& e : table) {
    if (e.name == name) return e.event;
  }
  return hook::Event::other;
}

std::vector<std::string_view> names_in(std::span<const EventName> table) {
  std::vector<std::string_view> out;
  for (const EventName& e : table) out.push_back(e.name);
  return out;
}

bool names_one_of(const boost::json::object& payload, std::string_view key, std::initializer_list<std::string_view> names) {
  const std::optional<std::string> named = util::get_string(payload, key);
  return named && std::find(names.begin(), names.end(), *named) != names.end();
}

void name_event(hook::HookCall& call, const std::optional<std::string>& flag, const std::optional<std::string>& named,
                std::string_view field, std::string fallback, std::string fallback_source) {
  if (flag && !flag->empty()) {
    call.event_name = *flag;
    call.event_source = "--event";
  } else if (named && !named->empty()) {
    call.event_name = *named;
    call.event_source = "the payload's " + std::string(field);
  } else {
    call.event_name = std::move(fallback);
    call.event_source = std::move(fallback_source);
  }
}

hook::HookCall call_of_event(const hook::HookInput& input, const std::optional<std::string>& flag,
                             std::string_view field, std::string fallback, std::span<const EventName> table) {
  hook::HookCall call;
  name_event(call, flag, hook::string_field(input, field), field, std::move(fallback));
  call.event = event_in(table, call.event_name);
  return call;
}

std::string agent_ids() {
  std::string out;
  for (const Agent* a : agents()) out += (out.empty() ? "" : ", ") + std::string(a->id);
  return out;
}

void read_claude_failure(const hook::HookInput& input, hook::HookCall& call) {
  if (input.incomplete) return;
  call.failure_text = hook::failure_text(input.payload);
  call.interrupted = util::get_bool(input.payload, "is_interrupt") == true;
  call.duration_ms = std::max<std::int64_t>(0, util::get_int(input.payload, "duration_ms").value_or(0));
}

std::string per_agent(const std::function<std::string(const Agent&)>& say) {
  std::vector<std::pair<std::vector<std::string_view>, std::string>> groups; // who says it, and what
  for (const Agent* a : agents()) {
    const std::string said = say(*a);
    if (said.empty()) continue;
    auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.second == said; });
    if (same != groups.end())
      same->first.push_back(a->name);
    else
      groups.push_back({{a->name}, said});
  }
  std::string out;
  for (const auto& [names, said] : groups) {
    std::string who;
    for (std::size_t i = 0; i < names.size(); ++i) {
      who += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string(names[i]);
    }
    out += (out.empty() ? "" : "; ") + who + ": " + said;
  }
  return out;
}

std::string hook_command(const std::string& binary, const Agent& agent) {
  // Every agent named, Claude Code too: a payload's shape is a guess, and a guess can be steered.
  return util::shell_word(binary) + " hook --agent " + std::string(agent.id);
}

std::optional<HookCommand> read_hook_command(const std::string& command) {
  const std::vector<std::string> words = util::shell_words(command);
  // `mcphealth [global options] hook [options]`: the program, then the subcommand (after any global option).
  if (words.empty() || std::filesystem::path(words[0]).filename() != "mcphealth") return std::nullopt;
  // The options the binary takes with a value, before and after `hook` (cmd/app.cpp, cmd/hook.cpp).
  static const std::vector<std::string_view> with_value = {"--state", "--config", "--policy", "--output", "--event", "--agent"};
  static const std::vector<std::string_view> flags = {"-v", "--verbose", "-vv"};
  HookCommand out;
  out.program = words[0];
  std::optional<std::string> event;
  bool seen_hook = false;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!seen_hook && w == "hook") {
      seen_hook = true;
      continue;
    }
    const std::size_t eq = w.find('=');
    const std::string name = w.rfind("--", 0) == 0 && eq != std::string::npos ? w.substr(0, eq) : w;
    if (std::find(flags.begin(), flags.end(), name) != flags.end()) continue;
    if (std::find(with_value.begin(), with_value.end(), name) != with_value.end()) {
      std::optional<std::string> value;
      if (eq != std::string::npos && name != w) value = w.substr(eq + 1);
      else if (i + 1 < words.size()) value = words[++i];
      if (!value) {
        if (out.problem.empty()) out.problem = name + " needs a value";
        continue;
      }
      if (name == "--agent") {
        out.agent = *value;
        if (find_agent(*value) == nullptr && out.problem.empty()) {
          out.problem = "--agent " + *value + " is not an agent mcphealth knows (" + agent_ids() + ")";
        }
      }
      if (name == "--event") event = *value;
      if (name == "--output" && *value != "json" && *value != "exit-code" && *value != "passthrough" && out.problem.empty()) {
        out.problem = "--output " + *value + " is not one of json, exit-code, passthrough";
      }
      continue;
    }
    if (!seen_hook) return std::nullopt; // another subcommand: `mcphealth status --statusline`
    if (out.problem.empty()) out.problem = "the hook does not take " + w;
  }
  if (!seen_hook) return std::nullopt;
  const Agent* agent = out.agent ? find_agent(*out.agent) : &default_agent();
  if (event && agent != nullptr && out.problem.empty()) {
    const std::vector<std::string_view> known = agent->dialect.event_names();
    if (std::find(known.begin(), known.end(), *event) == known.end()) {
      out.problem = "--event " + *event + " is not an event mcphealth acts on for " + std::string(agent->name);
    }
  }
  return out;
}

} // namespace mcphealth::agent
