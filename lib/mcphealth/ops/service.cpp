#include <mcphealth/ops/service.hpp>

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/ops/probe.hpp>
#include <mcphealth/ops/status.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/files.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>
#include <mcphealth/util/version.hpp>

#include <algorithm>
#include <unistd.h>

namespace mcphealth::ops {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_unit = "mcphealth-watch.service";
constexpr std::string_view k_label = "com.mcphealth.watch";
/// The first words of every file mcphealth writes, so that uninstall knows it.
constexpr std::string_view k_written_by = "Written by mcphealth install";
/// The setting that lets every call through when the hook fails: a debugging aid, never for a service.
constexpr std::string_view k_fail_open = "FAIL_OPEN";

/// Where a word goes in a unit: an argument of a command line (ExecStart=), where systemd expands `$` as well as
/// `%`; or the program's path, or an assignment (Environment=), where `$` is only itself.
enum class UnitField { argument, literal };

/// One word of a systemd command line or assignment: quoted when it holds a space, a quote or a backslash; `%`
/// doubled, and `$` in a command's argument, which systemd would otherwise expand; a control character as its C escape,
/// so that no value ends its line (install refuses such values before: refused_value).
std::string systemd_word(std::string_view word, UnitField field) {
  std::string out;
  bool quote = word.empty();
  for (char c : word) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static constexpr char k_hex[] = "0123456789abcdef";
      out += "\\x";
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xf];
      quote = true;
      continue;
    }
    if (c == '%' || (c == '$' && field == UnitField::argument)) out += c;
    if (c == '"' || c == '\\') out += '\\';
    if (c == ' ' || c == '\t' || c == '"' || c == '\\' || c == '\'') quote = true;
    out += c;
  }
  return quote ? "\"" + out + "\"" : out;
}

/// A path for EnvironmentFile=, which systemd takes whole and unquoted (quotes would be part of the name): `%`
/// doubled.
std::string systemd_path(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == '%') out += c;
    out += c;
  }
  return out;
}

/// Text for an XML comment, which may not hold `--` (a path or a variable's name may).
std::string xml_comment(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
    out += c;
  }
  return out;
}

std::string xml_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// The prober's command line: the binary, the state file when it is not the default, and `watch --probe`.
std::vector<std::string> watch_arguments(const ServiceInputs& in) {
  std::vector<std::string> args{in.binary.string()};
  if (in.state) args.insert(args.end(), {"--state", in.state->string()});
  args.insert(args.end(), {"watch", "--probe", "--events", "--interval", "60"});
  return args;
}

/// The comment lines on the PATH and the variables, without the comment marks.
std::vector<std::string> environment_notes(const ServiceInputs& in, const fs::path& env_file) {
  std::vector<std::string> notes;
  notes.push_back(
      in.path_recorded
          ? "PATH: the one the agent's hook last ran with, so servers are found where the agent finds them."
          : "PATH: the shell's that wrote this file (no agent's hook has run yet): check it is the agent's.");
  if (in.variables.empty()) {
    notes.push_back("No server definition references a variable; should one come to, set it in " + env_file.string() +
                    ".");
  } else {
    notes.push_back("The servers' definitions reference " + util::join(in.variables, ", ") +
                    ". A service does not read");
    notes.push_back("your shell profile: set each in " + env_file.string() + ", one NAME=value per line, readable by");
    notes.push_back("you alone (chmod 600). Their values are never copied here.");
  }
  return notes;
}

std::string systemd_unit(const ServiceInputs& in, const fs::path& env_file, const std::string& load) {
  std::string t;
  t += "# " + std::string(k_written_by) + " --service (mcphealth " + std::string(util::version()) +
       "): the background\n";
  t += "# prober, which keeps every server's verdict fresh so the hook answers from its cache. Remove it with\n";
  t += "# `mcphealth uninstall --service`; `mcphealth doctor` checks it.\n";
  t += "# Load: " + load + "\n";
  t += "# Events, one JSON line per transition: journalctl --user -u mcphealth-watch -o cat\n";
  t += "[Unit]\nDescription=mcphealth: keep MCP servers' health fresh for coding agents\n";
  // Only where the page is installed: `systemd-analyze verify` fails on a man page it cannot find.
  if (in.man_page_installed) t += "Documentation=man:mcphealth(1)\n";
  t += "\n";
  t += "[Service]\nType=simple\n";
  std::string exec;
  for (const std::string& a : watch_arguments(in)) {
    exec += exec.empty() ? systemd_word(a, UnitField::literal) : " " + systemd_word(a, UnitField::argument);
  }
  t += "ExecStart=" + exec + "\n";
  for (const std::string& n : environment_notes(in, env_file)) t += "# " + n + "\n";
  t += "Environment=" + systemd_word("PATH=" + in.path, UnitField::literal) + "\n";
  t += "EnvironmentFile=-" + systemd_path(env_file.string()) + "\n";
  t += "Restart=on-failure\nRestartSec=10\nKillMode=mixed\nTimeoutStopSec=15\n\n";
  t += "[Install]\nWantedBy=default.target\n";
  return t;
}

std::string launchd_plist(const ServiceInputs& in, const fs::path& env_file, const std::string& load) {
  std::string t =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
      "<!--\n";
  // No `--` in a comment: the options are named in words.
  t += "  " + std::string(k_written_by) + " with its service option (mcphealth " + std::string(util::version()) +
       "): the\n";
  t += "  background prober, which keeps every server's verdict fresh so the hook answers from its cache. Remove it\n";
  t += "  with mcphealth uninstall and the same option; mcphealth doctor checks it. Every path is absolute: launchd\n";
  t += "  expands no ~.\n";
  t += "  Load: " + xml_comment(load) + "\n";
  // launchd has no environment file: a shell reads it, then becomes the prober.
  t += "  launchd reads no file of variables: /bin/sh reads " + xml_comment(env_file.string()) + " when it exists,\n";
  t += "  then becomes mcphealth.\n";
  for (const std::string& n : environment_notes(in, env_file)) t += "  " + xml_comment(n) + "\n";
  t += "-->\n<plist version=\"1.0\">\n<dict>\n";
  t += "  <key>Label</key>\n  <string>" + std::string(k_label) + "</string>\n";
  t += "  <key>ProgramArguments</key>\n  <array>\n";
  std::vector<std::string> args{"/bin/sh", "-c",
                                "if [ -r \"$1\" ]; then set -a; . \"$1\"; set +a; fi; shift; exec \"$@\"",
                                "mcphealth-watch", env_file.string()};
  for (const std::string& a : watch_arguments(in)) args.push_back(a);
  for (const std::string& a : args) t += "    <string>" + xml_text(a) + "</string>\n";
  t += "  </array>\n";
  t += "  <key>EnvironmentVariables</key>\n  <dict>\n";
  t += "    <key>HOME</key>\n    <string>" + xml_text(in.home.string()) + "</string>\n";
  t += "    <key>PATH</key>\n    <string>" + xml_text(in.path) + "</string>\n";
  t += "  </dict>\n";
  t += "  <key>RunAtLoad</key>\n  <true/>\n  <key>KeepAlive</key>\n  <true/>\n";
  const fs::path logs = in.home / "Library" / "Logs";
  t += "  <key>StandardOutPath</key>\n  <string>" + xml_text((logs / "mcphealth-watch.log").string()) + "</string>\n";
  t += "  <key>StandardErrorPath</key>\n  <string>" + xml_text((logs / "mcphealth-watch.err").string()) + "</string>\n";
  t += "</dict>\n</plist>\n";
  return t;
}

/// The value of `key=` on a line of its own in a unit, or nothing.
std::optional<std::string> unit_value(const std::string& text, std::string_view key) {
  for (const std::string& line : util::split_lines(text)) {
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == '=')
      return line.substr(key.size() + 1);
  }
  return std::nullopt;
}

/// The first word of a systemd command line, unquoted, past its prefixes (`-`, `@`, `:`, `+`, `!`).
std::string first_word(std::string_view line) {
  while (!line.empty() && std::string_view("-@:+!").find(line.front()) != std::string_view::npos) line.remove_prefix(1);
  if (!line.empty() && line.front() == '"') {
    std::string out;
    for (std::size_t i = 1; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      out += line[i];
    }
    return out;
  }
  return std::string(line.substr(0, line.find_first_of(" \t")));
}

/// Every `<string>` of the plist's ProgramArguments array, unescaped.
std::vector<std::string> plist_arguments(const std::string& text) {
  std::vector<std::string> out;
  const std::size_t key = text.find("<key>ProgramArguments</key>");
  if (key == std::string::npos) return out;
  const std::size_t end = text.find("</array>", key);
  for (std::size_t at = text.find("<string>", key); at != std::string::npos && at < end;
       at = text.find("<string>", at)) {
    at += 8;
    const std::size_t close = text.find("</string>", at);
    if (close == std::string::npos) break;
    std::string s = text.substr(at, close - at);
    for (const auto& [entity, c] :
         {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
      for (std::size_t p = s.find(entity); p != std::string::npos; p = s.find(entity, p + c.size()))
        s.replace(p, entity.size(), c);
    }
    out.push_back(std::move(s));
  }
  return out;
}

bool executable(const fs::path& p) { return p.is_absolute() && util::disk().executable(p); }

/// Whether the man page is installed beside `binary` (PREFIX/bin/mcphealth, PREFIX/share/man/man1) or in the
/// system's own places.
bool man_page_beside(const fs::path& binary) {
  std::vector<fs::path> folders{binary.parent_path().parent_path() / "share" / "man" / "man1", "/usr/share/man/man1",
                                "/usr/local/share/man/man1"};
  for (const fs::path& folder : folders) {
    for (const char* name : {"mcphealth.1", "mcphealth.1.gz"}) {
      if (util::disk().stat((folder / name).string())) return true;
    }
  }
  return false;
}

/// The keys a unit mcphealth writes holds, each in its section.
constexpr std::string_view k_unit_keys[] = {"Description", "Documentation", "Type",        "ExecStart",
                                            "Environment", "EnvironmentFile", "Restart",   "RestartSec",
                                            "KillMode",    "TimeoutStopSec",  "WantedBy"};

/// What in a unit mcphealth wrote is not what it writes: a line that is no comment, section or known key (a value
/// with a newline in it became a line of its own), or an EnvironmentFile= in quotes, which systemd takes as part of
/// the name.
std::vector<std::string> foreign_unit_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : util::split_lines(text)) {
    if (line.empty() || line[0] == '#' || line[0] == ';' || line[0] == '[') continue;
    const std::string key = line.substr(0, line.find('='));
    if (line.find('=') == std::string::npos ||
        std::find(std::begin(k_unit_keys), std::end(k_unit_keys), key) == std::end(k_unit_keys)) {
      out.push_back("it holds a line mcphealth never writes: `" + util::cap_utf8(line, 80) + "`");
    } else if (key == "EnvironmentFile" && line.find('"') != std::string::npos) {
      out.push_back("its EnvironmentFile= is in quotes, which systemd takes as part of the file's name: the "
                    "variables never reach the service");
    }
  }
  return out;
}

} // namespace

std::vector<ShellSetting> shell_settings(const util::Environment& env) {
  // Each setting's variable (the JS hook's spelling; the MCPHEALTH_ one too) and the policy's key for it.
  static const std::pair<std::string_view, std::string_view> k_settings[] = {
      {"ECC_MCP_HEALTH_TTL_MS", "ttlMs"},          {"ECC_MCP_HEALTH_TIMEOUT_MS", "timeoutMs"},
      {"ECC_MCP_HEALTH_BACKOFF_MS", "backoffMs"},  {"ECC_MCP_HEALTH_MAX_BACKOFF_MS", "maxBackoffMs"},
      {"MCPHEALTH_CRASH_LOOP_MAX_BACKOFF_MS", "crashLoopMaxBackoffMs"},
      {"ECC_MCP_RECONNECT_TIMEOUT_MS", "reconnectTimeoutMs"}, {"ECC_MCP_RECONNECT_COMMAND", "reconnect"},
      {"ECC_MCP_CONFIG_PATH", ""},                 {"MCPHEALTH_POLICY", ""},
      {"MCPHEALTH_PROBE_DEPTH", "probe"},          {"MCP_TIMEOUT", ""},
  };
  std::vector<ShellSetting> out;
  const auto add = [&](std::string name, std::string value, std::string_view policy_key) {
    if (value.empty() || name.find("FAIL_OPEN") != std::string::npos) return;
    if (std::any_of(out.begin(), out.end(), [&](const ShellSetting& s) { return s.name == name; })) return;
    const bool reconnect = name.find("RECONNECT_") != std::string::npos && name.find("TIMEOUT") == std::string::npos;
    const bool secret = reconnect && util::redact(value) != value;
    out.push_back({std::move(name), std::move(value), secret, std::string(policy_key)});
  };
  for (const auto& [name, key] : k_settings) {
    for (const std::string& spelled : {std::string(name), util::mcphealth_spelling(name)}) {
      if (auto v = env.get(spelled)) add(spelled, *v, key);
    }
  }
  // Where the policy file is when MCPHEALTH_POLICY does not say (config::resolve_policy_path).
  if (auto v = env.get("XDG_CONFIG_HOME")) add("XDG_CONFIG_HOME", *v, "");
  // The per-server reconnect commands: ECC_MCP_RECONNECT_<SERVER> and MCPHEALTH_RECONNECT_<SERVER>.
  for (const std::string& entry : env.entries()) {
    const std::size_t eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    if ((name.rfind("ECC_MCP_RECONNECT_", 0) == 0 || name.rfind("MCPHEALTH_RECONNECT_", 0) == 0) &&
        name.find("TIMEOUT_MS") == std::string::npos)
      add(name, entry.substr(eq + 1), "reconnect");
  }
  std::sort(out.begin(), out.end(), [](const ShellSetting& a, const ShellSetting& b) { return a.name < b.name; });
  return out;
}

std::optional<std::string> refused_value(const ServiceInputs& in) {
  const std::pair<const char*, std::string> values[] = {{"the binary's path", in.binary.string()},
                                                        {"HOME", in.home.string()},
                                                        {"PATH", in.path},
                                                        {"the state file's path", in.state ? in.state->string() : ""}};
  for (const auto& [what, value] : values) {
    for (char c : value) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte == 0x7f) {
        return std::string(what) + " holds a control character (a newline, a tab, an escape), which a service file "
               "would take as the end of a line: not written; set it without one";
      }
    }
  }
  return std::nullopt;
}

std::string_view manager_name(ServiceManager manager) {
  return manager == ServiceManager::launchd ? "launchd" : "systemd";
}

ServiceManager native_service_manager() {
  return platform::name() == "macos" ? ServiceManager::launchd : ServiceManager::systemd;
}

ServiceInputs service_inputs(ServiceManager manager, const fs::path& binary, const config::Settings& settings,
                             const config::DiscoveryInputs& base, const util::Environment& env) {
  ServiceInputs in;
  in.manager = manager;
  in.binary = binary;
  in.home = util::home_dir(env);
  const ProbePath path = probe_path(state::load_state(settings.state_path.value).doc, {}, env);
  in.path = path.path;
  in.path_recorded = path.origin == probe::PathOrigin::agents;
  if (settings.state_path.origin.kind != config::Origin::Kind::built_in)
    in.state = fs::absolute(settings.state_path.value);
  // The definitions the agents start, in every folder in use: what they reference, whichever wins.
  std::vector<std::string> referenced;
  for (const agent::AgentFolder& f :
       agent::folders_in_use(base, env, read_bound(settings.state_path.value, env).scope)) {
    for (const config::Candidate* c : f.resolution.winners())
      config::referenced_variables(boost::json::value(c->definition.raw), referenced);
  }
  for (std::string& v : referenced) {
    if (v != "PATH" && v != "HOME") in.variables.push_back(std::move(v));
  }
  in.man_page_installed = man_page_beside(binary);
  std::sort(in.variables.begin(), in.variables.end());
  in.variables.erase(std::unique(in.variables.begin(), in.variables.end()), in.variables.end());
  return in;
}

fs::path service_path(ServiceManager manager, const fs::path& home, const util::Environment& env) {
  if (manager == ServiceManager::launchd) return home / "Library" / "LaunchAgents" / (std::string(k_label) + ".plist");
  const std::optional<std::string> xdg = env.get("XDG_CONFIG_HOME");
  const fs::path config = xdg && !xdg->empty() && fs::path(*xdg).is_absolute() ? fs::path(*xdg) : home / ".config";
  return config / "systemd" / "user" / k_unit;
}

ServiceFile service_file(const ServiceInputs& in, const util::Environment& env) {
  ServiceFile f;
  f.manager = in.manager;
  f.path = service_path(in.manager, in.home, env);
  f.env_file = in.home / ".config" / "mcphealth" / "env";
  if (in.manager == ServiceManager::launchd) {
    f.load = "launchctl bootstrap gui/$(id -u) " + util::shell_quote(f.path.string());
    f.unload = "launchctl bootout gui/$(id -u)/" + std::string(k_label);
    f.text = launchd_plist(in, f.env_file, f.load);
  } else {
    f.load = "systemctl --user daemon-reload && systemctl --user enable --now " + std::string(k_unit);
    f.unload = "systemctl --user disable --now " + std::string(k_unit);
    f.text = systemd_unit(in, f.env_file, f.load);
  }
  return f;
}

std::vector<ServiceProblem> check_service_file(ServiceManager manager, const std::string& text) {
  std::vector<ServiceProblem> problems;
  const std::string again = "write it again: mcphealth install --service";
  std::string program;
  if (manager == ServiceManager::systemd) {
    program = first_word(unit_value(text, "ExecStart").value_or(""));
  } else {
    for (const std::string& a : plist_arguments(text)) {
      if (fs::path(a).filename().string().rfind("mcphealth", 0) == 0 && a.find('/') != std::string::npos) {
        program = a;
        break;
      }
    }
    if (text.find("<string>~") != std::string::npos || text.find("~/") != std::string::npos) {
      problems.push_back({"it names a path with ~, which launchd does not expand", again});
    }
  }
  if (program.empty()) {
    problems.push_back({"it starts no mcphealth", again});
  } else if (!fs::path(program).is_absolute()) {
    problems.push_back(
        {"it starts `" + program + "`, not an absolute path: the service manager's PATH decides which", again});
  } else if (!executable(program)) {
    problems.push_back({"it starts " + program + ", which is not an executable file (moved, or uninstalled)", again});
  }
  if (manager == ServiceManager::systemd && written_by_mcphealth(text)) {
    for (std::string& found : foreign_unit_lines(text)) problems.push_back({std::move(found), again});
  }
  if (text.find(k_fail_open) != std::string::npos) {
    problems.push_back({"it sets a fail-open variable (ECC_MCP_HEALTH_FAIL_OPEN), which lets every call through",
                        "remove that line, or " + again});
  }
  const bool has_path = manager == ServiceManager::systemd ? text.find("Environment=PATH=") != std::string::npos ||
                                                                 text.find("Environment=\"PATH=") != std::string::npos
                                                           : text.find("<key>PATH</key>") != std::string::npos;
  if (!has_path) {
    problems.push_back(
        {"it sets no PATH: servers start with the service manager's, where commands your shell finds are missing",
         again});
  }
  return problems;
}

bool written_by_mcphealth(const std::string& text) { return text.find(k_written_by) != std::string::npos; }

ServiceState ask_service_state(ServiceManager manager, const fs::path& file, recover::CommandRunner& runner) {
  constexpr std::int64_t k_ask_timeout_ms = 5'000;
  using Answer = ServiceState::Answer;
  ServiceState st;
  const auto first_line = [](const proc::CommandResult& r) {
    const std::vector<std::string> lines = util::split_lines(r.out.empty() ? r.err : r.out);
    return lines.empty() ? std::string() : std::string(util::trim(lines.front()));
  };
  if (manager == ServiceManager::launchd) {
    const proc::CommandResult r =
        runner.run_argv({"launchctl", "print", "gui/" + std::to_string(::getuid()) + "/" + std::string(k_label)}, "",
                        k_ask_timeout_ms);
    if (r.status != proc::CommandResult::Status::exited) {
      st.not_asked = "launchctl did not answer (" + (r.error.empty() ? std::string("timed out") : r.error) + ")";
      return st;
    }
    st.enabled = r.exit.code == 0 ? Answer::yes : Answer::no;
    st.running = r.exit.code == 0 && r.out.find("state = running") != std::string::npos ? Answer::yes : Answer::no;
    return st;
  }
  const std::string unit(k_unit);
  const proc::CommandResult enabled = runner.run_argv({"systemctl", "--user", "is-enabled", unit}, "", k_ask_timeout_ms);
  const std::string said = first_line(enabled);
  if (enabled.status == proc::CommandResult::Status::exited && (said == "enabled" || said == "enabled-runtime")) {
    st.enabled = Answer::yes;
  } else if (enabled.status == proc::CommandResult::Status::exited &&
             (said == "disabled" || said == "static" || said == "indirect" || said == "linked")) {
    st.enabled = Answer::no;
  } else {
    // No user manager to ask: whether it starts at login is its link, which `enable` makes.
    std::error_code ec;
    const bool linked = fs::is_symlink(file.parent_path() / "default.target.wants" / unit, ec);
    st.enabled = linked ? Answer::yes : Answer::no;
    st.enabled_from = "its link in default.target.wants";
    st.not_asked = "systemctl --user did not answer" + (said.empty() ? std::string() : ": " + said);
    return st;
  }
  const proc::CommandResult active = runner.run_argv({"systemctl", "--user", "is-active", unit}, "", k_ask_timeout_ms);
  const std::string state = first_line(active);
  if (active.status == proc::CommandResult::Status::exited && state == "active") {
    st.running = Answer::yes;
  } else if (active.status == proc::CommandResult::Status::exited &&
             (state == "inactive" || state == "failed" || state == "activating" || state == "deactivating")) {
    st.running = Answer::no;
    st.manager_says = state;
  } else {
    st.not_asked = "systemctl --user is-active did not answer" + (state.empty() ? std::string() : ": " + state);
  }
  return st;
}

} // namespace mcphealth::ops
