// Claude Code's catalogue: which servers it starts for a folder, with the definition it uses, and why every other
// definition found is not used (shadowed, not approved, disabled, denied, left out by a managed config, a plugin
// not enabled), as its settings, MCP and plugins reference pages describe them and the real program (2.1.197)
// showed. agent/claude_code.cpp puts these rules behind the Catalogue interface.
#include <mcphealth/agent/claude_code_servers.hpp>

#include <mcphealth/agent/claude_code_args.hpp>
#include <mcphealth/agent/claude_code_json.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <sys/stat.h>

namespace mcphealth::agent {

namespace fs = std::filesystem;
namespace json = boost::json;

using config::absolute_normal;
using config::Candidate;
using config::DiscoveryInputs;
using config::FileReport;
using config::pick_winners;
using config::plugin_tool_server_name;
using config::read_source;
using config::Resolution;
using config::Scope;
using config::ServerDefinition;
using config::Standing;
using config::tool_server_name;

ClaudePaths claude_paths(const util::Environment& env) {
  ClaudePaths p;
  const auto config_dir = env.get("CLAUDE_CONFIG_DIR");
  const bool moved = config_dir && !config_dir->empty();
  p.config_dir = moved ? fs::path(*config_dir) : util::home_dir(env) / ".claude";
  p.claude_json = moved ? fs::path(*config_dir) / ".claude.json" : util::home_dir(env) / ".claude.json";
  if (auto dir = env.get("MCPHEALTH_MANAGED_DIR"); dir && !dir->empty()) {
    p.managed_dir = *dir;
  } else {
    p.managed_dir = platform::claude_managed_dir();
  }
  return p;
}

namespace {

/// A settings source that may approve project servers or enable plugins.
struct Layer {
  fs::path file;
  const json::object* root = nullptr;
  /// False for a project's own settings files in a folder the user has not trusted.
  bool counted = true;
  /// Only its `enableAllProjectMcpServers` approves (a rule seen for that key alone).
  bool enable_all_only = false;
};

bool is_true(const json::object& o, std::string_view key) { return util::get_bool(o, key) == true; }

bool lists(const json::object& o, std::string_view key, std::string_view name) {
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_array()) return false;
  for (const auto& v : it->value().get_array()) {
    if (v.is_string() && v.get_string() == name) return true;
  }
  return false;
}

/// Whether an `allowedMcpServers`/`deniedMcpServers` entry matches a definition.
bool policy_entry_matches(const json::value& entry, const ServerDefinition& def) {
  if (!entry.is_object()) return false;
  const json::object& e = entry.get_object();
  if (auto name = util::get_string(e, "serverName")) return *name == def.name;
  if (auto url = util::get_string(e, "serverUrl")) {
    auto actual = util::get_string(def.raw, "url");
    return actual && util::glob_match(*url, *actual);
  }
  if (auto it = e.find("serverCommand"); it != e.end() && it->value().is_array()) {
    json::array argv;
    if (auto command = util::get_string(def.raw, "command")) argv.emplace_back(*command);
    if (auto a = def.raw.find("args"); a != def.raw.end() && a->value().is_array()) {
      for (const auto& v : a->value().get_array()) argv.push_back(v);
    }
    return !argv.empty() && it->value().get_array() == argv;
  }
  return false;
}

/// Replaces `from` with `to` in every string of `v`.
void substitute(json::value& v, std::string_view from, const std::string& to) {
  if (v.is_string()) {
    std::string s(v.get_string());
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    v = s;
  } else if (v.is_array()) {
    for (auto& item : v.get_array()) substitute(item, from, to);
  } else if (v.is_object()) {
    for (auto& kv : v.get_object()) substitute(kv.value(), from, to);
  }
}

/// The folder whose `projects` entry applies to `dir` (checked in Claude Code 2.1.197 and 2.1.332 with marker
/// servers under `claude mcp list`): the nearest folder at or above `dir` that holds a `.git` (a repository's root;
/// a worktree's `.git` is a file), else `dir` itself. Nothing outside a repository walks further up. `dir` is a real
/// path.
fs::path project_key_folder(const fs::path& dir, util::FileReader& reader) {
  for (fs::path d = dir;; d = d.parent_path()) {
    if (reader.stat(d / ".git")) return d;
    if (!d.has_relative_path()) break;
  }
  return dir;
}

/// Whether the user accepted the trust dialog for `folder` itself (`hasTrustDialogAccepted` on its own entry).
bool trusted_here(const json::object* projects, const fs::path& folder) {
  const json::object* entry = projects ? util::get_object(*projects, folder.string()) : nullptr;
  return entry != nullptr && is_true(*entry, "hasTrustDialogAccepted");
}

/// Every `.mcp.json` from `dir` up to `/`, nearest first: Claude Code reads them all and the nearest definition of a
/// name wins. The folder's own is listed even when missing, so reports say where a project's servers would be.
std::vector<fs::path> mcp_json_files(const fs::path& dir, util::FileReader& reader) {
  std::vector<fs::path> out{dir / ".mcp.json"};
  for (fs::path d = dir.parent_path(); d != dir; d = d.parent_path()) {
    // Not only a regular file: one that is a FIFO or a device is read as refused, and says so.
    if (reader.stat(d / ".mcp.json")) out.push_back(d / ".mcp.json");
    if (!d.has_relative_path()) break;
  }
  return out;
}

FileReport report_of(const JsonFile& file, std::string scope, const json::object* holder) {
  FileReport r;
  r.source = {file.path, std::move(scope)};
  if (!file.exists) return r;
  if (!file.root) {
    r.status = file.error == "not a JSON object" ? FileReport::Status::no_servers : FileReport::Status::parse_error;
    r.error = file.error;
    r.line = file.line;
    r.column = file.column;
    return r;
  }
  r.status = FileReport::Status::no_servers;
  if (holder != nullptr) collect_servers(*holder, r);
  if (!r.servers.empty()) r.status = FileReport::Status::ok;
  return r;
}

void add_candidates(Resolution& res, const FileReport& report, Scope scope, std::optional<std::string> project,
                    Standing standing = Standing::active, std::string reason = {}) {
  for (const auto& def : report.servers) {
    Candidate c;
    c.definition = def;
    c.tool_server = tool_server_name(def.name);
    c.scope = scope;
    c.project = project;
    c.standing = standing;
    c.reason = reason;
    res.candidates.push_back(std::move(c));
  }
}

/// The servers of the enabled plugins (and the disabled ones, for explain-config).
void add_plugins(Resolution& res, const ClaudePaths& paths, const std::vector<Layer>& layers, util::FileReader& reader) {
  const fs::path list = paths.config_dir / "plugins" / "installed_plugins.json";
  JsonFile installed = load_json(reader, list);
  if (installed.exists && !installed.root) res.settings_files.emplace_back(list, installed.error);
  if (!installed.root) return;
  const json::object* plugins = util::get_object(*installed.root, "plugins");
  if (plugins == nullptr) return;
  for (const auto& kv : *plugins) {
    const std::string id(kv.key());
    const std::string plugin_name = id.substr(0, id.find('@'));
    // The first install that applies here: user-wide, or for this folder or one above it.
    std::optional<fs::path> root;
    const json::array* installs = kv.value().is_array() ? &kv.value().get_array() : nullptr;
    json::array single;
    if (installs == nullptr && kv.value().is_object()) {
      single.push_back(kv.value());
      installs = &single;
    }
    if (installs == nullptr) continue;
    for (const auto& inst : *installs) {
      if (!inst.is_object()) continue;
      auto path = util::get_string(inst.get_object(), "installPath");
      if (!path || path->empty()) continue;
      if (auto for_dir = util::get_string(inst.get_object(), "projectPath")) {
        const std::string here = res.project_dir.string();
        const std::string there = absolute_normal(*for_dir).string();
        if (here != there && here.rfind(there + "/", 0) != 0) continue;
      }
      root = *path;
      break;
    }
    if (!root) continue;
    // Precedence: managed, local, project, user; the first layer that says anything decides.
    std::optional<bool> enabled;
    for (const Layer& layer : layers) {
      if (!layer.counted || layer.root == nullptr || enabled) continue;
      if (const json::object* ep = util::get_object(*layer.root, "enabledPlugins")) {
        if (auto it = ep->find(id); it != ep->end() && it->value().is_bool()) enabled = it->value().get_bool();
      }
    }
    // Its servers: plugin.json's mcpServers (an object, or a file holding one), else the plugin's .mcp.json.
    const fs::path manifest = *root / ".claude-plugin" / "plugin.json";
    JsonFile man = load_json(reader, manifest);
    JsonFile servers_file;
    const json::object* holder = nullptr;
    json::object wrapped;
    if (man.root && man.root->contains("mcpServers")) {
      const json::value& v = man.root->at("mcpServers");
      if (v.is_object()) {
        holder = &*man.root;
        servers_file = man;
      } else if (v.is_string()) {
        servers_file = load_json(reader, *root / std::string(v.get_string()));
      }
    } else {
      servers_file = load_json(reader, *root / ".mcp.json");
    }
    if (holder == nullptr && servers_file.root) {
      if (servers_file.root->contains("mcpServers")) {
        holder = &*servers_file.root;
      } else {
        wrapped["mcpServers"] = *servers_file.root; // a bare map of servers
        holder = &wrapped;
      }
    }
    if (servers_file.exists && !servers_file.root) res.settings_files.emplace_back(servers_file.path, servers_file.error);
    if (holder == nullptr) continue;
    FileReport r = report_of(servers_file, "plugin " + id, holder);
    const std::string root_text = root->string();
    for (auto& def : r.servers) {
      json::value raw = def.raw;
      substitute(raw, "${CLAUDE_PLUGIN_ROOT}", root_text);
      def.raw = raw.get_object();
      Candidate c;
      c.definition = def;
      c.tool_server = plugin_tool_server_name(plugin_name, def.name);
      c.scope = Scope::plugin;
      c.plugin = id;
      if (enabled != true) {
        c.standing = Standing::plugin_disabled;
        c.reason = "plugin " + id + " is installed but not enabled (enabledPlugins)";
      }
      res.candidates.push_back(std::move(c));
    }
    res.files.push_back(std::move(r));
  }
}

/// Which version's rules of approval apply. Only the pinned versions' are known (NOTES.md): 2.1.332's hold from
/// it on; any other version, or none known, gets the rules every known version shares, the strictest.
enum class ApprovalRules { strictest, newest };

ApprovalRules approval_rules(const std::optional<std::string>& version) {
  if (version && util::compare_versions(*version, "2.1.332") >= 0) return ApprovalRules::newest;
  return ApprovalRules::strictest;
}

/// Project servers start only once approved; a project's own settings count only in a trusted folder. Headless,
/// Claude Code starts every one that is not rejected.
void apply_approvals(Candidate& c, const std::vector<Layer>& layers, DiscoveryInputs::Mode mode) {
  // A rejection anywhere keeps the server off, trusted folder or not: a restriction is safe wherever it comes from.
  for (const Layer& layer : layers) {
    if (layer.root && lists(*layer.root, "disabledMcpjsonServers", c.definition.name)) {
      c.standing = Standing::not_approved;
      c.reason = "rejected: disabledMcpjsonServers in " + layer.file.string() + " lists it";
      return;
    }
  }
  if (mode == DiscoveryInputs::Mode::headless) return;
  for (const Layer& layer : layers) {
    if (!layer.counted || layer.root == nullptr) continue;
    if (is_true(*layer.root, "enableAllProjectMcpServers") ||
        (!layer.enable_all_only && lists(*layer.root, "enabledMcpjsonServers", c.definition.name))) {
      return;
    }
  }
  c.standing = Standing::not_approved;
  c.reason = "not approved: Claude Code starts a .mcp.json server only once you approve it (enableAllProjectMcpServers, "
             "or its name in enabledMcpjsonServers)";
  for (const Layer& layer : layers) {
    if (!layer.counted && layer.root &&
        (is_true(*layer.root, "enableAllProjectMcpServers") || lists(*layer.root, "enabledMcpjsonServers", c.definition.name))) {
      c.reason += "; " + layer.file.string() + " approves it, but the folder is not trusted (no hasTrustDialogAccepted "
                  "for it or its repository's root in ~/.claude.json)";
      break;
    }
  }
}

/// Denials from any settings file Claude Code reads (a restriction is safe wherever it comes from); allowlists
/// from all of them together (users can broaden a managed one), or from the managed settings alone when those say
/// `allowManagedMcpServersOnly`. Layer 0 is the managed settings.
void apply_policies(Candidate& c, const std::vector<Layer>& layers) {
  if (!c.wins()) return;
  for (const Layer& layer : layers) {
    if (!layer.counted || layer.root == nullptr) continue;
    auto it = layer.root->find("deniedMcpServers");
    if (it == layer.root->end() || !it->value().is_array()) continue;
    for (const auto& entry : it->value().get_array()) {
      if (policy_entry_matches(entry, c.definition)) {
        c.standing = Standing::denied;
        c.reason = "denied by deniedMcpServers in " + layer.file.string();
        return;
      }
    }
  }
  const bool managed_only = layers.front().root != nullptr && is_true(*layers.front().root, "allowManagedMcpServersOnly");
  bool any_allowlist = false;
  std::string where;
  for (const Layer& layer : layers) {
    if (!layer.counted || layer.root == nullptr || (managed_only && &layer != &layers.front())) continue;
    auto it = layer.root->find("allowedMcpServers");
    if (it == layer.root->end() || !it->value().is_array()) continue;
    any_allowlist = true;
    where += (where.empty() ? "" : ", ") + layer.file.string();
    for (const auto& entry : it->value().get_array()) {
      if (policy_entry_matches(entry, c.definition)) return;
    }
  }
  if (any_allowlist) {
    c.standing = Standing::denied;
    c.reason = "not in allowedMcpServers (" + where + ")";
  }
}

} // namespace


Resolution claude_code_servers(const DiscoveryInputs& in, const util::Environment& env, util::FileReader& reader) {
  const ClaudePaths paths = claude_paths(env);
  Resolution res;
  res.project_dir = in.project_dir;
  if (!in.explicit_paths.empty()) {
    res.explicit_files = true;
    for (const auto& given : in.explicit_paths) {
      const fs::path path = absolute_normal(given);
      FileReport r = read_source({path, "explicit"}, reader);
      add_candidates(res, r, Scope::explicit_file, std::nullopt);
      res.files.push_back(std::move(r));
    }
    pick_winners(res, env, reader);
    return res;
  }

  // Claude Code keys its records by real paths: a symlinked spelling of a folder is the folder it points to.
  const fs::path dir = reader.real_path(absolute_normal(in.project_dir));
  JsonFile claude = load_json(reader, paths.claude_json);
  const json::object* projects = claude.root ? util::get_object(*claude.root, "projects") : nullptr;
  // One entry applies: the repository root's (a subfolder ignores its own), else the folder's own.
  const fs::path key = project_key_folder(dir, reader);
  const json::object* entry = projects ? util::get_object(*projects, key.string()) : nullptr;
  const std::string project_key = entry ? key.string() : std::string();
  // A project's approvals (its .claude/settings.json and settings.local.json, and the user's record of them in
  // ~/.claude.json) count only when the entry itself is trusted. NOTES.md has 2.1.332 taking trust anywhere between
  // the folder and the root for the latter two, and 2.1.197 taking them inside a repository without any; the
  // differential suite found a layout where trust on a folder between started nothing in either version. Where the
  // versions' rules differ or are not known, the strictest: never start what a client would not.
  res.trusted = trusted_here(projects, key);
  const ApprovalRules rules = approval_rules(agent::claude_version(in.client_version, env));

  JsonFile managed_settings = load_json(reader, paths.managed_dir / "managed-settings.json");
  JsonFile local_settings = load_json(reader, dir / ".claude" / "settings.local.json");
  JsonFile project_settings = load_json(reader, dir / ".claude" / "settings.json");
  JsonFile user_settings = load_json(reader, paths.config_dir / "settings.json");
  // Approval sources in precedence order.
  std::vector<Layer> layers = {
      {managed_settings.path, managed_settings.root ? &*managed_settings.root : nullptr, true},
      {paths.claude_json, entry, res.trusted},
      {local_settings.path, local_settings.root ? &*local_settings.root : nullptr, res.trusted},
      {project_settings.path, project_settings.root ? &*project_settings.root : nullptr, res.trusted},
      {user_settings.path, user_settings.root ? &*user_settings.root : nullptr, true},
  };
  // 2.1.332 from a subfolder of a trusted repository root: the root's own settings.local.json approves with
  // enableAllProjectMcpServers (issue 37's fourth layout, seen under `claude mcp list`; its enabledMcpjsonServers
  // there was not tried, so it does not count).
  JsonFile root_local_settings;
  if (rules == ApprovalRules::newest && key != dir && res.trusted) {
    root_local_settings = load_json(reader, key / ".claude" / "settings.local.json");
    layers.push_back({root_local_settings.path, root_local_settings.root ? &*root_local_settings.root : nullptr, true, true});
  }
  // (~/.claude.json's own errors are in `files`, as its local and user scope reports.)
  for (const JsonFile* f : {&managed_settings, &local_settings, &project_settings, &user_settings}) {
    if (f->exists && !f->root) {
      res.settings_files.emplace_back(f->path, f->error + util::at_line(f->line, f->column));
    }
  }

  // Managed config: when present, the only servers Claude Code starts.
  JsonFile managed = load_json(reader, paths.managed_dir / "managed-mcp.json");
  if (managed.exists) {
    FileReport r = report_of(managed, "managed", managed.root ? &*managed.root : nullptr);
    add_candidates(res, r, Scope::managed, std::nullopt);
    res.files.push_back(std::move(r));
    if (managed.root) res.managed_config = managed.path;
  }

  const std::size_t first_own = res.candidates.size();
  // The client's command line (`--mcp-config`): the user's own choice, ahead of every file scope (2.1.197 runs a
  // --mcp-config `svc` over a local, project or user one).
  if (in.client) {
    for (const auto& value : in.client->mcp_configs) {
      JsonFile f = is_json_text(value) ? parse_json_text(value) : load_json(reader, absolute_normal(in.client->cwd / value));
      FileReport r = report_of(f, "command-line", f.root ? &*f.root : nullptr);
      add_candidates(res, r, Scope::command_line, std::nullopt);
      res.files.push_back(std::move(r));
    }
  }
  const std::size_t first_file = res.candidates.size();
  {
    FileReport r = report_of(claude, "local", entry);
    r.project_key = project_key.empty() ? std::nullopt : std::optional<std::string>(project_key);
    add_candidates(res, r, Scope::local, project_key.empty() ? std::nullopt : std::optional<std::string>(project_key));
    res.files.push_back(std::move(r));
  }
  for (const fs::path& mcp_json : mcp_json_files(dir, reader)) {
    JsonFile project = load_json(reader, mcp_json);
    FileReport r = report_of(project, "project", project.root ? &*project.root : nullptr);
    const std::size_t from = res.candidates.size();
    add_candidates(res, r, Scope::project, mcp_json.parent_path().string());
    for (std::size_t i = from; i < res.candidates.size(); ++i) apply_approvals(res.candidates[i], layers, in.mode);
    res.files.push_back(std::move(r));
  }
  {
    FileReport r = report_of(claude, "user", claude.root ? &*claude.root : nullptr);
    add_candidates(res, r, Scope::user, std::nullopt);
    res.files.push_back(std::move(r));
  }
  add_plugins(res, paths, layers, reader);
  // The JS hook's own places: Claude Code reads no servers there, so neither do we (but explain-config shows them).
  std::vector<fs::path> js_files = {dir / ".claude" / "settings.json", paths.config_dir / "settings.json"};
  if (absolute_normal(dir / ".claude.json") != absolute_normal(paths.claude_json)) js_files.insert(js_files.begin(), dir / ".claude.json");
  for (const auto& path : js_files) {
    JsonFile f = load_json(reader, path);
    FileReport r = report_of(f, "js-hook-file", f.root ? &*f.root : nullptr);
    if (r.servers.empty()) continue;
    add_candidates(res, r, Scope::js_hook_file, std::nullopt, Standing::not_read,
                   "Claude Code does not start servers defined in " + path.string() + " (only the JS hook read it)");
    res.files.push_back(std::move(r));
  }

  for (std::size_t i = first_own; i < res.candidates.size(); ++i) {
    Candidate& c = res.candidates[i];
    if (c.standing != Standing::active) continue;
    if (res.managed_config) {
      c.standing = Standing::managed_only;
      c.reason = res.managed_config->string() + " is in force: Claude Code starts only the servers it defines";
    } else if (in.client && in.client->strict && i >= first_file && c.scope != Scope::js_hook_file) {
      c.standing = Standing::not_read;
      c.reason = "Claude Code runs with --strict-mcp-config: only the --mcp-config servers start";
    } else if (entry && lists(*entry, "disabledMcpServers", c.definition.name)) {
      c.standing = Standing::disabled;
      c.reason = "disabled with /mcp (disabledMcpServers of " + project_key + " in " + paths.claude_json.string() + ")";
    }
  }
  for (auto& c : res.candidates) apply_policies(c, layers);
  pick_winners(res, env, reader);
  return res;
}


std::vector<fs::path> claude_code_projects(const util::Environment& env, util::FileReader& reader) {
  std::vector<fs::path> out;
  JsonFile claude = load_json(reader, claude_paths(env).claude_json);
  if (!claude.root) return out;
  if (const json::object* projects = util::get_object(*claude.root, "projects")) {
    for (const auto& kv : *projects) out.emplace_back(std::string(kv.key()));
  }
  return out;
}

} // namespace mcphealth::agent
