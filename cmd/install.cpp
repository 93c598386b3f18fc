#include "install.hpp"

#include "choices.hpp"
#include "output.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/diff.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/files.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cstdio>

namespace mcphealth::cli {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

/// Each agent's file of `scope`, as `--help` shows it (`~/.claude/settings.json`, `.codex/hooks.json`), from the table.
std::string files_of_scope(agent::InstallScope scope) {
  const util::MapEnvironment shown_env{{"HOME", "~"}};
  const fs::path here = fs::current_path();
  return agent::per_agent([&](const agent::Agent& a) {
    const auto file = a.registration.install_file(scope, shown_env, here);
    if (!file) return std::string();
    const fs::path relative = file->lexically_relative(here);
    return relative.empty() || *relative.begin() == ".." ? file->string() : relative.string();
  });
}

/// The agents that run a hook only once the user trusts it, by name, from the table.
std::string trusting_agents() {
  std::string names;
  for (const agent::Agent* a : agent::agents()) {
    if (a->registration.trust()) names += (names.empty() ? "" : ", ") + std::string(a->name);
  }
  return names;
}

void add_common(CLI::App* sub, const std::shared_ptr<InstallOptions>& o) {
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  ids.emplace_back("all");
  sub->add_option("--agent", o->agent,
                  "Whose settings: " + agent::agent_ids() + ", or all (every one found here: its folder exists); "
                  "default: claude-code")
      ->type_name("ID")
      ->check(one_of_words(ids));
  sub->add_option("--scope", o->scope,
                  "Which settings file: user (the default; " + files_of_scope(agent::InstallScope::user) +
                      "), project (shared with the repository; " + files_of_scope(agent::InstallScope::project) +
                      ") or local (yours only; " + files_of_scope(agent::InstallScope::local) + ")")
      ->transform(one_of<agent::InstallScope>({{"user", agent::InstallScope::user},
                                               {"project", agent::InstallScope::project},
                                               {"local", agent::InstallScope::local}}))
      ->type_name("SCOPE");
  sub->add_option("--cwd", o->cwd, "Project dir for --scope project or local (default: $CLAUDE_PROJECT_DIR, else the current dir)")
      ->type_name("DIR")->check(existing_folder());
  sub->add_flag("--dry-run", o->dry_run, "Print the change as a diff (with --service, the file); write nothing");
  sub->add_flag("--json", o->json, "Print {\"file\",\"changed\",\"backup\",\"notes\",\"jsHook\",\"diff\"} (with --service: {\"file\",\"manager\",\"changed\",\"variables\",\"envFile\",\"load\",...})");
}

std::string scope_word(agent::InstallScope scope) {
  switch (scope) {
  case agent::InstallScope::user: return "user";
  case agent::InstallScope::project: return "project";
  case agent::InstallScope::local: break;
  }
  return "local";
}

const agent::Agent& agent_of(const InstallOptions& o) {
  const agent::Agent* a = o.agent ? agent::find_agent(*o.agent) : nullptr;
  return a ? *a : agent::default_agent();
}

/// The project `--cwd` names: `$CLAUDE_PROJECT_DIR`, else the current folder, when it names none.
fs::path project_of(const InstallOptions& o, const util::Environment& env) {
  if (o.cwd) return *o.cwd;
  if (auto dir = env.get("CLAUDE_PROJECT_DIR"); dir && !dir->empty()) return *dir;
  return fs::current_path();
}

/// The file `--scope` names for `agent`; nothing when that agent has no file of that scope.
std::optional<fs::path> settings_file(const InstallOptions& o, const agent::Agent& agent, const util::Environment& env) {
  return agent.registration.install_file(o.scope, env, project_of(o, env));
}

/// Whether `agent` is on this machine: its folder (agent::agent_folder) exists.
bool found_here(const agent::Agent& agent, const util::Environment& env) {
  const fs::path folder = agent::agent_folder(agent, env);
  std::error_code ec;
  return !folder.empty() && fs::is_directory(folder, ec);
}

/// The program the hook command names: `--binary` (a bare name stays a PATH lookup; a path must be an executable
/// file), else, for a file shared with the repository (project scope), the bare `mcphealth` (someone else's absolute
/// path would be wrong on every other machine), else this binary's absolute path as the user ran it (a symlink kept:
/// the versioned file it points to goes with the next upgrade).
util::Result<std::string> hook_binary(const InstallOptions& o, const agent::Agent& agent, const util::Environment& env) {
  const std::string wanted = o.binary ? *o.binary : o.scope == agent::InstallScope::project ? "mcphealth" : "";
  if (wanted.empty()) {
    const auto self = ops::registered_binary(o.invoked_as, env);
    if (!self) return util::fail("cannot tell where this mcphealth is; give it with --binary PATH");
    return self->string();
  }
  if (wanted.find('/') != std::string::npos) {
    const fs::path path = fs::absolute(wanted).lexically_normal();
    if (!util::disk().executable(path)) return util::fail("--binary: " + path.string() + " is not an executable file");
    return path.string();
  }
  if (config::find_on_path(wanted, {"PATH=" + env.get("PATH").value_or("")}, {}, util::disk()).empty()) {
    const std::string why = "`" + wanted + "` is not on PATH here (PATH=" + env.get("PATH").value_or("") + ")";
    if (agent.registration.missing_command_blocks()) {
      return util::fail(std::string(agent.name) + " blocks every MCP call when its hook cannot start, and " + why +
                        "; put mcphealth on PATH, or give --binary an absolute path");
    }
    util::log::warn(why + ": " + std::string(agent.name) + " will not find the hook until it is (explain-config checks)");
  }
  return wanted;
}

/// What an agent that trusts hooks by record was asked, as install reports it: a line for people (stdout when it
/// worked, stderr when the user has something to do) and `trust` for --json.
struct TrustReport {
  std::string line;
  bool problem = false;
  /// For a problem, the agent's verdict: `registered, trust unverified` (it could not be asked, or asking failed) or
  /// `registered, not trusted` (it said so).
  std::string verdict = {};
  json::object json;
};

TrustReport trust_report(const agent::Agent& agent, const agent::HookTrust& trust, const fs::path& project,
                         const std::optional<agent::TrustListing>& listing) {
  TrustReport r;
  const std::string how = trust.by_hand(project);
  if (!listing) {
    r.line = std::string(agent.name) + " runs these hooks only once you trust them: " + how;
    r.problem = true;
    r.verdict = "registered, trust unverified";
    r.json = {{"asked", false}};
    return r;
  }
  const agent::TrustListing& t = *listing;
  json::array keys;
  std::size_t ours = 0, now = 0, untrusted = 0;
  for (const agent::ListedHook& h : t.hooks) {
    if (!h.written) continue;
    ++ours;
    if (h.trusted_now) {
      ++now;
      keys.push_back(json::value(h.key));
    }
    if (!h.trusted()) ++untrusted;
  }
  r.json = {{"asked", true}, {"program", t.program.string()}, {"recorded", std::move(keys)},
            {"error", t.error.empty() ? json::value(nullptr) : json::value(t.error)}};
  if (!t.error.empty() || ours == 0 || untrusted > 0) {
    r.problem = true;
    r.verdict = !t.error.empty() || ours == 0 ? "registered, trust unverified" : "registered, not trusted";
    const std::string why = !t.error.empty() ? t.error
                            : ours == 0     ? std::string(agent.name) + " lists none of mcphealth's hooks here"
                                            : std::to_string(untrusted) + " of mcphealth's hooks are still untrusted";
    r.line = std::string(agent.name) + " runs a hook only once you trust it, and trusting them failed (" + why + "): " + how;
    return r;
  }
  r.line = now == 0 ? std::string(agent.name) + " already trusts mcphealth's hooks"
                    : std::string(agent.name) + " trusts mcphealth's hooks now (" + std::to_string(now) +
                          " recorded by " + t.program.string() + " in its " + trust.record_name() + ")";
  return r;
}

/// `--list-agents` and `--list-events`: the table's words, for the completions (which never type them again).
int list_words(const InstallOptions& o) {
  if (o.list_agents) {
    for (const agent::Agent* a : agent::agents()) say("%s\n", std::string(a->id).c_str());
  }
  if (o.list_events) {
    if (o.agent == std::optional<std::string>("all")) {
      util::log::error("--list-events names one agent's events; it does not go with --agent all");
      return k_exit_usage;
    }
    for (const agent::EventSpec& e : agent_of(o).registration.events()) say("%s\n", e.name.c_str());
  }
  return k_exit_ok;
}

} // namespace

void register_install(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<InstallOptions>();
  CLI::App* sub = app.add_subcommand("install", "Register the hook in an agent's settings (idempotent, with a backup)");
  add_common(sub, o);
  sub->add_option("--events", o->events,
                  "Events to register, comma-separated (default: " + agent::per_agent([](const agent::Agent& a) {
                    std::string names;
                    for (const agent::EventSpec& e : a.registration.events())
                      names += (names.empty() ? "" : ",") + e.name;
                    return names;
                  }) + ")")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--binary", o->binary,
                  "The mcphealth the hook runs: a path (an executable file) or a bare name looked up on PATH (default: "
                  "this one's absolute path; for --scope project, the bare `mcphealth`)")
      ->type_name("PATH");
  sub->add_flag("--statusline", o->statusline, "Also set statusLine to `mcphealth status --statusline`, when none is set");
  sub->add_flag("--disable-js-hook", o->disable_js_hook,
                "Also remove the JS hook (mcp-health-check.js) from this settings file");
  sub->add_flag("--no-trust", o->no_trust,
                "For an agent that runs a hook only once you trust it (" + trusting_agents() +
                    "): do not ask it to trust the new hooks; it runs them only once you do");
  sub->add_flag("--list-agents", o->list_agents,
                "Print the id of every agent install knows, one per line; change nothing");
  sub->add_flag("--list-events", o->list_events,
                "Print the events --agent registers by default, one per line; change nothing");
  add_service_options(sub, o, false);
  sub->footer("Exit: 0 installed, or already installed; 1 installed, but an agent that runs only trusted hooks "
              "(Codex CLI) could not be made or asked to trust them (its verdict is the last line: registered, trust "
              "unverified); 2 usage error, a settings file that does not parse or cannot be written (nothing is "
              "changed then), or --agent all with no agent found here.");
  sub->callback([o, &command_line] {
    o->invoked_as = command_line.invoked_as;
    command_line.exit_code = o->service                          ? run_service(*o, false, command_line.globals)
                             : o->list_agents || o->list_events ? list_words(*o)
                                                                : run_install(*o, false, command_line.globals);
  });
}

void register_uninstall(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<InstallOptions>();
  CLI::App* sub =
      app.add_subcommand("uninstall", "Take the hook (and mcphealth's status line) out of an agent's settings");
  add_common(sub, o);
  add_service_options(sub, o, true);
  sub->footer("Exit: 0 removed, or not installed; 2 usage error, or a settings file that does not parse or cannot "
              "be written.");
  sub->callback([o, &command_line] {
    command_line.exit_code = o->service ? run_service(*o, true, command_line.globals) : run_install(*o, true, command_line.globals);
  });
}

/// Installs in (or uninstalls from) `agent`'s file; with `collected`, its --json object goes there instead of stdout,
/// and a trust verdict that is not `trusted` goes to `verdicts` (install --agent all's summary) instead of a line.
/// 0 done, 1 registered but not known to run (trust), 2 an error.
int install_for(const InstallOptions& o, const agent::Agent& agent, bool uninstall, const util::Environment& env,
                util::Clock& clock, json::array* collected, std::vector<std::string>* verdicts = nullptr) {
  const std::optional<fs::path> where = settings_file(o, agent, env);
  if (!where) {
    // Name only the scopes this agent has (Copilot CLI has no project-scope hook file).
    std::vector<std::string> scopes;
    for (const agent::InstallScope s : {agent::InstallScope::user, agent::InstallScope::project, agent::InstallScope::local}) {
      if (s != o.scope && agent.registration.install_file(s, env, fs::path(".")))
        scopes.push_back(std::string(scope_word(s)));
    }
    util::log::error(std::string(agent.name) + " has no " + scope_word(o.scope) + "-scope settings file" +
                     (scopes.empty() ? std::string() : "; use --scope " + util::join(scopes, " or ")));
    return k_exit_usage;
  }
  const fs::path file = *where;
  if (o.statusline && !agent.registration.has_status_line()) {
    util::log::error(std::string(agent.name) + " has no status line; --statusline is for Claude Code");
    return k_exit_usage;
  }
  // Inside the repository (project and local scope) the backups go elsewhere: they are nobody's to commit.
  const bool in_repository = o.scope != agent::InstallScope::user;
  std::optional<std::string> binary;
  if (!uninstall) {
    auto chosen = hook_binary(o, agent, env);
    if (!chosen) {
      util::log::error(chosen.error().message);
      return k_exit_usage;
    }
    binary = *chosen;
  }
  ops::InstallRun run;
  run.direction = uninstall ? ops::InstallRun::Direction::uninstall : ops::InstallRun::Direction::install;
  run.request.file = file;
  run.request.agent = &agent;
  if (binary) run.request.binary = *binary;
  if (!o.events.empty()) run.request.events = o.events;
  run.request.statusline = o.statusline;
  run.request.remove_js_hook = o.disable_js_hook;
  run.dry_run = o.dry_run;
  if (in_repository) run.backup_dir = ops::backup_folder(env);
  run.project = project_of(o, env);
  run.ask_trust = o.no_trust ? agent::TrustWritten::no : agent::TrustWritten::yes;
  const util::Result<ops::InstallDone> done = ops::install(run, env, clock);
  if (!done) {
    util::log::error(done.error().message);
    return k_exit_usage;
  }
  const ops::InstallPlan& plan = done->plan;
  const std::optional<fs::path>& backup = done->backup;
  // A file the run removes is shown going, not becoming `{}`: the dry run shows what the run does.
  std::string diff = util::unified_diff(plan.before, plan.remove ? std::string() : plan.after, file.string());
  if (const std::string after = "+++ " + file.string() + " (after)\n"; plan.remove && diff.find(after) != std::string::npos) {
    diff.replace(diff.find(after), after.size(), "+++ /dev/null (the file is removed)\n");
  }
  const bool js_left = !plan.js_hook.empty() && !o.disable_js_hook && !uninstall;
  std::optional<TrustReport> trust;
  const agent::HookTrust* trusts = agent.registration.trust();
  if (!uninstall && !o.dry_run && trusts) trust = trust_report(agent, *trusts, run.project, done->trust);
  // The agent skips an untrusted hook without a word: installed, but not known to run, unless the user chose so.
  const bool unverified = trust && trust->problem && !o.no_trust;
  const int code = unverified ? k_exit_unhealthy : k_exit_ok;
  if (unverified && verdicts) verdicts->push_back(std::string(agent.name) + ": " + trust->verdict);
  std::string forgot;
  if (!done->forget_error.empty()) {
    std::fprintf(stderr, "mcphealth: %s keeps its trust records of the removed hooks (%s)\n",
                 std::string(agent.name).c_str(), done->forget_error.c_str());
  } else if (const std::size_t n = done->trust_forgotten.size(); n > 0) {
    forgot = std::to_string(n) + " trust record" + (n == 1 ? "" : "s") + " of the removed hooks taken out of " +
             std::string(agent.name) + "'s " + trusts->record_name();
  }
  if (o.json) {
    json::array notes, js;
    for (const auto& n : plan.notes) notes.push_back(json::value(n));
    for (const auto& n : plan.js_hook) js.push_back(json::value(n));
    json::object out{{"file", file.string()},
                     {"changed", plan.changed()},
                     {"dryRun", o.dry_run},
                     {"backup", backup ? json::value(backup->string()) : json::value(nullptr)},
                     {"notes", std::move(notes)},
                     {"jsHook", std::move(js)},
                     {"diff", diff}};
    if (trust) {
      out["trust"] = trust->json;
      out["trust"].as_object()["verdict"] = trust->problem ? json::value(trust->verdict) : json::value("trusted");
    }
    if (!forgot.empty()) out["trustRecordsRemoved"] = done->trust_forgotten.size();
    if (collected) {
      out["agent"] = std::string(agent.id);
      collected->push_back(std::move(out));
    } else {
      print_json(out);
    }
    return code;
  }
  if (o.dry_run) {
    if (diff.empty()) say("%s: nothing to change\n", file.c_str());
    else std::fputs(diff.c_str(), stdout);
    if (plan.remove) say("%s would be left empty: removed\n", file.c_str());
  } else if (!plan.changed()) {
    say("%s: nothing to change (%s)\n", file.c_str(), uninstall ? "mcphealth is not registered here" : "already installed");
  } else {
    say("%s %s%s\n", uninstall ? "uninstalled from" : "installed in", file.c_str(),
                backup ? (" (backup: " + backup->string() + ")").c_str() : "");
  }
  if (!o.dry_run) {
    for (const auto& n : plan.notes) say("  %s\n", n.c_str());
  }
  if (trust && !trust->problem) say("  %s\n", trust->line.c_str());
  if (!forgot.empty()) say("  %s\n", forgot.c_str());
  if (trust && trust->problem) std::fprintf(stderr, "mcphealth: %s\n", trust->line.c_str());
  if (unverified && !verdicts) say("%s: %s\n", std::string(agent.name), trust->verdict);
  if (js_left) {
    std::fprintf(stderr,
                 "mcphealth: the JS hook is also registered in %s (%s): both would write the same cache without "
                 "sharing a lock; run `mcphealth install --disable-js-hook%s` to remove it\n",
                 file.c_str(), plan.js_hook.front().c_str(), o.scope == agent::InstallScope::user ? "" : (" --scope " + scope_word(o.scope)).c_str());
  }
  return code;
}

namespace {

/// After an uninstall: what of mcphealth's own stays on disk (the cache and what is kept beside it, the history,
/// the policy, the prober's service file), and how to remove it. Nothing when none of it exists.
void say_what_stays(const util::Environment& env, const GlobalOptions& globals) {
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  const fs::path& state = settings.state_path.value;
  std::vector<std::string> kept;
  std::error_code ec;
  // The state file and everything named after it: what it keeps beside it (.d/), its history, its locks.
  const std::string name = state.filename().string();
  const fs::path folder = state.has_parent_path() ? state.parent_path() : fs::path(".");
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (!name.empty() && (entry == name || entry.rfind(name + ".", 0) == 0)) kept.push_back(it->path().string());
  }
  std::sort(kept.begin(), kept.end());
  if (fs::exists(fs::symlink_status(settings.policy_path.value, ec))) kept.push_back(settings.policy_path.value.string());
  if (!kept.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& k : kept) quoted.push_back(util::shell_quote(k));
    say("mcphealth's own files stay: %s; to remove them too: rm -r %s\n", util::join(kept, ", "), util::join(quoted, " "));
  }
  for (const ops::ServiceManager m : {ops::ServiceManager::systemd, ops::ServiceManager::launchd}) {
    const fs::path service = ops::service_path(m, util::home_dir(env), env);
    if (fs::exists(service, ec)) {
      say("the background prober's service stays: %s; to remove it: mcphealth uninstall --service --manager %s\n",
          service.string(), std::string(ops::manager_name(m)));
    }
  }
}

} // namespace

int run_install(const InstallOptions& o, bool uninstall, const GlobalOptions& globals) {
  const int code = install_each(o, uninstall);
  if (uninstall && !o.dry_run && !o.json && code == k_exit_ok) say_what_stays(util::ProcessEnvironment(), globals);
  return code;
}

int install_each(const InstallOptions& o, bool uninstall) {
  util::ProcessEnvironment env;
  util::SystemClock clock;
  if (o.agent != std::optional<std::string>("all")) {
    const agent::Agent& agent = agent_of(o);
    // Creating ~/.gemini/settings.json for an agent that is not here is allowed (it may come later), but said.
    if (!uninstall && !o.dry_run && o.scope == agent::InstallScope::user && !found_here(agent, env)) {
      util::log::warn(std::string(agent.name) + " does not seem to be on this machine (no " +
                      agent::agent_folder(agent, env).string() + "): the hook is registered for when it is");
    }
    return install_for(o, agent, uninstall, env, clock, nullptr);
  }
  // Every agent found here, each in its own file; one that has no file of this scope is passed over, and said so.
  if (!o.events.empty()) {
    util::log::error("--events names one agent's events; it does not go with --agent all");
    return k_exit_usage;
  }
  json::array collected;
  std::vector<std::string> verdicts;
  int code = k_exit_ok;
  std::size_t done = 0;
  for (const agent::Agent* a : agent::agents()) {
    if (!found_here(*a, env)) continue;
    if (!settings_file(o, *a, env)) {
      if (!o.json) say("%s: no %s-scope settings file; passed over\n", std::string(a->name).c_str(), scope_word(o.scope).c_str());
      continue;
    }
    InstallOptions one = o;
    one.statusline = o.statusline && a->registration.has_status_line();
    code = std::max(code, install_for(one, *a, uninstall, env, clock, o.json ? &collected : nullptr, &verdicts));
    ++done;
  }
  if (o.json) print_json(json::value(std::move(collected)));
  // Last, where a script or a person reads the outcome: which agents may not run what was registered.
  if (!o.json) {
    for (const std::string& v : verdicts) say("%s\n", v);
  }
  if (done == 0) {
    // Where each agent keeps its user-scope hooks, from the table.
    std::string folders;
    const fs::path home = util::home_dir(env);
    for (const agent::Agent* a : agent::agents()) {
      if (const fs::path folder = agent::agent_folder(*a, env); !folder.empty()) {
        const fs::path shown = folder.lexically_relative(home);
        folders += (folders.empty() ? "" : ", ") + (shown.empty() || *shown.begin() == ".." ? folder.string() : "~/" + shown.string());
      }
    }
    // Installing into nothing is not a success: a setup script must not go on believing the gate is on.
    if (!uninstall) {
      util::log::error("no agent found here to install into (none of their folders exists: " + folders + ")");
      return k_exit_usage;
    }
    if (!o.json) say("no agent found here (none of their folders exists: %s)\n", folders.c_str());
  }
  return code;
}

} // namespace mcphealth::cli
