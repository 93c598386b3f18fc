#include <mcphealth/config/policy.hpp>

#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/names.hpp>
#include <mcphealth/util/files.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>

namespace mcphealth::config {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view policy_status_name(Policy::Status status) {
  switch (status) {
  case Policy::Status::absent: return "absent";
  case Policy::Status::ok: return "ok";
  case Policy::Status::invalid: break;
  }
  return "invalid";
}

std::string PolicyProblem::text() const {
  if (line > 0) return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message;
  return where.empty() ? message : where + ": " + message;
}

namespace {

/// A name or pattern as tool names spell it: each run between `*`s spelled as Claude Code spells server names.
std::string tool_spelling(std::string_view pattern) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t star; (star = pattern.find('*', start)) != std::string_view::npos; start = star + 1) {
    out += tool_server_name(pattern.substr(start, star - start)) + "*";
  }
  return out + tool_server_name(pattern.substr(start));
}

std::string type_words(const json::value& v) {
  switch (v.kind()) {
  case json::kind::null: return "null";
  case json::kind::bool_: return "true or false";
  case json::kind::int64:
  case json::kind::uint64:
  case json::kind::double_: return "a number";
  case json::kind::string: return "a string";
  case json::kind::array: return "a list";
  case json::kind::object: return "an object";
  }
  return "something else";
}

const std::vector<std::string>& value_keys() {
  static const std::vector<std::string> keys{"probe",  "protocol", "timeoutMs", "ttlMs",         "backoffMs",
                                             "maxBackoffMs", "crashLoopMaxBackoffMs", "failOpen", "reconnect", "reconnectTimeoutMs", "check"};
  return keys;
}

/// Reads and checks one entry's values; problems go to `problems`, under `where`.
class EntryReader {
public:
  EntryReader(std::vector<PolicyProblem>& problems, const util::Environment& env) : m_problems(problems), m_env(env) {}

  void problem(const std::string& where, std::string message) { m_problems.push_back({where, 0, 0, std::move(message)}); }

  /// Reads `entry` at `where`; `is_server` allows `project`.
  PolicyValues read(const json::value& entry, const std::string& where, bool is_server,
                    std::optional<fs::path>* project = nullptr) {
    PolicyValues out;
    if (!entry.is_object()) {
      problem(where, "expected an object of settings, got " + type_words(entry));
      return out;
    }
    std::vector<std::string> allowed = value_keys();
    if (is_server) allowed.push_back("project");
    for (const auto& kv : entry.get_object()) {
      const std::string key(kv.key());
      const std::string at = where + "." + key;
      const json::value& v = kv.value();
      if (key == "probe") out.probe = choice(v, at, parse_probe_mode, "skip, liveness, handshake or auto");
      else if (key == "protocol") out.protocol = choice(v, at, parse_protocol_mode, "legacy, modern or auto");
      else if (key == "timeoutMs") out.timeout_ms = millis(v, at, 1);
      else if (key == "ttlMs") out.ttl_ms = millis(v, at, 0);
      else if (key == "backoffMs") out.backoff_ms = millis(v, at, 0);
      else if (key == "maxBackoffMs") out.max_backoff_ms = millis(v, at, 0);
      else if (key == "crashLoopMaxBackoffMs") out.crash_loop_max_backoff_ms = millis(v, at, 0);
      else if (key == "reconnectTimeoutMs") out.reconnect_timeout_ms = millis(v, at, 1);
      else if (key == "failOpen") {
        if (v.is_bool()) out.fail_open = v.get_bool();
        else problem(at, "expected true or false, got " + type_words(v));
      } else if (key == "reconnect") out.reconnect = reconnect(v, at);
      else if (key == "check") {
        if (is_server) out.check = check(v, at);
        else problem(at, "a check is declared per server: put it under servers.NAME");
      }
      else if (key == "project" && is_server) *project = folder(v, at);
      else unknown(at, key, allowed);
    }
    return out;
  }

  void unknown(const std::string& at, const std::string& key, const std::vector<std::string>& allowed) {
    std::string message = "unknown key";
    if (auto near = util::closest_match(key, allowed)) message += "; did you mean \"" + *near + "\"?";
    else {
      message += "; expected one of: ";
      for (std::size_t i = 0; i < allowed.size(); ++i) message += (i ? ", " : "") + allowed[i];
    }
    problem(at, message);
  }

private:
  /// One of a few words (`parse` names them), or why not.
  template <typename Parse>
  auto choice(const json::value& v, const std::string& at, Parse parse, const char* words)
      -> decltype(parse(std::string_view{})) {
    if (!v.is_string()) {
      problem(at, std::string("expected ") + words + ", got " + type_words(v));
    } else if (auto mode = parse(std::string_view(v.get_string()))) {
      return mode;
    } else {
      problem(at, "\"" + std::string(v.get_string()) + "\" is not " + words);
    }
    return std::nullopt;
  }

  std::optional<std::int64_t> millis(const json::value& v, const std::string& at, std::int64_t least) {
    // Times are added to the clock and to each other: the cap keeps every sum far from overflow (~31 years).
    constexpr std::int64_t k_most = 1'000'000'000'000;
    const std::optional<std::int64_t> n = util::as_int(v);
    if (!n) {
      problem(at, "expected a whole number of milliseconds, got " + type_words(v));
      return std::nullopt;
    }
    if (*n < least || *n > k_most) {
      problem(at, std::to_string(*n) + " is out of range (" + std::to_string(least) + " to " + std::to_string(k_most) + ")");
      return std::nullopt;
    }
    return n;
  }

  std::optional<ReconnectSpec> reconnect(const json::value& v, const std::string& at) {
    ReconnectSpec spec;
    if (v.is_string() && !v.get_string().empty()) {
      spec.shell = std::string(v.get_string());
      return spec;
    }
    if (v.is_array() && !v.get_array().empty()) {
      for (const auto& word : v.get_array()) {
        if (!word.is_string()) {
          problem(at, "every word of the command must be a string, got " + type_words(word));
          return std::nullopt;
        }
        spec.argv.emplace_back(word.get_string());
      }
      if (spec.argv.front().empty()) {
        problem(at, "the program (the first word) is empty");
        return std::nullopt;
      }
      return spec;
    }
    problem(at, "expected a list of words (run without a shell) or a non-empty string (run with /bin/sh -c), got " +
                    (v.is_string() || v.is_array() ? std::string("an empty one") : type_words(v)));
    return std::nullopt;
  }

  std::optional<CheckSpec> check(const json::value& v, const std::string& at) {
    if (!v.is_object()) {
      problem(at, "expected an object with one of \"command\", \"url\" or \"tool\", got " + type_words(v));
      return std::nullopt;
    }
    const json::object& o = v.get_object();
    const int kinds = int(o.contains("command")) + int(o.contains("url")) + int(o.contains("tool"));
    if (kinds != 1) {
      problem(at, kinds == 0 ? "expected one of \"command\", \"url\" or \"tool\""
                             : "expected only one of \"command\", \"url\" or \"tool\"");
      return std::nullopt;
    }
    CheckSpec spec;
    std::vector<std::string> allowed;
    bool ok = true;
    if (const json::value* command = o.if_contains("command")) {
      spec.kind = CheckSpec::Kind::command;
      allowed = {"command"};
      if (std::optional<ReconnectSpec> words = reconnect(*command, at + ".command")) {
        spec.argv = std::move(words->argv);
        spec.shell = std::move(words->shell);
      } else {
        ok = false;
      }
    } else if (const json::value* url = o.if_contains("url")) {
      spec.kind = CheckSpec::Kind::url;
      allowed = {"url", "headers"};
      const std::string text = url->is_string() ? std::string(url->get_string()) : std::string();
      if (text.rfind("http://", 0) != 0 && text.rfind("https://", 0) != 0) {
        problem(at + ".url", url->is_string() ? "\"" + util::redact(text) + "\" is not an http:// or https:// URL"
                                              : "expected a URL, got " + type_words(*url));
        ok = false;
      }
      spec.url = text;
      if (const json::value* headers = o.if_contains("headers")) {
        if (headers->is_bool()) spec.headers = headers->get_bool();
        else {
          problem(at + ".headers", "expected true or false, got " + type_words(*headers));
          ok = false;
        }
      }
    } else {
      const json::value& tool = o.at("tool");
      spec.kind = CheckSpec::Kind::tool;
      allowed = {"tool", "arguments"};
      if (!tool.is_string() || tool.get_string().empty()) {
        problem(at + ".tool", "expected a tool's name, got " + (tool.is_string() ? std::string("an empty string") : type_words(tool)));
        ok = false;
      } else {
        spec.tool = std::string(tool.get_string());
      }
      if (const json::value* args = o.if_contains("arguments")) {
        if (args->is_object()) spec.arguments = json::serialize(*args);
        else {
          problem(at + ".arguments", "expected an object of the tool's arguments, got " + type_words(*args));
          ok = false;
        }
      }
    }
    for (const auto& kv : o) {
      const std::string key(kv.key());
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        unknown(at + "." + key, key, allowed);
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return spec;
  }

  std::optional<fs::path> folder(const json::value& v, const std::string& at) {
    if (!v.is_string() || v.get_string().empty()) {
      problem(at, "expected a folder path, got " + (v.is_string() ? std::string("an empty string") : type_words(v)));
      return std::nullopt;
    }
    bool expanded = false;
    fs::path p = expand_home(std::string(v.get_string()), m_env, expanded);
    if (!p.is_absolute()) {
      problem(at, "\"" + std::string(v.get_string()) + "\" is not an absolute path (or one starting with ~/)");
      return std::nullopt;
    }
    return absolute_normal(p);
  }

  std::vector<PolicyProblem>& m_problems;
  const util::Environment& m_env;
};

/// The policy file's stamp (size and modification time), through the file seam: a change says its problem again.
std::string file_stamp(const fs::path& path, util::FileReader& reader) {
  const std::optional<util::FileStamp> st = reader.stat(path);
  if (!st) return {};
  return std::to_string(st->size) + ":" + std::to_string(st->mtime_ns / 1'000'000'000) + "." +
         std::to_string(st->mtime_ns % 1'000'000'000);
}

} // namespace

bool PolicyRule::applies_to(std::string_view server, const std::optional<fs::path>& defined_in) const {
  if (project && (!defined_in || absolute_normal(*defined_in) != *project)) return false;
  return util::glob_match(pattern, server);
}

bool Policy::has_checks() const {
  return std::any_of(rules.begin(), rules.end(), [](const PolicyRule& r) { return r.values.check.has_value(); });
}

std::optional<std::string> check_refused_because(const Policy& policy, const util::Environment& env,
                                                 const fs::path& project_dir, util::FileReader& reader) {
  if (!policy.has_checks() || project_dir.empty()) return std::nullopt;
  const fs::path project = absolute_normal(project_dir);
  const fs::path file = absolute_normal(policy.path.value);
  // Symbolic links are followed for the test: a link in the user's folder that leads into the project is the project's.
  const fs::path real = reader.real_path(file);
  const fs::path real_project = reader.real_path(project);
  for (const auto& [f, p] : {std::pair{file, project}, std::pair{real, real_project}}) {
    if (!f.empty() && !p.empty() && util::is_within(f, p)) {
      return "the policy file is inside " + p.string() + ", a folder a repository controls";
    }
  }
  for (const char* settings : {".claude/settings.json", ".claude/settings.local.json"}) {
    const fs::path at = project / settings;
    const auto text = reader.read(at, k_max_policy_bytes);
    if (!text) continue;
    const util::JsonParse parsed = util::parse_json(*text);
    if (!parsed || !parsed->is_object()) continue;
    const json::value* vars = parsed->get_object().if_contains("env");
    if (vars == nullptr || !vars->is_object()) continue;
    for (const char* name : {"MCPHEALTH_POLICY", "XDG_CONFIG_HOME", "HOME"}) {
      const json::value* set = vars->get_object().if_contains(name);
      const std::optional<std::string> now = env.get(name);
      if (set != nullptr && set->is_string() && now && *now == std::string_view(set->get_string())) {
        return std::string(name) + " is set by " + at.string() + " (its `env`), a project's file";
      }
    }
  }
  return std::nullopt;
}

bool Policy::has_project_rules() const {
  return std::any_of(rules.begin(), rules.end(), [](const PolicyRule& r) { return r.project.has_value(); });
}

std::int64_t Policy::longest_recovery_ms(const Settings& base) const {
  auto cost = [&](const PolicyValues& v) {
    const std::int64_t timeout = v.timeout_ms.value_or(std::max(base.timeout_ms.value, defaults.timeout_ms.value_or(0)));
    const std::int64_t reconnect =
        v.reconnect_timeout_ms.value_or(std::max(base.reconnect_timeout_ms.value, defaults.reconnect_timeout_ms.value_or(0)));
    return recovery_budget_ms(timeout, reconnect);
  };
  std::int64_t longest = recovery_budget_ms(base.timeout_ms.value, base.reconnect_timeout_ms.value);
  if (status != Status::ok) return longest;
  longest = std::max(longest, cost(defaults));
  for (const PolicyRule& r : rules) longest = std::max(longest, cost(r.values));
  return longest;
}

std::vector<const PolicyRule*> Policy::rules_for(std::string_view server, const std::optional<fs::path>& project) const {
  std::vector<const PolicyRule*> out;
  if (status != Status::ok) return out;
  for (const PolicyRule& r : rules) {
    if (r.applies_to(server, project)) out.push_back(&r);
  }
  // Least specific first, so later ones win when laid over each other.
  auto rank = [](const PolicyRule* r) { return (r->is_pattern() ? 0 : 2) + (r->project ? 1 : 0); };
  std::stable_sort(out.begin(), out.end(), [&](const PolicyRule* a, const PolicyRule* b) { return rank(a) < rank(b); });
  return out;
}

Setting<fs::path> resolve_policy_path(const util::Environment& env, const SettingsOverrides& flags) {
  if (flags.policy_path) return {*flags.policy_path, Origin::flag("--policy")};
  if (auto v = env.get("MCPHEALTH_POLICY"); v && !v->empty()) {
    bool expanded = false;
    return {expand_home(*v, env, expanded), Origin::variable("MCPHEALTH_POLICY")};
  }
  if (auto xdg = env.get("XDG_CONFIG_HOME"); xdg && !xdg->empty() && fs::path(*xdg).is_absolute()) {
    return {fs::path(*xdg) / "mcphealth" / "policy.json", {}};
  }
  return {util::home_dir(env) / ".config" / "mcphealth" / "policy.json", {}};
}

Policy parse_policy(std::string_view text, const Setting<fs::path>& path, const util::Environment& env) {
  Policy out;
  out.path = path;
  out.status = Policy::Status::invalid;
  const util::JsonParse parsed = util::parse_json(text);
  if (!parsed) {
    // The parser's words ("syntax error") say little: the line's text at the column says where. Redacted whole
    // first (a token cut by the excerpt would not be recognised); a redaction may move the column a little.
    out.problems.push_back({{}, parsed.error().line, parsed.error().column,
                            parsed.error().message + util::text_at(util::redact(text), parsed.error().line, parsed.error().column)});
    return out;
  }
  EntryReader reader(out.problems, env);
  if (!parsed->is_object()) {
    reader.problem("the file", "expected an object with \"defaults\" and \"servers\", got " + type_words(*parsed));
    return out;
  }
  for (const auto& kv : parsed->get_object()) {
    const std::string key(kv.key());
    if (key == "$schema" || key == "$comment") continue;
    if (key == "defaults") {
      out.defaults = reader.read(kv.value(), "defaults", false);
    } else if (key == "servers") {
      if (!kv.value().is_object()) {
        reader.problem("servers", "expected an object keyed by server name or pattern, got " + type_words(kv.value()));
        continue;
      }
      for (const auto& server : kv.value().get_object()) {
        const std::string name(server.key());
        const std::string where = "servers." + name;
        if (name.empty() || name.find_first_not_of('*') == std::string::npos) {
          reader.problem(where, "a server name or pattern must name something (use \"defaults\" for every server)");
          continue;
        }
        auto add = [&](const json::value& entry, const std::string& at) {
          PolicyRule rule{tool_spelling(name), std::nullopt, {}, at};
          rule.values = reader.read(entry, at, true, &rule.project);
          out.rules.push_back(std::move(rule));
        };
        if (server.value().is_array()) {
          const json::array& list = server.value().get_array();
          for (std::size_t i = 0; i < list.size(); ++i) add(list[i], where + "[" + std::to_string(i) + "]");
        } else {
          add(server.value(), where);
        }
      }
    } else {
      reader.unknown(key, key, {"defaults", "servers", "$schema"});
    }
  }
  if (out.problems.empty()) {
    out.status = Policy::Status::ok;
  } else { // invalid as a whole: nothing of it applies
    out.rules.clear();
    out.defaults = {};
  }
  return out;
}

Policy load_policy(const Setting<fs::path>& path, const util::Environment& env, util::FileReader& reader,
                   const std::optional<fs::path>& project_dir) {
  const auto read = reader.read(path.value, k_max_policy_bytes);
  Policy out;
  if (read) {
    out = parse_policy(*read, path, env);
  } else {
    out.path = path;
    if (read.error().is(util::ReadFailure::missing)) return out;
    out.status = Policy::Status::invalid;
    out.problems.push_back({{}, 0, 0, read.error().message});
  }
  out.stamp = file_stamp(path.value, reader);
  if (out.status == Policy::Status::ok && out.has_checks()) {
    std::error_code ec;
    const fs::path here = project_dir ? *project_dir : fs::current_path(ec);
    out.checks_refused = check_refused_because(out, env, here, reader);
  }
  return out;
}

Settings settings_for(const Settings& base, const Policy& policy, std::string_view server,
                      const std::optional<fs::path>& project) {
  Settings s = base;
  if (policy.status != Policy::Status::ok) return s;
  auto lay = [](auto& setting, const auto& value, const std::string& where) {
    if (value && setting.origin.kind != Origin::Kind::flag) {
      setting.value = *value;
      setting.origin = Origin::policy(where);
    }
  };
  auto lay_all = [&](const PolicyValues& v, const std::string& where) {
    lay(s.probe, v.probe, where);
    lay(s.protocol, v.protocol, where);
    lay(s.timeout_ms, v.timeout_ms, where);
    lay(s.ttl_ms, v.ttl_ms, where);
    lay(s.backoff_ms, v.backoff_ms, where);
    lay(s.max_backoff_ms, v.max_backoff_ms, where);
    lay(s.crash_loop_max_backoff_ms, v.crash_loop_max_backoff_ms, where);
    lay(s.fail_open, v.fail_open, where);
    lay(s.reconnect_timeout_ms, v.reconnect_timeout_ms, where);
    if (v.reconnect) s.reconnect = {v.reconnect, Origin::policy(where)};
    if (v.check) {
      s.check = {policy.checks_refused ? std::nullopt : v.check, Origin::policy(where)};
      s.check_refused = policy.checks_refused;
    }
  };
  lay_all(policy.defaults, "defaults");
  for (const PolicyRule* r : policy.rules_for(server, project)) lay_all(r->values, r->where);
  return s;
}

Settings settings_for(const Settings& base, const Policy& policy, const Candidate& candidate) {
  return settings_for(base, policy, candidate.tool_server,
                      candidate.project ? std::optional<fs::path>(*candidate.project) : std::nullopt);
}

std::int64_t client_startup_timeout_ms(const util::Environment& env) {
  const auto v = env.get("MCP_TIMEOUT");
  if (!v || v->empty() || v->size() > 9 || v->find_first_not_of("0123456789") != std::string::npos) {
    return k_client_startup_timeout_ms;
  }
  const std::int64_t ms = std::stoll(*v);
  return ms > 0 ? ms : k_client_startup_timeout_ms;
}

Settings unhurried(Settings s, const util::Environment& env) {
  if (s.timeout_ms.origin.kind == Origin::Kind::built_in) {
    s.timeout_ms.value = client_startup_timeout_ms(env);
    const auto set = env.get("MCP_TIMEOUT");
    s.timeout_ms.origin = set && std::to_string(s.timeout_ms.value) == *set
                              ? Origin::variable("MCP_TIMEOUT (Claude Code's start-up timeout; no agent waits)")
                              : Origin{Origin::Kind::built_in, "Claude Code's start-up timeout; no agent waits"};
  }
  s.silence_fails = s.timeout_ms.value >= client_startup_timeout_ms(env);
  return s;
}

} // namespace mcphealth::config
