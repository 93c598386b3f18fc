// Codex CLI (checked against @openai/codex 0.171.0): servers from `[mcp_servers.<name>]` in config.toml layers
// (/etc/codex, $CODEX_HOME, then a trusted project's `.codex/config.toml` in every folder from its root down to the
// session's), merged key by key; tool names carry the server's name sanitized (`my-svc.v2` -> `my_svc_v2`).
// Hooks are Claude Code's in shape (hooks.json, the payload, the `hookSpecificOutput` answer), but there is no
// failure event: PostToolUse fires only on success, so failures are learned from probes. Codex runs a hook only
// once the user has trusted it (agent/codex_trust.cpp asks Codex itself to record that).
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/agent/codex.hpp>

#include <mcphealth/config/server.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>
#include <mcphealth/util/toml.hpp>

#include <algorithm>

namespace mcphealth::agent {

namespace fs = std::filesystem;
namespace json = boost::json;

fs::path codex_home(const util::Environment& env) { return user_folder(env, "CODEX_HOME", "", ".codex"); }

std::string codex_tool_server(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool kept = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!kept) c = '_';
  }
  return out;
}

fs::path codex_project_root(const fs::path& dir, util::FileReader& reader) {
  const fs::path start = config::absolute_normal(dir);
  for (fs::path at = start;; at = at.parent_path()) {
    if (reader.stat(at / ".git")) return at;
    if (at == at.parent_path()) break;
  }
  return start;
}

namespace {

/// The folders whose `.codex/config.toml` Codex reads for `dir`, from the project's root down to `dir`.
std::vector<fs::path> project_folders(const fs::path& dir, util::FileReader& reader) {
  const fs::path start = config::absolute_normal(dir);
  const fs::path root = codex_project_root(start, reader);
  std::vector<fs::path> out;
  for (fs::path at = start;; at = at.parent_path()) {
    out.push_back(at);
    if (at == root || at == at.parent_path()) break;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

/// `over` laid on `base` key by key: tables merge, anything else is replaced (as Codex merges its layers).
void merge_into(json::object& base, const json::object& over) {
  for (const auto& [key, value] : over) {
    json::value* mine = base.if_contains(key);
    if (mine && mine->is_object() && value.is_object()) {
      merge_into(mine->get_object(), value.get_object());
    } else {
      base[key] = value;
    }
  }
}

/// A Codex definition in the form the probes read: a `url` is Streamable HTTP, and its headers are `http_headers`,
/// `env_http_headers` (a header from a variable) and `bearer_token_env_var`, as `${VAR}` references.
json::object codex_as_probed(json::object raw) {
  if (!raw.contains("url")) return raw;
  raw["type"] = "http";
  json::object headers;
  if (const json::object* plain = util::get_object(raw, "http_headers")) headers = *plain;
  if (const json::object* from_env = util::get_object(raw, "env_http_headers")) {
    for (const auto& [header, var] : *from_env) {
      if (var.is_string()) headers[header] = "${" + std::string(var.get_string()) + "}";
    }
  }
  if (auto var = util::get_string(raw, "bearer_token_env_var"); var && !var->empty()) {
    headers["Authorization"] = "Bearer ${" + *var + "}";
  }
  if (!headers.empty()) raw["headers"] = std::move(headers);
  return raw;
}

/// What of its own environment Codex passes to a stdio server (0.171.0, seen from a server that printed it): these
/// names, then the `env_vars` the definition lists; its `env` table comes on top.
constexpr std::string_view k_passed_env[] = {"HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING",
                                             "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ", "SSL_CERT_FILE",
                                             "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
                                             "CODEX_CA_CERTIFICATE"};

/// Codex's rules for starting a stdio server, on its definition: as written (no `${VAR}` expansion), where (`cwd`,
/// from the session's folder) and with which of the hook's variables.
void start_as_codex(config::ServerDefinition& def) {
  def.expansion = config::VarExpansion::literal;
  def.cwd = util::get_string(def.raw, "cwd").value_or("");
  std::vector<std::string> names(std::begin(k_passed_env), std::end(k_passed_env));
  if (const json::value* listed = def.raw.if_contains("env_vars"); listed && listed->is_array()) {
    for (const json::value& name : listed->get_array()) {
      if (name.is_string()) names.emplace_back(name.get_string());
    }
  }
  def.env_rule.passes = [names = std::move(names)](std::string_view name, std::string_view) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
}

/// Whether the user trusts the project at `folders` (root first): the deepest folder with a `[projects."<dir>"]`
/// entry in the user's config.toml decides; none: not trusted.
std::pair<bool, std::string> project_trust(const std::vector<fs::path>& folders, const json::object& user_config,
                                           const fs::path& user_file) {
  const json::object* projects = util::get_object(user_config, "projects");
  for (auto it = folders.rbegin(); projects && it != folders.rend(); ++it) {
    const json::object* entry = util::get_object(*projects, it->string());
    if (entry == nullptr) continue;
    const std::string level = util::get_string(*entry, "trust_level").value_or("");
    const std::string where = "trust_level = \"" + level + "\" for " + it->string() + " in " + user_file.string();
    return {level == "trusted", where};
  }
  return {false, "no [projects.\"" + folders.back().string() + "\"] trust_level in " + user_file.string()};
}

class CodexCatalogue final : public Catalogue {
protected:
  config::Resolution read(const config::DiscoveryInputs& inputs, const util::Environment& env,
                          util::FileReader& reader) const override {
    config::Resolution res{.project_dir = inputs.project_dir};
    const fs::path user_file = codex_home(env) / "config.toml";
    const auto toml_layer = [&](const fs::path& file, std::string label) {
      return config::read_source({file, std::move(label)}, reader, config::FileFormat::toml);
    };
    // Lowest precedence first: the system's file, the user's, then the project's from its root down.
    std::vector<std::pair<config::FileReport, config::Scope>> layers;
    layers.emplace_back(toml_layer("/etc/codex/config.toml", "system"), config::Scope::managed);
    layers.emplace_back(toml_layer(user_file, "user"), config::Scope::user);
    const std::vector<fs::path> folders = project_folders(inputs.project_dir, reader);
    const bool at_home = config::absolute_normal(inputs.project_dir) == config::absolute_normal(util::home_dir(env));
    if (!at_home) {
      for (const fs::path& folder : folders) {
        layers.emplace_back(toml_layer(folder / ".codex" / "config.toml", "project"), config::Scope::project);
      }
    }
    json::object user_config;
    if (auto text = reader.read(user_file)) {
      if (util::JsonParse parsed = util::parse_toml(*text); parsed && parsed->is_object()) user_config = std::move(parsed->get_object());
    }
    const auto [trusted, why] = project_trust(folders, user_config, user_file);
    res.trusted = trusted;
    // One definition per name, every layer's keys merged over the ones below; the highest layer that has the
    // name is where it comes from. An untrusted project's layers are listed, not merged.
    std::vector<config::Candidate> merged;
    std::vector<config::Candidate> refused;
    for (const auto& [report, scope] : layers) {
      res.files.push_back(report);
      for (const config::ServerDefinition& def : report.servers) {
        if (scope == config::Scope::project && !trusted) {
          config::Candidate c;
          c.definition = def;
          c.definition.raw = codex_as_probed(def.raw);
          start_as_codex(c.definition);
          c.tool_server = codex_tool_server(def.name);
          c.scope = scope;
          c.project = config::absolute_normal(inputs.project_dir).string();
          c.standing = config::Standing::not_approved;
          c.reason = "Codex CLI starts a project's servers only in a trusted project (" + why + ")";
          refused.push_back(std::move(c));
          continue;
        }
        auto it = std::find_if(merged.begin(), merged.end(), [&](const config::Candidate& c) { return c.definition.name == def.name; });
        if (it == merged.end()) {
          config::Candidate c;
          c.definition = def;
          c.tool_server = codex_tool_server(def.name);
          merged.push_back(std::move(c));
          it = std::prev(merged.end());
        } else {
          json::object raw = std::move(it->definition.raw);
          merge_into(raw, def.raw);
          it->definition = def;
          it->definition.raw = std::move(raw);
        }
        it->scope = scope;
        if (scope == config::Scope::project) it->project = config::absolute_normal(inputs.project_dir).string();
      }
    }
    for (config::Candidate& c : merged) {
      if (util::get_bool(c.definition.raw, "enabled") == false) {
        c.standing = config::Standing::disabled;
        c.reason = "enabled = false in " + c.definition.source.string();
      }
      c.definition.raw = codex_as_probed(std::move(c.definition.raw));
      start_as_codex(c.definition);
      res.candidates.push_back(std::move(c));
    }
    for (config::Candidate& c : refused) res.candidates.push_back(std::move(c));
    config::pick_winners(res, env, reader);
    return res;
  }
};

// Codex CLI's words for a server's outage in its rollout's `error.message` (0.171.0, a stdio server that died during
// the call, and every call after it): `tool call error: tool call failed for `svc/echo`` then `Caused by: Transport
// closed`.
constexpr hook::ClientWording k_codex_wordings[] = {
    // Codex's own framing, not the bare words: a tool's error may say "Transport closed" of its own backend.
    {"Codex CLI 0.171.0", "*Caused by:\n    Transport closed*", hook::FailureReading::Says::transport,
     "a stdio server that died during the call, or before it"},
    {"Codex CLI 0.171.0", "*Caused by:\n    timed out awaiting tools/call after *", hook::FailureReading::Says::timeout,
     "a call slower than the server's `tool_timeout_sec`"},
};

class CodexDialect final : public Dialect {
public:
  hook::HookCall read(const hook::HookInput& input, const std::optional<std::string>& event_flag,
                      const util::Environment&) const override {
    hook::HookCall call = read_claude_shaped_call(input, event_flag);
    // PostToolUse fires only for a call that succeeded; an isError result is the server's answer, not an outage.
    // A failed call fires nothing: the session's rollout tells of it (missed_failure).
    if (!input.incomplete) call.transcript = util::get_string(input.payload, "transcript_path").value_or("");
    return call;
  }

  Answer answer_json(const hook::HookOutcome& outcome) const override { return hook_specific_answer(outcome); }

  std::vector<std::string_view> event_names() const override { return {"PreToolUse", "PostToolUse", "SessionStart"}; }

  std::span<const hook::ClientWording> failure_wordings() const override { return k_codex_wordings; }

  std::optional<hook::MissedFailure> missed_failure(const hook::HookCall& call,
                                                    const hook::CallTarget& target) const override {
    if (call.transcript.empty() || call.event != hook::Event::pre_tool_use) return std::nullopt;
    return last_failure_in_rollout(call.transcript, target.server);
  }
};

class CodexRegistration final : public HookFileRegistration {
public:
  // No personal file inside a project. The entry's timeout is in seconds: room for a probe that waits out a silent
  // server, and its reconnect (Codex's default is 600).
  CodexRegistration()
      : HookFileRegistration([]() -> const HookFileSpec& {
          static const HookFileSpec spec{
              .user_file = [](const util::Environment& env) { return codex_home(env) / "hooks.json"; },
              .project_file = fs::path(".codex") / "hooks.json",
              .events = {{"PreToolUse", "mcp__.*"}, {"PostToolUse", "mcp__.*"}, {"SessionStart", ""}},
              .required_events = {"PreToolUse"},
              .sample_tool_name = "mcp__server__tool",
              .entry = {{"type", "command"}, {"command", nullptr}, {"timeout", 90}}};
          return spec;
        }) {}
  const HookTrust* trust() const override {
    static const CodexTrust trust;
    return &trust;
  }
};

} // namespace

const Agent& codex() {
  return make_agent<CodexCatalogue, CodexDialect, CodexRegistration>({.id = "codex",
                                                                      .name = "Codex CLI",
                                                                      .authenticate = "run `codex mcp login` for it",
                                                                      .authenticate_short = "run `codex mcp login`",
                                                                      .program = "codex",
                                                                      .tested_oldest = "0.171.0",
                                                                      .tested_newest = "0.171.0"});
}

} // namespace mcphealth::agent
