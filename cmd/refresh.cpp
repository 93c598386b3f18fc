#include "refresh.hpp"

#include "choices.hpp"
#include "output.hpp"

#include <mcphealth/config/policy.hpp>
#include <mcphealth/ops/refresh.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/log.hpp>

#include <csignal>
#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

namespace mcphealth::cli {

void register_refresh(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<RefreshOptions>();
  CLI::App* sub = app.add_subcommand(
      "refresh", "Re-probe the servers of a folder whose marks are missing or stale (the hook starts this detached)");
  sub->add_option("servers", o->servers, "Only these servers (as tool names spell them)")->type_name("SERVER");
  sub->add_option("--project", o->project, "The folder (default: $CLAUDE_PROJECT_DIR, else the current dir)")
      ->type_name("DIR");
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  sub->add_option("--agent", o->agent, "Whose servers: " + agent::agent_ids() + " (default: claude-code)")
      ->type_name("ID")
      ->check(one_of_words(ids));
  sub->add_flag("--look-again", o->look_again,
                "Also look at a down server before its backoff ends, when its last look is older than its base backoff "
                "(2 to 10 s); no reconnect runs. The hook asks for this when it blocks a call");
  sub->footer("A server another process is probing is skipped (its result will do); one with a fresh mark too. "
              "Runs at nice 10 (its probes too): it is background work, and the agent's calls come first. "
              "Exit: 0 nothing refreshed is down, 1 something is, 2 usage error.");
  sub->callback([o, &command_line] { command_line.exit_code = run_refresh(*o, command_line.globals); });
}

int run_refresh(const RefreshOptions& o, const GlobalOptions& globals) {
  // Background work: on a busy machine the hook calls that did not wait for this refresh should not wait for its
  // CPU either. The servers it starts inherit the priority.
  ::setpriority(PRIO_PROCESS, 0, 10);
  util::ProcessEnvironment env;
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  // However a server behaves, this ends: one probe, one reconnect and one re-probe per server at the most, and
  // then the alarm (its default action ends us; the probe's child dies with us through its parent-death signal).
  // The policy may give a server longer timeouts than the environment does.
  const config::Policy policy = config::load_policy(settings.policy_path, env, util::disk(), std::nullopt);
  ::alarm(static_cast<unsigned>(policy.longest_recovery_ms(settings) / 1000 + 10));
  probe::LiveProber prober(clock);
  recover::ShellRunner runner(clock, env);
  const agent::Agent* agent = o.agent ? agent::find_agent(*o.agent) : nullptr;
  const ops::RefreshReport report = ops::refresh_stale({o.servers, agent ? agent : &agent::default_agent(), o.look_again}, settings,
                                                       discovery_for(env, settings, o.project), env, clock, prober, runner);
  for (const auto& line : report.lines) say("%s\n", line.c_str());
  return report.any_down ? k_exit_unhealthy : k_exit_ok;
}

bool start_detached_refresh(const GlobalOptions& globals, const agent::Agent& agent, const std::string& folder,
                            const std::vector<std::string>& servers, gate::Refreshing why) {
  const std::string self = platform::own_executable().string();
  if (self.empty()) return false;
  std::vector<std::string> args{self};
  if (globals.state) args.insert(args.end(), {"--state", *globals.state});
  for (const auto& c : globals.configs) args.insert(args.end(), {"--config", c});
  if (globals.policy) args.insert(args.end(), {"--policy", *globals.policy});
  args.insert(args.end(), {"refresh", "--project", folder});
  if (&agent != &agent::default_agent()) args.insert(args.end(), {"--agent", std::string(agent.id)});
  if (why == gate::Refreshing::look_again) args.emplace_back("--look-again");
  args.emplace_back("--");
  args.insert(args.end(), servers.begin(), servers.end());
  return proc::spawn_detached(self, args);
}

} // namespace mcphealth::cli
