#include "hook.hpp"

#include "choices.hpp"
#include "refresh.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <memory>
#include <string>
#include <unistd.h>
#include <variant>
#include <vector>

namespace mcphealth::cli {

void register_hook(CLI::App& app, CommandLine& command_line) {
  auto options = std::make_shared<HookOptions>();
  CLI::App* sub = app.add_subcommand("hook", "Run as a coding agent's hook: one payload on stdin, a decision out");
  sub->add_option("--output", options->output,
                  "How to answer: json (the agent's hook JSON; default), exit-code (block = exit 2, reason on "
                  "stderr), passthrough (echo the input; block = exit 2)")
      ->type_name("MODE")
      ->transform(one_of<agent::AnswerMode>({{"json", agent::AnswerMode::json},
                                             {"exit-code", agent::AnswerMode::exit_code},
                                             {"passthrough", agent::AnswerMode::passthrough}}));
  sub->add_option("--event", options->event, "Event to handle (" + agent::per_agent([](const agent::Agent& a) {
                                               std::string names;
                                               for (std::string_view e : a.dialect.event_names())
                                                 names += (names.empty() ? "" : ", ") + std::string(e);
                                               return names;
                                             }) + "); default: the payload's own name for it")
      ->type_name("EVENT");
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  sub->add_option("--agent", options->agent,
                  "The agent whose hook this is (" + agent::agent_ids() + "); default: told from the payload, else claude-code")
      ->type_name("ID")
      ->check(one_of_words(ids));
  sub->footer("Never blocks by accident: bad options and internal errors allow the call with a message on stderr.");
  sub->callback([options, &command_line] { command_line.exit_code = run_hook(*options, command_line.globals); });
}

int hook_usage_error(const std::string& message, bool passthrough) {
  hook_log_line("ignoring the hook's command line (" + message + "); allowing the call");
  std::string raw;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(STDIN_FILENO, buf, sizeof buf)) > 0) {
    if (passthrough) raw.append(buf, static_cast<std::size_t>(n));
  }
  if (passthrough) write_all(STDOUT_FILENO, raw);
  return 0;
}

int run_hook(const HookOptions& options, const GlobalOptions& globals) {
  util::SystemClock clock;
  util::ProcessEnvironment env;
  probe::LiveProber prober(clock);
  recover::ShellRunner runner(clock, env);
  HookEffects effects{prober, runner,
                      [&globals](const agent::Agent& agent, const std::string& folder,
                                 const std::vector<std::string>& servers, gate::Refreshing why) {
                        return start_detached_refresh(globals, agent, folder, servers, why);
                      }};
  return std::get<int>(run_hook_within(options, globals, &effects));
}

} // namespace mcphealth::cli
