// `mcphealth install --service` and `uninstall --service`: the background prober as a systemd user unit or a
// launchd agent (ops/service.hpp), written, shown (--dry-run) or removed.
#include "install.hpp"

#include "choices.hpp"
#include "output.hpp"

#include <mcphealth/config/server.hpp>
#include <mcphealth/config/variables_file.hpp>
#include <mcphealth/ops/install.hpp>
#include <mcphealth/ops/service.hpp>
#include <mcphealth/util/files.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

namespace mcphealth::cli {

namespace fs = std::filesystem;
namespace json = boost::json;

void add_service_options(CLI::App* sub, const std::shared_ptr<InstallOptions>& o, bool uninstall) {
  CLI::Option* service = sub->add_flag(
      "--service", o->service,
      uninstall
          ? "Remove the background prober's service file that install --service wrote, instead of a hook"
          : "Write the background prober (watch --probe) as a service instead of a hook: a systemd user unit, or a "
            "launchd agent on macOS, with absolute paths, the PATH the agent's hook last ran with, and the "
            "variables your servers' definitions reference named (never their values); prints how to load it");
  sub->add_option("--manager", o->manager, "With --service: systemd or launchd (default: this OS's)")
      ->transform(one_of<ops::ServiceManager>(
          {{"systemd", ops::ServiceManager::systemd}, {"launchd", ops::ServiceManager::launchd}}))
      ->type_name("NAME")
      ->needs(service);
  if (!uninstall) {
    sub->add_flag("--force", o->force,
                  "With --service: replace a service file mcphealth did not write (one made by hand), keeping it as "
                  "a backup beside it (FILE.bak-TIME)")
        ->needs(service);
    sub->add_flag("--no-settings", o->no_settings,
                  "With --service: do not write the settings your shell sets (reconnect commands, TTL, backoff, "
                  "timeouts) into the variables file the service reads; list each, with where to put it")
        ->needs(service);
  }
  // What names an agent's hook has no meaning for the service.
  for (const char* name : {"--agent", "--scope", "--cwd", "--events", "--statusline", "--disable-js-hook", "--no-trust",
                           "--list-agents", "--list-events"}) {
    if (CLI::Option* other = sub->get_option_no_throw(name)) service->excludes(other);
  }
}

namespace {

/// The mcphealth the service runs: --binary (an absolute path: a service has no PATH of the user's), else this one.
util::Result<fs::path> service_binary(const InstallOptions& o, const util::Environment& env) {
  if (o.binary) {
    const fs::path p = fs::absolute(*o.binary).lexically_normal();
    if (o.binary->find('/') == std::string::npos || !util::disk().executable(p))
      return util::fail("--binary: a service needs the path of an executable file, not " + *o.binary);
    return p;
  }
  const auto self = ops::registered_binary(o.invoked_as, env);
  if (!self) return util::fail("cannot tell where this mcphealth is; give it with --binary PATH");
  return *self;
}

int remove_service(const InstallOptions& o, ops::ServiceManager manager, const util::Environment& env) {
  const fs::path path = ops::service_path(manager, util::home_dir(env), env);
  ops::ServiceInputs only_manager;
  only_manager.manager = manager;
  const ops::ServiceFile shape = ops::service_file(only_manager, env);
  auto text = util::read_file(path);
  if (!text) {
    if (o.json)
      print_json(json::object{{"file", path.string()}, {"changed", false}, {"unload", nullptr}});
    else
      say("no %s service file at %s: nothing to remove\n", std::string(ops::manager_name(manager)).c_str(),
          path.c_str());
    return k_exit_ok;
  }
  if (!ops::written_by_mcphealth(*text)) {
    util::log::error(path.string() + " was not written by mcphealth install --service: remove it yourself (" +
                     shape.unload + ")");
    return k_exit_usage;
  }
  if (!o.dry_run) {
    std::error_code ec;
    if (!fs::remove(path, ec) && ec) {
      util::log::error("cannot remove " + path.string() + ": " + ec.message());
      return k_exit_usage;
    }
  }
  if (o.json) {
    print_json(json::object{{"file", path.string()}, {"changed", !o.dry_run}, {"unload", shape.unload}});
  } else {
    say("%s %s\nstop what is running with: %s\n", o.dry_run ? "would remove" : "removed", path.c_str(),
        shape.unload.c_str());
  }
  return k_exit_ok;
}

} // namespace

int run_service(const InstallOptions& o, bool uninstall, const GlobalOptions& globals) {
  util::ProcessEnvironment env;
  const ops::ServiceManager manager = o.manager.value_or(ops::native_service_manager());
  if (uninstall) return remove_service(o, manager, env);
  const auto binary = service_binary(o, env);
  if (!binary) {
    util::log::error(binary.error().message);
    return k_exit_usage;
  }
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  const ops::ServiceInputs in =
      ops::service_inputs(manager, *binary, settings, discovery_for(env, settings, std::nullopt), env);
  if (const auto refused = ops::refused_value(in)) {
    util::log::error("install --service: " + *refused);
    return k_exit_usage;
  }
  const ops::ServiceFile file = ops::service_file(in, env);
  const auto now = util::read_file(file.path);
  const bool changed = !now || *now != file.text;
  // A unit someone made by hand (from an older README's example, say) is theirs: kept, or set aside with --force.
  std::optional<fs::path> set_aside;
  if (now && changed && !ops::written_by_mcphealth(*now)) {
    if (!o.force) {
      util::log::error(file.path.string() + " was not written by mcphealth install --service: it is left as it is; "
                       "--force replaces it, keeping it as a backup beside it");
      return k_exit_usage;
    }
    set_aside = ops::backup_path(file.path.string(), util::SystemClock().now_ms());
  }
  if (!o.dry_run && changed) {
    std::error_code ec;
    if (set_aside) {
      if (auto kept = util::atomic_replace(*set_aside, *now, 0600); !kept) {
        util::log::error("cannot keep a backup of " + file.path.string() + ": " + kept.error().message);
        return k_exit_usage;
      }
    }
    fs::create_directories(file.path.parent_path(), ec);
    if (auto written = util::atomic_replace(file.path, file.text, 0644); !written) {
      util::log::error("cannot write " + file.path.string() + ": " + written.error().message);
      return k_exit_usage;
    }
  }
  // The settings the shell sets: a service started without them would run with no reconnect and the default
  // backoff. Carried into the variables file (never a credential), or, with --no-settings, listed.
  const std::vector<ops::ShellSetting> found = ops::shell_settings(env);
  std::vector<std::pair<std::string, std::string>> wanted;
  std::vector<std::string> secret, listed;
  for (const ops::ShellSetting& s : found) {
    if (s.secret) secret.push_back(s.name);
    else if (o.no_settings) listed.push_back(s.name);
    else wanted.emplace_back(s.name, s.value);
  }
  const auto env_text = util::read_file(file.env_file);
  const config::MergedVariables merged = config::merge_variables(env_text ? *env_text : std::string(), wanted);
  if (!o.dry_run && !merged.added.empty()) {
    std::error_code ec;
    fs::create_directories(file.env_file.parent_path(), ec);
    std::string text = merged.text;
    if (!env_text) {
      text = "# The variables and settings of what mcphealth runs unattended (the service, a probe from cron): one\n"
             "# KEY=value a line, or KEY='value' (a ' inside written '\\''). install --service adds the settings your\n"
             "# shell sets and keeps every line of yours.\n" + text;
    }
    if (auto written = util::atomic_replace(file.env_file, text, 0600); !written) {
      util::log::error("cannot write " + file.env_file.string() + ": " + written.error().message);
      return k_exit_usage;
    }
  }
  if (o.json) {
    json::array variables;
    for (const std::string& v : in.variables) variables.emplace_back(v);
    const auto names = [](const std::vector<std::string>& v) {
      json::array a;
      for (const std::string& n : v) a.emplace_back(n);
      return a;
    };
    json::object out{{"file", file.path.string()},
                     {"manager", ops::manager_name(manager)},
                     {"changed", changed && !o.dry_run},
                     {"binary", in.binary.string()},
                     {"path", in.path},
                     {"pathRecorded", in.path_recorded},
                     {"variables", std::move(variables)},
                     {"envFile", file.env_file.string()},
                     {"load", file.load},
                     {"backup", set_aside ? json::value(set_aside->string()) : json::value(nullptr)},
                     {"settings", json::object{{"carried", names(merged.added)},
                                               {"keptYours", names(merged.kept_other)},
                                               {"credentialNotCopied", names(secret)},
                                               {"notWritten", names(listed)}}}};
    if (o.dry_run) out["text"] = file.text;
    print_json(out);
    return k_exit_ok;
  }
  if (o.dry_run) {
    say("%s (not written: --dry-run):\n", file.path.c_str());
    for (const std::string& line : util::split_lines(file.text)) say("%s\n", line);
    return k_exit_ok;
  }
  say("%s %s\n", changed ? "wrote" : "already in place:", file.path.c_str());
  if (set_aside) say("the file that was there is kept as %s\n", set_aside->c_str());
  if (!in.variables.empty()) {
    say("your servers reference %s: set each in %s (NAME=value lines, chmod 600); the service reads it, nothing copies "
        "it\n",
        join_names(in.variables).c_str(), file.env_file.c_str());
  }
  if (!merged.added.empty()) {
    say("carried your shell's settings into %s: %s\n", file.env_file.c_str(), join_names(merged.added).c_str());
  }
  for (const std::string& k : merged.kept_other) {
    say("%s sets %s already, to another value than your shell's: kept its line\n", file.env_file.c_str(), k.c_str());
  }
  for (const std::string& k : secret) {
    say("%s holds a credential, so it is not copied: put it in %s yourself (chmod 600)\n", k.c_str(),
        file.env_file.c_str());
  }
  for (const ops::ShellSetting& s : found) {
    if (std::find(listed.begin(), listed.end(), s.name) == listed.end()) continue;
    say("your shell sets %s, which the service lacks (--no-settings): put %s in %s%s\n", s.name.c_str(),
        config::variable_line(s.name, s.value).value_or(s.name + "=...").c_str(), file.env_file.c_str(),
        s.policy_key.empty() ? "" : (", or the policy's " + s.policy_key).c_str());
  }
  if (!in.path_recorded) {
    say("PATH is this shell's (no agent's hook has run yet): check it is the one your agent starts servers with\n");
  }
  say("load it with: %s\n", file.load.c_str());
  return k_exit_ok;
}

} // namespace mcphealth::cli
