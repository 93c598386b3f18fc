#include "doctor.hpp"

#include "choices.hpp"
#include "output.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/ops/doctor.hpp>
#include <mcphealth/util/version.hpp>
#include <mcphealth/util/json.hpp>

#include <cstdio>

namespace mcphealth::cli {

void register_doctor(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<DoctorOptions>();
  CLI::App* sub = app.add_subcommand("doctor", "Is the gate on? Check each agent's hook, its version, and the state file");
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  sub->add_option("--agent", o->agents,
                  "Check these agents (repeatable) even when not found here: " + agent::agent_ids() +
                      " (default: every agent found on this machine)")
      ->type_name("ID")
      ->check(one_of_words(ids));
  sub->add_option("--cwd", o->cwd, "Project dir whose files count (default: $CLAUDE_PROJECT_DIR, else the current dir)")
      ->type_name("DIR")
      ->check(existing_folder());
  sub->add_flag("--json", o->json, "Print the checkup as JSON");
  sub->footer("Runs each agent's `--version` and the registered hook's `mcphealth --version`; changes nothing.\nExit: 0 "
              "every agent found is gated and the state file can be kept, 1 one is not (or no agent was found), 2 "
              "usage error.");
  sub->callback([o, &command_line] { command_line.exit_code = run_doctor(*o, command_line.globals); });
}

namespace {

Cell mark(ops::Check::Verdict v) {
  switch (v) {
  case ops::Check::Verdict::ok: return {"✔", Color::green};
  case ops::Check::Verdict::note: return {"!", Color::yellow};
  case ops::Check::Verdict::problem: return {"✘", Color::red};
  }
  return {"?", Color::none};
}

void print_checks(const std::vector<ops::Check>& checks, bool color, std::optional<std::size_t> width) {
  for (const ops::Check& c : checks) {
    // The mark's colour is ours, so printed as it is (say() would escape it); the words from outside are escaped.
    std::printf("  %s %s: ", paint(mark(c.verdict), color).c_str(), c.what.c_str());
    const std::size_t used = 4 + c.what.size() + 2;
    std::printf("%s\n", wrap_words(util::escape_control(tilde(c.found)), width, used, "      ").c_str());
    if (!c.fix.empty()) {
      std::printf("      fix: %s\n", wrap_words(util::escape_control(c.fix), width, 11, "      ").c_str());
    }
  }
}

} // namespace

int run_doctor(const DoctorOptions& o, const GlobalOptions& globals) {
  util::ProcessEnvironment env;
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  recover::ShellRunner runner(clock, env);
  std::vector<const agent::Agent*> only;
  for (const auto& id : o.agents) only.push_back(agent::find_agent(id));
  const ops::Checkup checkup = ops::run_checkup({.env = env,
                                                 .settings = settings,
                                                 .base = discovery_for(env, settings, o.cwd),
                                                 .only = only,
                                                 .runner = runner,
                                                 .clock = clock});
  const int code = checkup.ok() ? k_exit_ok : k_exit_unhealthy;
  if (o.json) {
    print_json(ops::checkup_json(checkup));
    return code;
  }
  const bool color = use_color(stdout);
  const auto width = terminal_width();
  std::vector<std::string> absent, gated, open;
  for (const ops::AgentCheckup& a : checkup.agents) {
    const std::string name(a.agent->name);
    if (!a.installed) {
      absent.push_back(name);
      continue;
    }
    (a.gated() ? gated : open).push_back(name);
    const std::string title = name + (a.version ? " " + *a.version : std::string()) + ": ";
    say("%s", title);
    std::printf("%s\n", paint(Cell{std::string(a.verdict()), a.gated() ? Color::green : a.trust_unverified ? Color::yellow : Color::red}, color).c_str());
    print_checks(a.checks, color, width);
  }
  say("mcphealth %s, commit %s\n", std::string(util::version()).c_str(), std::string(util::commit()).c_str());
  say("state:\n");
  print_checks(checkup.common, color, width);
  if (!absent.empty()) say("not on this machine: %s\n", join_names(absent));
  if (gated.empty() && open.empty()) {
    say("no agent found on this machine (looked for %s); name one with --agent\n", agent::agent_ids());
  } else if (open.empty() && checkup.ok()) {
    say("the gate is on for %s\n", join_names(gated));
  } else {
    say("the gate is NOT on for every agent: %s %s\n", open.empty() ? "the state file" : join_names(open),
        open.size() > 1 ? "need the fixes above" : "needs the fix above");
  }
  return code;
}

} // namespace mcphealth::cli
