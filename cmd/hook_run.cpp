#include "hook_run.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/gate/engine.hpp>
#include <mcphealth/hook/shape.hpp>
#include <mcphealth/proc/groups.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <unistd.h>

namespace mcphealth::cli {

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void hook_log_line(std::string_view line) {
  std::string out(hook::k_log_prefix);
  // A name or an error from outside never splits the line, and never shows a secret (in exit-code mode the model
  // reads these lines).
  out += util::escape_control(util::redact(line));
  out += '\n';
  write_all(STDERR_FILENO, out);
}

std::optional<HookOptions> plain_hook_command(int argc, const char* const* argv) {
  if (argc < 2 || std::string_view(argv[1]) != "hook") return std::nullopt;
  if (argc == 2) return HookOptions{};
  if (argc == 4 && std::string_view(argv[2]) == "--agent" && agent::find_agent(argv[3]) != nullptr) {
    HookOptions options;
    options.agent = std::string(argv[3]);
    return options;
  }
  return std::nullopt;
}

namespace {

/// Thrown by a read-only run's seams at the first step beyond reading. Not a std::exception, so nothing between the
/// seam and run_hook_within catches it (the engine catches nothing). tests/cli/test_front.sh checks that a call
/// handed on has written nothing and said nothing before.
struct NeedsFullRun {};

/// The front's one seam for everything beyond reading: the state file is read, and a write, a lock, a history
/// line, a probe or a command needs the full binary.
class ReadOnly final : public state::Store, public probe::Prober, public recover::CommandRunner {
public:
  ReadOnly(std::filesystem::path path, util::Clock& clock) : m_file(std::move(path), clock) {}
  const std::filesystem::path& path() const override { return m_file.path(); }
  state::StateSnapshot read() const override { return m_file.read(); }
  state::StateSnapshot read_lazily() const override { return m_file.read_lazily(); }
  state::UpdateResult update(const Mutator&, std::int64_t, const state::Touches&) override { throw NeedsFullRun{}; }
  std::optional<state::FolderBindings> bindings(std::string_view folder) const override { return m_file.bindings(folder); }
  util::Result<void> bind(std::string_view, const state::FolderBind&, util::EpochMs) override { throw NeedsFullRun{}; }
  util::Result<util::RecordLock, util::LockError> lock_probe(std::string_view, std::int64_t) override {
    throw NeedsFullRun{};
  }
  std::optional<std::string> append_history(const std::vector<state::HistoryEvent>&) override { throw NeedsFullRun{}; }
  probe::ProbeResult probe(const config::ResolvedServer&, const probe::ProbeSpec&) override { throw NeedsFullRun{}; }
  proc::CommandResult run_shell(const std::string&, std::string_view, std::int64_t, std::string_view) override {
    throw NeedsFullRun{};
  }
  proc::CommandResult run_argv(const std::vector<std::string>&, std::string_view, std::int64_t) override {
    throw NeedsFullRun{};
  }

private:
  state::StateStore m_file;
};

} // namespace

std::variant<int, HookHandOff> run_hook_within(const HookOptions& options, const GlobalOptions& globals,
                                               HookEffects* effects) {
  const bool passthrough = options.output == agent::AnswerMode::passthrough;
  const bool read_only = effects == nullptr;
  // Every agent's allow is exit 0 with nothing on stdout; Gemini CLI and Copilot CLI block on 129, 139, 143, 153.
  // (Passthrough's allow is the payload echoed, which a signal handler cannot give: there a signal stays 128+N, a
  // non-blocking error to Claude Code, the one agent that chains hooks so.)
  if (!passthrough) proc::allow_on_fatal_signals(0);
  gate::HookRequest request;
  bool input_read = false;
  // In a read-only run every line is held until the call is decided here: a call handed on says nothing twice.
  std::vector<std::string> held_log;
  const auto log = [read_only, &held_log](std::string_view line) {
    if (read_only) held_log.emplace_back(line);
    else hook_log_line(line);
  };
  const auto hand_off = [&request] { return HookHandOff{std::move(request.input.raw), request.input.incomplete}; };
  try {
    util::ProcessEnvironment env;
    std::vector<config::SettingWarning> limit_warnings;
    const auto limit = config::resolve_input_max_bytes(env, limit_warnings);
    std::vector<std::string> warnings;
    for (const auto& w : limit_warnings) warnings.push_back(w.text());
    // A person who runs it by hand would otherwise wait on a silent terminal.
    if (::isatty(STDIN_FILENO) == 1) {
      hook_log_line("mcphealth hook reads one hook payload (JSON) on stdin, as an agent sends it; end it with Ctrl-D "
                    "(mcphealth --help lists the commands for people)");
    }
    const auto marked = util::lookup_setting(env, "ECC_HOOK_INPUT_TRUNCATED");
    request.input = hook::read_input(STDIN_FILENO, limit.value,
                                     marked && util::is_truthy(marked->value) ? hook::CutByCaller::yes : hook::CutByCaller::no);
    input_read = true;
    request.event_flag = options.event;
    request.agent = options.agent ? agent::find_agent(*options.agent)
                                  : agent::detect_agent(request.input);
    request.overrides = globals.overrides();
    // For maintainers (scripts/drift): each payload's shape, never its values.
    if (const auto capture = env.get("MCPHEALTH_HOOK_CAPTURE"); capture && !capture->empty()) {
      if (read_only) return hand_off();
      hook::capture_shape(*capture, request.client().id, request.input);
    }

    util::SystemClock clock;
    // The full run's effects, or the front's one seam that refuses every one of them.
    std::optional<ReadOnly> reads_only;
    if (read_only) reads_only.emplace(config::resolve_state_path(env, request.overrides).value, clock);
    gate::HookDeps deps{clock,
                        env,
                        effects ? effects->prober : static_cast<probe::Prober&>(*reads_only),
                        effects ? effects->runner : static_cast<recover::CommandRunner&>(*reads_only),
                        log,
                        warnings,
                        [&request, effects, &log](const std::string& folder, const std::vector<std::string>& servers,
                                                  gate::Refreshing why) {
                          if (!effects) throw NeedsFullRun{};
                          if (!effects->start_refresh || !effects->start_refresh(request.client(), folder, servers, why)) {
                            log("could not start a background refresh; the next call probes inline");
                          }
                        }};
    if (read_only) deps.store = &*reads_only;
    // -v: the decision path, one line per step, on stderr under its own prefix (the [MCPHealthCheck] lines are a
    // contract; these are for people). -vv: each step with the time since the hook started.
    // In exit-code and passthrough modes a block's stderr is the model's text: there the trace is held back and
    // printed only when the call is allowed (Claude Code then shows stderr to the user alone). A read-only run
    // holds it too, as it holds its lines.
    const auto started = std::chrono::steady_clock::now();
    const bool stderr_reaches_model = options.output == agent::AnswerMode::exit_code || passthrough;
    const bool hold_trace = stderr_reaches_model || read_only;
    std::string held_trace;
    if (globals.verbosity >= 1) {
      deps.trace = [&globals, started, hold_trace, &held_trace](std::string_view step) {
        std::string line = "[mcphealth";
        if (globals.verbosity >= 2) {
          const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
          char buf[32];
          std::snprintf(buf, sizeof buf, " +%.2fms", static_cast<double>(us.count()) / 1000.0);
          line += buf;
        }
        line += "] " + util::escape_control(util::redact(step)) + "\n";
        if (hold_trace) held_trace += line;
        else write_all(STDERR_FILENO, line);
      };
    }
    const hook::HookOutcome outcome = gate::run_hook_engine(request, deps);

    for (const std::string& line : held_log) hook_log_line(line);
    const bool blocked = outcome.decision == hook::HookOutcome::Decision::block;
    if (!blocked || !stderr_reaches_model) write_all(STDERR_FILENO, held_trace);
    if (passthrough) {
      write_all(STDOUT_FILENO, request.input.raw);
      return blocked ? 2 : 0;
    }
    if (options.output == agent::AnswerMode::exit_code) return blocked ? 2 : 0;
    const agent::Answer answer = request.client().dialect.answer_json(outcome);
    write_all(STDOUT_FILENO, answer.out);
    if (!answer.err.empty()) write_all(STDERR_FILENO, util::escape_control(answer.err) + "\n");
    return answer.exit_code;
  } catch (const NeedsFullRun&) {
    return hand_off();
  } catch (const std::exception& e) {
    // The full binary says what went wrong, and allows the call, if it meets the same.
    if (read_only && input_read) return hand_off();
    hook_log_line(std::string("Unexpected error: ") + e.what() + "; allowing the call");
  } catch (...) {
    if (read_only && input_read) return hand_off();
    hook_log_line("Unexpected error of an unknown kind; allowing the call");
  }
  if (passthrough) write_all(STDOUT_FILENO, request.input.raw);
  return request.client().allow_exit_code;
}

} // namespace mcphealth::cli
