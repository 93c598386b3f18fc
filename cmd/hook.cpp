#include "hook.hpp"

#include "choices.hpp"
#include "refresh.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/gate/engine.hpp>
#include <mcphealth/hook/shape.hpp>
#include <mcphealth/proc/groups.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string_view>
#include <unistd.h>

namespace mcphealth::cli {

namespace {

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// One write per line, so parallel hooks sharing a stderr never interleave inside a line.
void log_line(std::string_view line) {
  std::string out(hook::k_log_prefix);
  out += util::escape_control(line); // a name or an error from outside never splits the line
  out += '\n';
  write_all(STDERR_FILENO, out);
}

} // namespace

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
  log_line("ignoring the hook's command line (" + message + "); allowing the call");
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
  const bool passthrough = options.output == agent::AnswerMode::passthrough;
  // Every agent's allow is exit 0 with nothing on stdout; Gemini CLI and Copilot CLI block on 129, 139, 143, 153.
  // (Passthrough's allow is the payload echoed, which a signal handler cannot give: there a signal stays 128+N, a
  // non-blocking error to Claude Code, the one agent that chains hooks so.)
  if (!passthrough) proc::allow_on_fatal_signals(0);
  gate::HookRequest request;
  try {
    util::ProcessEnvironment env;
    std::vector<config::SettingWarning> limit_warnings;
    const auto limit = config::resolve_input_max_bytes(env, limit_warnings);
    std::vector<std::string> warnings;
    for (const auto& w : limit_warnings) warnings.push_back(w.text());
    // A person who runs it by hand would otherwise wait on a silent terminal.
    if (::isatty(STDIN_FILENO) == 1) {
      log_line("mcphealth hook reads one hook payload (JSON) on stdin, as an agent sends it; end it with Ctrl-D "
               "(mcphealth --help lists the commands for people)");
    }
    const auto marked = util::lookup_setting(env, "ECC_HOOK_INPUT_TRUNCATED");
    request.input = hook::read_input(STDIN_FILENO, limit.value,
                                     marked && util::is_truthy(marked->value) ? hook::CutByCaller::yes : hook::CutByCaller::no);
    request.event_flag = options.event;
    request.agent = options.agent ? agent::find_agent(*options.agent)
                                  : agent::detect_agent(request.input);
    request.overrides = globals.overrides();
    // For maintainers (scripts/drift): each payload's shape, never its values.
    if (const auto capture = env.get("MCPHEALTH_HOOK_CAPTURE"); capture && !capture->empty())
      hook::capture_shape(*capture, request.client().id, request.input);

    util::SystemClock clock;
    probe::LiveProber prober(clock);
    recover::ShellRunner runner(clock, env);
    gate::HookDeps deps{clock, env, prober, runner, log_line, warnings,
                        [&globals, &request](const std::string& folder, const std::vector<std::string>& servers) {
                          if (!start_detached_refresh(globals, request.client(), folder, servers)) {
                            log_line("could not start a background refresh; the next call probes inline");
                          }
                        }};
    // -v: the decision path, one line per step, on stderr under its own prefix (the [MCPHealthCheck] lines are a
    // contract; these are for people). -vv: each step with the time since the hook started.
    // In exit-code and passthrough modes a block's stderr is the model's text: there the trace is held back and
    // printed only when the call is allowed (Claude Code then shows stderr to the user alone).
    const auto started = std::chrono::steady_clock::now();
    const bool stderr_reaches_model = options.output == agent::AnswerMode::exit_code || passthrough;
    std::string held_trace;
    if (globals.verbosity >= 1) {
      deps.trace = [&globals, started, stderr_reaches_model, &held_trace](std::string_view step) {
        std::string line = "[mcphealth";
        if (globals.verbosity >= 2) {
          const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
          char buf[32];
          std::snprintf(buf, sizeof buf, " +%.2fms", static_cast<double>(us.count()) / 1000.0);
          line += buf;
        }
        line += "] " + util::escape_control(step) + "\n";
        if (stderr_reaches_model) held_trace += line;
        else write_all(STDERR_FILENO, line);
      };
    }
    const hook::HookOutcome outcome = gate::run_hook_engine(request, deps);

    const bool blocked = outcome.decision == hook::HookOutcome::Decision::block;
    if (!blocked) write_all(STDERR_FILENO, held_trace);
    if (passthrough) {
      write_all(STDOUT_FILENO, request.input.raw);
      return blocked ? 2 : 0;
    }
    if (options.output == agent::AnswerMode::exit_code) return blocked ? 2 : 0;
    const agent::Answer answer = request.client().dialect.answer_json(outcome);
    write_all(STDOUT_FILENO, answer.out);
    if (!answer.err.empty()) write_all(STDERR_FILENO, util::escape_control(answer.err) + "\n");
    return answer.exit_code;
  } catch (const std::exception& e) {
    log_line(std::string("Unexpected error: ") + e.what() + "; allowing the call");
  } catch (...) {
    log_line("Unexpected error of an unknown kind; allowing the call");
  }
  if (passthrough) write_all(STDOUT_FILENO, request.input.raw);
  return request.client().allow_exit_code;
}

} // namespace mcphealth::cli
