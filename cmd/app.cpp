#include "app.hpp"

#include "choices.hpp"
#include "common.hpp"
#include "doctor.hpp"
#include "explain_config.hpp"
#include "hook.hpp"
#include "install.hpp"
#include "policy.hpp"
#include "probe.hpp"
#include "refresh.hpp"
#include "report.hpp"
#include "reset.hpp"
#include "status.hpp"
#include "watch.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/groups.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>
#include <mcphealth/util/version.hpp>

#include <CLI/CLI.hpp>

#include <ios>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace mcphealth::cli {

namespace {

/// Exit code for an unexpected internal error in a subcommand other than the hook.
constexpr int k_exit_internal = 3;

/// Every subcommand, in the order `--help` lists them.
struct Command {
  const char* name;
  void (*register_fn)(CLI::App&, CommandLine&);
};
constexpr Command k_commands[] = {
    {"hook", register_hook},
    {"probe", register_probe},
    {"status", register_status},
    {"report", register_report},
    {"doctor", register_doctor},
    {"reset", register_reset},
    {"explain-config", register_explain_config},
    {"policy", register_policy},
    {"refresh", register_refresh},
    {"watch", register_watch},
    {"install", register_install},
    {"uninstall", register_uninstall},
};

/// The position of the first word that is not an option (or a root option's value): the subcommand, when it is
/// one; 0 when there is none.
int command_index(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--state" || arg == "--config" || arg == "--policy") {
      ++i;
      continue;
    }
    if (!arg.empty() && arg[0] == '-') continue;
    return i;
  }
  return 0;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command& c : k_commands) names.emplace_back(c.name);
  return names;
}

/// " (did you mean X?)" when `word` looks like a typo of one of `candidates`, else nothing.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto match = util::closest_match(word, candidates);
  return match ? " (did you mean " + *match + "?)" : std::string();
}

/// Every spelling of `sub`'s options: `--json`, `-q`, ...
std::vector<std::string> option_spellings(const CLI::App& sub) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const auto& n : opt->get_lnames()) out.push_back("--" + n);
    for (const auto& n : opt->get_snames()) out.push_back("-" + n);
  }
  return out;
}

/// A parse error as one line with the `mcphealth:` prefix. Words left over are named in our words, an unknown
/// option first, with the option it was probably meant to be.
std::string usage_message(const CLI::ParseError& e, const CLI::App& app, std::string_view command) {
  std::string message = e.what();
  // Say which commands there are: "A subcommand is required" alone leaves the user to find them.
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && command.empty() &&
      message.find("subcommand") != std::string::npos) {
    message = "a command is required (commands: " + join_names(command_names()) + ")";
  }
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (s->get_name() == command) sub = s;
  }
  constexpr std::string_view k_extras = "not expected: ";
  if (const std::size_t at = message.find(k_extras); at != std::string::npos) {
    const std::vector<std::string> extras = util::shell_words(message.substr(at + k_extras.size()));
    const auto option = std::find_if(extras.begin(), extras.end(), [](const std::string& w) { return w.size() > 1 && w[0] == '-'; });
    if (option != extras.end()) {
      message = "unknown option " + *option + (sub ? did_you_mean(*option, option_spellings(*sub)) : std::string());
    } else {
      std::string words;
      for (const auto& w : extras) words += (words.empty() ? "" : " ") + w;
      message = "unexpected argument" + std::string(extras.size() > 1 ? "s: " : ": ") + words;
    }
  }
  const std::string help = command.empty() ? "mcphealth --help" : "mcphealth help " + std::string(command);
  return "mcphealth: " + message + "\nRun '" + help + "' for the options.";
}

} // namespace

int mcphealth_main(int argc, char** argv) {
  // Once, for every command: a probed server that closes its stdin must not kill us when we write to it, and a
  // signal that ends us (a hook past Claude Code's timeout, Ctrl-C) ends the process groups we started first.
  std::signal(SIGPIPE, SIG_IGN);
  proc::end_groups_on_signals();
  // Started by the front (cmd/front.cpp): hooks and services are to name it, not this file. Unset, so that nothing
  // this process starts inherits it.
  // Where the OS cannot tell a program its own file, argv[0] says it (platform::own_executable; adopt_front).
  platform::set_program_name(argc > 0 ? argv[0] : nullptr);
  if (const char* front = std::getenv(ops::k_front_variable)) {
    ops::adopt_front(front);
    ::unsetenv(ops::k_front_variable);
  }
  CommandLine command_line;
  if (argc > 0 && argv[0] != nullptr) command_line.invoked_as = argv[0];
  // Claude Code runs the hook as exactly `mcphealth hook`, and install writes `mcphealth hook --agent ID`. With
  // nothing to parse there is no CLI to build (CLI11's option setup is most of what start-up costs over a no-op).
  if (const std::optional<HookOptions> plain = plain_hook_command(argc, argv))
    return run_hook(*plain, command_line.globals);

  // The standard streams, which CLI11 prints --help and its errors through: built here, not before main for every
  // hook call (cmd/lazy_iostream/iostream).
  static const std::ios_base::Init k_streams;
  std::vector<std::string> agent_names; // from the table: a new agent is named here without an edit
  for (const agent::Agent* a : agent::agents()) agent_names.emplace_back(a->name);
  CLI::App app{"mcphealth: keeps coding agents (" + util::join(agent_names, ", ") +
                   ") from calling dead MCP servers: a hook with a health cache, probes, reconnects",
               "mcphealth"};
  app.set_version_flag("--version", "mcphealth " + std::string(util::version()));
  // `--version -v`: the commit too, on a line of its own (scripts and doctor read the first line alone).
  const std::vector<std::string_view> words(argv + 1, argv + argc);
  const auto has = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  if (has("--version") && (has("-v") || has("--verbose"))) {
    std::printf("mcphealth %s\ncommit %s\n", std::string(util::version()).c_str(), std::string(util::commit()).c_str());
    return 0;
  }
  app.add_option("--state", command_line.globals.state,
                 "State file, in a folder that exists (default: $MCPHEALTH_STATE_PATH or $ECC_MCP_HEALTH_STATE_PATH, "
                 "else ~/.claude/mcp-health-cache.json)")
      ->type_name("PATH")
      ->check(in_existing_folder());
  app.add_option("--config", command_line.globals.configs,
                 "MCP config file to read instead of searching Claude Code's places (repeatable)")
      ->type_name("PATH");
  app.add_option("--policy", command_line.globals.policy,
                 "Per-server policy file, which must exist (default: $MCPHEALTH_POLICY, else "
                 "$XDG_CONFIG_HOME/mcphealth/policy.json or ~/.config/mcphealth/policy.json)")
      ->type_name("PATH")
      ->check(existing_file());
  app.add_flag("-v,--verbose", command_line.globals.verbosity, "Say more on stderr (-vv: debug, with time and level)");
  // Global options after the command too (`status -v`, `probe --state F`), as git and kubectl take them.
  app.fallthrough();
  app.require_subcommand(1);
  app.parse_complete_callback([&command_line] { util::log::configure(command_line.globals.verbosity); });

  // `mcphealth help [COMMAND]` is `mcphealth [COMMAND] --help`.
  const int at = command_index(argc, argv);
  std::vector<char*> args(argv, argv + argc);
  std::string help_flag = "--help";
  if (at > 0 && std::string_view(argv[at]) == "help") {
    args.erase(args.begin() + at);
    args.push_back(help_flag.data());
  }
  argc = static_cast<int>(args.size());
  argv = args.data();

  // The hook runs before every MCP tool call: when it is the one asked for, build only its part of the tree.
  const int chosen_at = command_index(argc, argv);
  const std::string_view chosen = chosen_at > 0 ? std::string_view(argv[chosen_at]) : std::string_view();
  bool only_one = false;
  for (const Command& c : k_commands) only_one = only_one || chosen == c.name;
  for (const Command& c : k_commands) {
    if (!only_one || chosen == c.name) c.register_fn(app, command_line);
  }

  if (!chosen.empty() && !only_one) {
    const std::vector<std::string> names = command_names();
    std::fprintf(stderr, "mcphealth: unknown command '%.*s'%s (commands: %s; see mcphealth --help)\n",
                 static_cast<int>(chosen.size()), chosen.data(), did_you_mean(chosen, names).c_str(),
                 join_names(names).c_str());
    return k_exit_usage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e); // --help, --version
    if (chosen == "hook") {
      bool passthrough = false;
      for (int i = 1; i < argc; ++i) passthrough = passthrough || std::strstr(argv[i], "passthrough") != nullptr;
      return hook_usage_error(e.what(), passthrough);
    }
    std::fprintf(stderr, "%s\n", usage_message(e, app, chosen).c_str());
    return k_exit_usage;
  } catch (const std::exception& e) {
    // The hook catches its own errors (it must allow the call); anything reaching here is another command's bug.
    util::log::error(std::string("internal error: ") + e.what());
    return k_exit_internal;
  }
  return command_line.exit_code;
}

} // namespace mcphealth::cli
