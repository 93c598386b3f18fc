#include <mcphealth/ops/doctor.hpp>

#include <mcphealth/config/server.hpp>
#include <mcphealth/ops/explain.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/config/variables_file.hpp>
#include <mcphealth/ops/service.hpp>
#include <mcphealth/state/history.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/files.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/text.hpp>
#include <mcphealth/util/version.hpp>

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <unistd.h>

namespace mcphealth::ops {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

/// How long an agent's `--version` may take (a Node.js program starting cold on a busy machine).
constexpr std::int64_t k_version_timeout_ms = 15'000;

Check ok(std::string what, std::string found) { return {Check::Verdict::ok, std::move(what), std::move(found)}; }
Check note(std::string what, std::string found, std::string fix) {
  return {Check::Verdict::note, std::move(what), std::move(found), std::move(fix)};
}
Check problem(std::string what, std::string found, std::string fix) {
  return {Check::Verdict::problem, std::move(what), std::move(found), std::move(fix)};
}

std::string path_of(const util::Environment& env) { return env.get("PATH").value_or(""); }

std::string install_fix(const agent::Agent& a) { return "run `mcphealth install --agent " + std::string(a.id) + "`"; }

/// The agent's version, against the versions its real program was tested with.
Check version_check(const agent::Agent& a, const DoctorInputs& in, AgentCheckup& out) {
  const std::string program(a.program);
  const std::string range = a.tested_oldest == a.tested_newest
                                ? std::string(a.tested_oldest)
                                : std::string(a.tested_oldest) + " to " + std::string(a.tested_newest);
  if (program.empty()) return ok("version", "not asked: " + std::string(a.name) + " is known by its hook contract only");
  if (config::find_on_path(program, {"PATH=" + path_of(in.env)}, {}, util::disk()).empty()) {
    return note("version", "`" + program + "` is not on PATH here, so its version is unknown",
                "check it is one of those tested (" + range + ")");
  }
  const proc::CommandResult r = in.runner.run_argv({program, "--version"}, "", k_version_timeout_ms);
  out.version = util::version_in(r.out + "\n" + r.err);
  if (!out.version) {
    return note("version", "`" + program + " --version` named no version (" +
                               util::cap_utf8(util::last_meaningful_line(r.out + r.err + r.error), 160) + ")",
                "check it is one of those tested (" + range + ")");
  }
  const std::string v = *out.version;
  if (util::compare_versions(v, a.tested_oldest) < 0) {
    return note("version", v + ", older than any tested (" + range + ")",
                "update " + std::string(a.name) + ": its hooks may lack what the gate needs");
  }
  if (util::compare_versions(v, a.tested_newest) > 0) {
    return note("version", v + ", newer than any tested (" + range + ")",
                "it likely works; a new wording of a failure may go unread until mcphealth is updated");
  }
  return ok("version", v + " (tested: " + range + ")");
}

/// Whether two files are one program: the same file, or the same bytes.
bool same_program(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  const auto sa = fs::file_size(a, ec);
  if (ec) return false;
  const auto sb = fs::file_size(b, ec);
  if (ec || sa != sb) return false;
  const auto ra = util::read_file(a, sa + 1);
  const auto rb = util::read_file(b, sb + 1);
  return ra && rb && *ra == *rb;
}

/// The mcphealth programs doctor knows without running anything a repository names: this one (its front, and the
/// full binary beside it), and the programs the user's own files register (`reg.commands` that are not
/// `reg.project_commands`), found on `path`.
std::vector<fs::path> known_mcphealth(const HookRegistration& reg, const std::string& path) {
  std::vector<fs::path> out;
  if (const std::optional<fs::path> self = this_binary()) {
    out.push_back(*self);
    out.push_back(self->parent_path() / k_full_binary_from_front);
  }
  for (const std::string& command : reg.commands) {
    const bool project = std::any_of(reg.project_commands.begin(), reg.project_commands.end(),
                                     [&](const auto& pc) { return pc.first == command; });
    if (project) continue;
    if (const std::optional<agent::HookCommand> hc = agent::read_hook_command(command)) {
      if (fs::path program = config::find_on_path(hc->program, {"PATH=" + path}, {}, util::disk()); !program.empty()) out.push_back(program);
    }
  }
  return out;
}

/// A hook command a repository's file registers, identified without running it (doctor runs nothing a repository
/// names): the same program as an mcphealth doctor knows, else a path outside the project (a note), else a
/// program of the repository's own that only claims the name (a problem).
Check identify_unrun(const agent::HookCommand& hc, const std::string& file, const HookRegistration& reg,
                     const std::string& path, const DoctorInputs& in) {
  fs::path program = hc.program;
  if (program.is_relative() && hc.program.find('/') != std::string::npos)
    program = (in.base.project_dir / program).lexically_normal();
  else if (program.is_relative())
    program = config::find_on_path(hc.program, {"PATH=" + path}, {}, util::disk());
  if (program.empty() || !util::disk().executable(program)) {
    return problem("starts", "`" + hc.program + "`, registered by " + file + ", cannot be started",
                   "install mcphealth there, or run `mcphealth install --scope project` again");
  }
  for (const fs::path& known : known_mcphealth(reg, path)) {
    if (same_program(program, known)) {
      return ok("starts", program.string() + " is this mcphealth (the same program; not run: " + file +
                              " is a repository's file)");
    }
  }
  const fs::path real = util::disk().real_path(program);
  const fs::path project = util::disk().real_path(in.base.project_dir);
  if (std::mismatch(project.begin(), project.end(), real.begin(), real.end()).first != project.end()) {
    return note("starts", program.string() + " is registered by " + file +
                              ", a repository's file, and is not this mcphealth; it was not run to ask its version",
                "check it is mcphealth: `" + util::shell_quote(program.string()) + " --version`");
  }
  return problem("starts", "a project file registers another program as mcphealth: " + file + " runs " +
                               program.string() + ", a file of the repository's own, not an mcphealth doctor knows "
                               "(doctor runs nothing a repository names)",
                 "remove it from " + file + ", or register mcphealth with `mcphealth install --scope project`");
}

/// Where the hook is registered, and whether the command registered starts and is mcphealth.
void registration_checks(const agent::Agent& a, const DoctorInputs& in, const std::optional<state::HookSeen>& seen,
                         AgentCheckup& one) {
  std::vector<Check>& checks = one.checks;
  HookRegistration reg = find_hook_registration(in.env, in.base.project_dir, a);
  ask_hook_trust(reg, in.env, in.base.project_dir, a);
  std::vector<std::string> missing;
  for (const auto& [event, covered] : reg.required) {
    if (!covered) missing.push_back(event);
  }
  for (const std::string& file : reg.disabled_in) {
    checks.push_back(problem("registered", file + " sets \"disableAllHooks\": true, so " + std::string(a.name) +
                                               " runs no hook at all, mcphealth's included",
                             "remove disableAllHooks from " + file));
  }
  for (const auto& [command, why] : reg.problems) {
    checks.push_back(problem("registered", "`" + command + "` is registered, but " + why, install_fix(a) + " again"));
  }
  for (const auto& [file, where] : reg.unparsed) {
    // The agent reads no hook from it (nor does install, which refuses to edit it): nothing there is gated.
    checks.push_back(problem("registered", file + " does not parse (" + where + "): " + std::string(a.name) +
                                               " reads no hook from it, so a hook registered there does not run",
                             "fix the file at that place, then run doctor again (" + install_fix(a) +
                                 " refuses to edit a file it cannot read)"));
  }
  if (reg.commands.empty()) {
    if (!reg.unparsed.empty()) return; // said above: what to fix first
    checks.push_back(problem("registered", "no mcphealth hook is registered for MCP tools" +
                                               (reg.files.empty() ? std::string(" (no hook file found)")
                                                                  : " (read: " + util::join(reg.files, ", ") + ")"),
                             install_fix(a)));
    return;
  }
  std::string events;
  for (const auto& [event, covered] : reg.required) events += (events.empty() ? "" : ", ") + event;
  if (!missing.empty()) {
    checks.push_back(problem("registered", "registered in " + util::join(reg.registered_in, ", ") + ", but not for " +
                                               util::join(missing, ", "),
                             install_fix(a) + " again"));
  } else {
    checks.push_back(ok("registered", "in " + util::join(reg.registered_in, ", ") + " for " + events));
  }
  // The agent starts it with its own PATH: the one its hook last ran with, when known.
  const std::string path = seen && !seen->path.empty() ? seen->path : path_of(in.env);
  for (const std::string& command : reg.commands) {
    const std::optional<agent::HookCommand> hc = agent::read_hook_command(command);
    if (!hc) continue;
    const auto project_file = std::find_if(reg.project_commands.begin(), reg.project_commands.end(),
                                           [&](const auto& pc) { return pc.first == command; });
    if (project_file != reg.project_commands.end()) {
      checks.push_back(identify_unrun(*hc, project_file->second, reg, path, in));
      continue;
    }
    const fs::path program = config::find_on_path(hc->program, {"PATH=" + path}, {}, util::disk());
    if (program.empty() || !util::disk().executable(program)) {
      checks.push_back(problem("starts", "`" + hc->program + "` cannot be started" +
                                             (hc->program.find('/') == std::string::npos ? " (not on PATH=" + path + ")"
                                                                                         : " (not an executable file)"),
                               "install mcphealth there, or " + install_fix(a) + " from where it is"));
      continue;
    }
    const proc::CommandResult r = in.runner.run_argv({program.string(), "--version"}, "", k_version_timeout_ms);
    const std::string said = util::trim(r.out);
    if (!r.succeeded() && (r.err.find("cannot start the rest of mcphealth") != std::string::npos)) {
      // mcphealth's front without its full binary beside it: every call it cannot answer alone is allowed unchecked.
      std::error_code ec;
      const fs::path real = fs::canonical(program, ec);
      const fs::path full = ((ec ? program : real).parent_path() / k_full_binary_from_front).lexically_normal();
      checks.push_back(problem("starts", program.string() + " is mcphealth's front, but the rest of mcphealth is missing: " +
                                             full.string() + " is not there, so every call it cannot answer from the "
                                             "cache alone is allowed unchecked",
                               "put mcphealth-full at " + full.string() + " (`cmake --install` puts both files in "
                               "place), or " + install_fix(a) + " again from a complete install"));
      continue;
    }
    if (!r.succeeded() || said.rfind("mcphealth ", 0) != 0) {
      checks.push_back(problem("starts", "`" + program.string() + " --version` did not answer as mcphealth (" +
                                             util::cap_utf8(util::last_meaningful_line(r.out + r.err + r.error), 160) + ")",
                               install_fix(a) + " again with --binary naming this mcphealth"));
      continue;
    }
    const std::string theirs = said.substr(std::string_view("mcphealth ").size());
    if (theirs != util::version()) {
      checks.push_back(note("starts", program.string() + " starts, and is mcphealth " + theirs + ", not this " +
                                          std::string(util::version()),
                            "fine if meant; " + install_fix(a) + " to register this one"));
    } else {
      checks.push_back(ok("starts", program.string() + " starts (mcphealth " + theirs + ")"));
    }
  }
  if (reg.trust == "not trusted") {
    checks.push_back(problem("trusted", std::string(a.name) + " will not run it: " + reg.trust_detail,
                             install_fix(a) + " again (it asks " + std::string(a.name) + " to trust the hooks)"));
  } else if (reg.trust == "unknown") {
    one.trust_unverified = true;
    // The agent skips an untrusted hook without a word: not known to run it is not gated.
    checks.push_back(problem("trusted", "registered, but whether " + std::string(a.name) + " trusts it could not be checked: " +
                                            reg.trust_detail,
                             "check its /hooks screen, or " + install_fix(a) + " again where it can ask " +
                                 std::string(a.name)));
  } else if (reg.trust == "trusted") {
    checks.push_back(ok("trusted", std::string(a.name) + " trusts it"));
  }
  for (const std::string& js : reg.js_hook) {
    checks.push_back(note("registered", "the JS hook runs too: " + js, "remove it: both would probe and block"));
  }
}

/// Whether the agent's config files for this folder read.
Check config_check(const agent::Agent& a, const DoctorInputs& in) {
  const config::Resolution res = a.catalogue.resolve(in.base, in.env);
  std::size_t read = 0;
  for (const config::FileReport& f : res.files) {
    using S = config::FileReport::Status;
    if (f.status == S::parse_error || f.status == S::unreadable) {
      std::string where = f.source.file.string();
      if (f.line > 0) where += ":" + std::to_string(f.line) + ":" + std::to_string(f.column);
      return problem("configs", where + " does not read (" + f.error + "): its servers are neither started nor gated",
                     "fix it; `mcphealth explain-config --agent " + std::string(a.id) + "` shows what is read");
    }
    if (f.status != S::missing) ++read;
  }
  const std::size_t servers = res.winners().size();
  return ok("configs", std::to_string(read) + (read == 1 ? " file" : " files") + " read here, " +
                           std::to_string(servers) + (servers == 1 ? " server" : " servers") + " started here");
}

std::string ago(util::EpochMs at, util::EpochMs now) {
  return now >= at ? util::format_duration_short(now - at) + " ago" : "just now";
}

/// The state file and its history.
/// The first Agent SDK that sends a script's own servers (`mcpServers`) to Claude Code over stdin, not on its
/// command line where the hook reads them (found by scripts/drift; seen with 0.3.336).
constexpr std::string_view k_sdk_servers_over_stdin = "0.3.335";

/// What the gate does for an Agent SDK script's own servers, by the SDK its hook last ran under.
Check sdk_check(const state::HookSeen& seen, util::EpochMs now) {
  const std::string which = "an Agent SDK " + seen.sdk_version + " script ran the hook " + ago(seen.sdk_at, now);
  if (util::compare_versions(seen.sdk_version, k_sdk_servers_over_stdin) < 0) {
    return ok("sdk", which + ": the servers a script defines in its options are read from Claude Code's command line "
                             "and gated like any other");
  }
  return note("sdk",
              which + ": since " + std::string(k_sdk_servers_over_stdin) + " the SDK hands the servers a script defines "
                  "in its options to Claude Code over stdin, where the hook cannot read them. Such a server is known "
                  "only by its name, from its first failed call: from then its calls are blocked with the backoff, and a "
                  "reconnect command runs by its name, but it is never probed (its definition is not known), so it "
                  "comes back only when a call succeeds or the backoff ends",
              "define the script's servers in a .mcp.json or settings file the script loads (settingSources) to have "
              "them probed");
}

/// The background prober's service file, where one is (install --service writes it; a hand-made one is checked
/// the same). Notes, not problems: without the prober the gate still works, its verdicts are only older.
void service_checks(const DoctorInputs& in, std::vector<Check>& out) {
  for (const ServiceManager manager : {ServiceManager::systemd, ServiceManager::launchd}) {
    const fs::path path = service_path(manager, util::home_dir(in.env), in.env);
    const auto text = util::read_file(path);
    if (!text) continue;
    const std::vector<ServiceProblem> problems = check_service_file(manager, *text);
    for (const ServiceProblem& p : problems) out.push_back(note("service", path.string() + ": " + p.found, p.fix));
    // The settings the shell sets that the service lacks, or has otherwise (values never shown: one may hold a
    // credential). The service reads the variables file; the unit's own Environment= sets PATH alone.
    const auto env_text = util::read_file(config::variables_file(util::home_dir(in.env)));
    const std::map<std::string, std::string> service_has = config::variables_in(env_text ? *env_text : std::string());
    for (const ShellSetting& setting : shell_settings(in.env)) {
      const auto it = service_has.find(setting.name);
      if (it != service_has.end() && it->second == setting.value) continue;
      const std::string file = config::variables_file(util::home_dir(in.env)).string();
      out.push_back(note("service",
                         (it == service_has.end() ? "your shell sets " + setting.name + ", which the service lacks"
                                                  : "the service's " + setting.name + " is not your shell's") +
                             " (it reads " + file + ")",
                         setting.secret ? "put it in " + file + " yourself (it holds a credential: install copies none)"
                                        : "mcphealth install --service carries it there, or edit " + file));
    }
    if (!problems.empty()) continue;
    if (manager != native_service_manager()) {
      out.push_back(note("service", path.string() + ": written for " + std::string(manager_name(manager)) +
                                        ", which does not run on this system: nothing here runs it",
                         "mcphealth uninstall --service --manager " + std::string(manager_name(manager))));
      continue;
    }
    // Written is not running: the manager is asked (never a ✔ it did not give).
    using Answer = ServiceState::Answer;
    const ServiceState st = ask_service_state(manager, path, in.runner);
    ServiceInputs only_manager;
    only_manager.manager = manager;
    const ServiceFile shape = service_file(only_manager, in.env);
    const std::string name(manager_name(manager));
    if (st.enabled == Answer::no) {
      out.push_back(note("service", path.string() + ": written, not enabled" +
                                        (st.enabled_from.empty() ? "" : " (" + st.enabled_from + ")"),
                         shape.load));
    } else if (st.running == Answer::yes) {
      out.push_back(ok("service", path.string() + ": " + name + " runs watch --probe (enabled, running)"));
    } else if (st.running == Answer::no) {
      out.push_back(note("service", path.string() + ": enabled, not running" +
                                        (st.manager_says.empty() ? "" : " (" + name + " says " + st.manager_says + ")"),
                         manager == ServiceManager::systemd
                             ? "systemctl --user restart mcphealth-watch.service; its log: journalctl --user -u mcphealth-watch"
                             : shape.load));
    } else {
      out.push_back(note("service", path.string() + ": enabled" +
                                        (st.enabled_from.empty() ? "" : " (" + st.enabled_from + ")") +
                                        "; could not ask " + name + " whether it runs (" + st.not_asked + ")",
                         manager == ServiceManager::systemd ? "systemctl --user status mcphealth-watch.service"
                                                            : "launchctl print gui/$(id -u)/com.mcphealth.watch"));
    }
  }
}

/// The policy file, and the checks it declares: shown (redacted), never run (doctor reads only).
void policy_checks(const DoctorInputs& in, std::vector<Check>& out) {
  const config::Policy policy = config::load_policy(in.settings.policy_path, in.env, util::disk(), in.base.project_dir);
  const std::string file = policy.path.value.string();
  switch (policy.status) {
  case config::Policy::Status::absent: return;
  case config::Policy::Status::invalid:
    out.push_back(problem("policy", file + " is not valid, and is ignored as a whole: " + policy.problems.front().text(),
                          "fix it; `mcphealth policy` lists every problem"));
    return;
  case config::Policy::Status::ok: break;
  }
  std::string checks;
  for (const config::PolicyRule& r : policy.rules) {
    if (r.values.check) checks += (checks.empty() ? "" : "; ") + r.where + ": " + r.values.check->text();
  }
  if (checks.empty()) {
    out.push_back(ok("policy", file + " (" + std::to_string(policy.rules.size()) + " server entries, no declared check)"));
  } else if (policy.checks_refused) {
    out.push_back(problem("policy", file + " declares checks (" + checks + "), which do not run here: " + *policy.checks_refused,
                          "keep the policy in your own folder (~/.config/mcphealth/policy.json), not where a project's "
                          "files put it"));
  } else {
    out.push_back(ok("policy", file + ", declared checks (run by looks and `probe`, never by doctor): " + checks));
  }
}

void common_checks(const DoctorInputs& in, std::vector<Check>& out) {
  const fs::path& state = in.settings.state_path.value;
  if (state::is_cache_off(state)) {
    out.push_back(note("state", "the cache is off (" + state.string() + "): every call is probed, nothing is remembered",
                       "unset MCPHEALTH_STATE_PATH, or point it at a file"));
    return;
  }
  const fs::path folder = state.parent_path().empty() ? fs::path(".") : state.parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    out.push_back(problem("state", "its folder " + folder.string() + " does not exist: no verdict can be kept",
                          "mkdir -p " + util::shell_quote(folder.string())));
    return;
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    out.push_back(problem("state", "its folder " + folder.string() + " is not writable: no verdict can be kept",
                          "give this user write access to it"));
    return;
  }
  const state::StateSnapshot snap = state::load_state(state);
  switch (snap.status) {
  case state::LoadStatus::ok:
  case state::LoadStatus::missing:
    if (fs::exists(state, ec) && ::access(state.c_str(), W_OK) != 0) {
      out.push_back(problem("state", state.string() + " is not writable", "chmod u+w " + util::shell_quote(state.string())));
    } else {
      out.push_back(ok("state", state.string() + " " + std::string(state::load_status_words(snap.status)) + ", writable"));
    }
    break;
  case state::LoadStatus::corrupt:
    out.push_back(note("state", state.string() + " is not a state file (" + snap.error + ")",
                       "nothing to do: the next write moves it aside and starts afresh"));
    break;
  case state::LoadStatus::newer_version:
    out.push_back(problem("state", state.string() + " was written by a newer mcphealth, which this one will not overwrite",
                          "update mcphealth (every registered hook too)"));
    break;
  case state::LoadStatus::unreadable:
    out.push_back(problem("state", "cannot read " + state.string() + ": " + snap.error, "give this user read access to it"));
    break;
  }
  // How much it holds, and why that stays bounded (issue 39: months of use, thousands of folders).
  if (snap.status == state::LoadStatus::ok) {
    const state::StateSize size = state::state_size(state);
    const auto mb = [](std::uintmax_t bytes) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
      return std::string(buf);
    };
    out.push_back(ok("state size", mb(size.total()) + ": " + std::to_string(state::verdicts(snap.doc).size()) + " verdicts, " +
                                       std::to_string(size.bindings.files) + " folders bound, the history " +
                                       mb(size.history_bytes) + "; verdicts and folders unused for 30 days are "
                                       "pruned, at most " + std::to_string(state::verdicts_shelf(state).capacity()) +
                                       " of each"));
  }
  const fs::path history = state::history_path(state);
  if (fs::exists(history, ec) && ::access(history.c_str(), W_OK) != 0) {
    out.push_back(problem("history", history.string() + " is not writable: `mcphealth report` will miss what happens",
                          "chmod u+w " + util::shell_quote(history.string())));
  }
  policy_checks(in, out);
  service_checks(in, out);
}

} // namespace

std::string_view verdict_name(Check::Verdict verdict) {
  switch (verdict) {
  case Check::Verdict::ok: return "ok";
  case Check::Verdict::note: return "note";
  case Check::Verdict::problem: return "problem";
  }
  return "problem";
}

bool AgentCheckup::gated() const {
  return std::none_of(checks.begin(), checks.end(), [](const Check& c) { return c.verdict == Check::Verdict::problem; });
}

std::string_view AgentCheckup::verdict() const {
  if (gated()) return "gated";
  // Unverified trust its own verdict only when it is the one problem.
  const auto problems = std::count_if(checks.begin(), checks.end(), [](const Check& c) { return c.verdict == Check::Verdict::problem; });
  return trust_unverified && problems == 1 ? "registered, trust unverified" : "NOT gated";
}

bool Checkup::ok() const {
  bool any = false;
  for (const AgentCheckup& a : agents) {
    if (!a.installed) continue;
    any = true;
    if (!a.gated()) return false;
  }
  return any && std::none_of(common.begin(), common.end(), [](const Check& c) { return c.verdict == Check::Verdict::problem; });
}

Checkup run_checkup(const DoctorInputs& in) {
  Checkup out;
  const state::StateSnapshot snap = state::load_state(in.settings.state_path.value);
  const std::vector<state::HookSeen> seen_all = state::hooks_seen(snap.doc);
  const util::EpochMs now = in.clock.now_ms();
  for (const agent::Agent* a : agent::agents()) {
    if (!in.only.empty() && std::find(in.only.begin(), in.only.end(), a) == in.only.end()) continue;
    AgentCheckup one{.agent = a};
    std::error_code ec;
    const fs::path folder = agent::agent_folder(*a, in.env);
    const bool has_folder = !folder.empty() && fs::is_directory(folder, ec);
    const bool on_path =
        !a->program.empty() && !config::find_on_path(std::string(a->program), {"PATH=" + path_of(in.env)}, {}, util::disk()).empty();
    one.installed = has_folder || on_path || !in.only.empty();
    if (!one.installed) {
      out.agents.push_back(std::move(one));
      continue;
    }
    std::optional<state::HookSeen> seen;
    for (const auto& s : seen_all) {
      if (s.agent == a->id) seen = s;
    }
    one.checks.push_back(version_check(*a, in, one));
    registration_checks(*a, in, seen, one);
    if (seen) {
      one.checks.push_back(ok("seen", "the hook was last seen running " + ago(seen->at, now) + " (" + seen->event + ")"));
    } else {
      one.checks.push_back(note("seen", "the hook has not been seen running yet",
                                "start a session and run doctor again (the hook leaves a mark when a session starts, "
                                "or when it probes or records a failure)"));
    }
    if (seen && !seen->sdk_version.empty()) one.checks.push_back(sdk_check(*seen, now));
    one.checks.push_back(config_check(*a, in));
    out.agents.push_back(std::move(one));
  }
  common_checks(in, out.common);
  return out;
}

json::object checkup_json(const Checkup& c) {
  auto checks_json = [](const std::vector<Check>& checks) {
    json::array out;
    for (const Check& k : checks) {
      json::object o{{"check", k.what}, {"verdict", verdict_name(k.verdict)}, {"found", k.found}};
      o["fix"] = k.fix.empty() ? json::value(nullptr) : json::value(k.fix);
      out.push_back(std::move(o));
    }
    return out;
  };
  json::array agents;
  for (const AgentCheckup& a : c.agents) {
    json::object o{{"agent", a.agent->id}, {"name", a.agent->name}, {"installed", a.installed}};
    o["version"] = a.version ? json::value(*a.version) : json::value(nullptr);
    o["testedOldest"] = a.agent->tested_oldest.empty() ? json::value(nullptr) : json::value(a.agent->tested_oldest);
    o["testedNewest"] = a.agent->tested_newest.empty() ? json::value(nullptr) : json::value(a.agent->tested_newest);
    o["gated"] = a.installed ? json::value(a.gated()) : json::value(nullptr);
    o["verdict"] = a.installed ? json::value(a.verdict()) : json::value(nullptr);
    o["checks"] = checks_json(a.checks);
    agents.push_back(std::move(o));
  }
  return {{"ok", c.ok()},
          {"mcphealth", json::object{{"version", util::version()}, {"commit", util::commit()}}},
          {"agents", std::move(agents)},
          {"common", checks_json(c.common)}};
}



} // namespace mcphealth::ops
