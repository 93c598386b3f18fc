#include <mcphealth/config/resolver.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <sys/stat.h>

namespace mcphealth::config {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view scope_name(Scope scope) {
  switch (scope) {
  case Scope::explicit_file: return "explicit";
  case Scope::command_line: return "command-line";
  case Scope::managed: return "managed";
  case Scope::local: return "local";
  case Scope::project: return "project";
  case Scope::user: return "user";
  case Scope::plugin: return "plugin";
  case Scope::js_hook_file: return "js-hook-file";
  }
  return {};
}

std::string_view standing_name(Standing standing) {
  switch (standing) {
  case Standing::active: return "active";
  case Standing::shadowed: return "shadowed";
  case Standing::not_approved: return "not-approved";
  case Standing::disabled: return "disabled";
  case Standing::denied: return "denied";
  case Standing::managed_only: return "managed-only";
  case Standing::plugin_disabled: return "plugin-disabled";
  case Standing::not_read: return "not-read";
  }
  return {};
}

bool Candidate::named(std::string_view name) const {
  return name == definition.name || tool_server_name(name) == tool_server;
}

std::string Resolution::key_of(std::string_view name) const {
  const bool as_is = std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) { return c.tool_server == name; });
  return as_is ? std::string(name) : tool_server_name(name);
}

const Candidate* Resolution::winner(std::string_view tool_server) const {
  const std::string wanted = key_of(tool_server);
  for (const auto& c : candidates) {
    if (c.wins() && c.tool_server == wanted) return &c;
  }
  return nullptr;
}

std::vector<const Candidate*> Resolution::candidates_for(std::string_view tool_server) const {
  const std::string wanted = key_of(tool_server);
  std::vector<const Candidate*> out;
  for (const auto& c : candidates) {
    if (c.tool_server == wanted) out.push_back(&c);
  }
  return out;
}

std::vector<const Candidate*> Resolution::winners() const {
  std::vector<const Candidate*> out;
  for (const auto& c : candidates) {
    if (c.wins()) out.push_back(&c);
  }
  return out;
}

void pick_winners(Resolution& res, const util::Environment& env, util::FileReader& files) {
  for (std::size_t i = 0; i < res.candidates.size(); ++i) {
    Candidate& c = res.candidates[i];
    referenced_variables(json::value(c.definition.raw), res.variables);
    if (c.standing != Standing::active) continue;
    const Candidate* earlier = nullptr;
    for (std::size_t j = 0; j < i && earlier == nullptr; ++j) {
      if (res.candidates[j].wins() && res.candidates[j].tool_server == c.tool_server) earlier = &res.candidates[j];
    }
    if (earlier != nullptr) {
      c.standing = Standing::shadowed;
      c.reason = "shadowed by " + earlier->definition.source.string() + " (" + std::string(scope_name(earlier->scope)) + ")";
      continue;
    }
    resolve_candidate(c, env, res.project_dir, files);
  }
}

void resolve_candidate(Candidate& c, const util::Environment& env, const fs::path& project_dir,
                       util::FileReader& files) {
  c.resolved = resolve_server(c.definition, env, project_dir, files);
  // An unset ${VAR} does not stop it: Claude Code 2.1.197 warns and starts the server with the literal text.
  // A stdio server of a project's own files is that project's program (`./srv.sh` in two clones is two programs):
  // where it starts is part of what it is. A user's server is one program wherever it is used.
  const bool own_files = c.scope == Scope::project || c.scope == Scope::local;
  const StartFolder start_folder = own_files ? StartFolder::counts : StartFolder::ignored;
  c.fingerprint = definition_fingerprint(*c.resolved, start_folder);
  c.shape = definition_shape(*c.resolved, start_folder);
}

std::optional<Scope> scope_of_client_source(std::string_view source) {
  if (source == "user") return Scope::user;
  if (source == "local") return Scope::local;
  if (source == "project") return Scope::project;
  if (source == "dynamic") return Scope::command_line;
  if (source == "plugin") return Scope::plugin;
  return std::nullopt;
}

void referenced_variables(const json::value& v, std::vector<std::string>& out) {
  if (v.is_string()) {
    std::string_view s = v.get_string();
    for (std::size_t at = s.find("${"); at != std::string_view::npos; at = s.find("${", at + 2)) {
      std::size_t end = at + 2;
      while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) != 0 || s[end] == '_')) ++end;
      if (end > at + 2) {
        std::string name(s.substr(at + 2, end - at - 2));
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
      }
    }
  } else if (v.is_array()) {
    for (const auto& item : v.get_array()) referenced_variables(item, out);
  } else if (v.is_object()) {
    for (const auto& kv : v.get_object()) referenced_variables(kv.value(), out);
  }
}

std::string definition_fingerprint(const ResolvedServer& server, StartFolder start_folder) {
  std::string text;
  auto field = [&](std::string_view s) {
    text += std::to_string(s.size());
    text += ':';
    text += s;
  };
  // The name too: its reconnect command and its entry for the JS hook are per name.
  field(tool_server_name(server.definition.name));
  if (const auto* stdio = std::get_if<StdioServer>(&server.transport)) {
    field("stdio");
    field(stdio->command);
    for (const auto& a : stdio->args) field(a);
    field("env");
    std::string values;
    if (const json::object* env = util::get_object(server.definition.raw, "env")) {
      std::vector<std::string> names = stdio->env_names;
      std::sort(names.begin(), names.end());
      for (const auto& n : names) {
        field(n);
        for (const auto& e : stdio->environment) {
          if (e.compare(0, n.size() + 1, n + "=") == 0) values += e;
        }
      }
      (void)env;
    }
    field(hash_hex(values));
    // A folder the definition names is part of what it starts (a relative one differs per session); the session's
    // own folder only when the caller says so, so a user's server keeps one verdict across the folders it is used in.
    if (!server.definition.cwd.empty() || start_folder == StartFolder::counts) {
      field("cwd");
      field(stdio->cwd.string());
    }
  } else if (const auto* http = std::get_if<HttpServer>(&server.transport)) {
    field(http->type);
    field(http->url.for_transport());
    // Header values as a digest only (never the values): two projects with one URL and a good and a revoked token
    // are two servers to the client, and each keeps its own verdict.
    std::vector<std::pair<std::string, std::string>> headers = http->headers;
    std::sort(headers.begin(), headers.end());
    std::string values;
    for (const auto& [name, value] : headers) {
      field(name);
      values += std::to_string(value.size()) + ":" + value;
    }
    field(hash_hex(values));
  } else {
    field("unsupported");
    field(json::serialize(server.definition.raw));
  }
  return hash_hex(text);
}

DefinitionShape definition_shape(const ResolvedServer& server, StartFolder start_folder) {
  DefinitionShape shape;
  const auto part = [&](std::string name, std::string_view value) {
    shape.emplace_back(std::move(name), hash_hex(value).substr(0, 8));
  };
  // The same parts as definition_fingerprint's, in its order; the name is not one (two rows of one name).
  if (const auto* stdio = std::get_if<StdioServer>(&server.transport)) {
    part("type", "stdio");
    part("command", stdio->command);
    std::string args;
    for (const auto& a : stdio->args) args += std::to_string(a.size()) + ":" + a;
    part("args", args);
    std::vector<std::string> names = stdio->env_names;
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      std::string value = "-";
      for (const auto& e : stdio->environment) {
        if (e.compare(0, n.size() + 1, n + "=") == 0) value = e;
      }
      part("env " + n, value);
    }
    if (!server.definition.cwd.empty() || start_folder == StartFolder::counts) part("cwd", stdio->cwd.string());
  } else if (const auto* http = std::get_if<HttpServer>(&server.transport)) {
    part("type", http->type);
    part("url", http->url.for_transport());
    std::vector<std::pair<std::string, std::string>> headers = http->headers;
    std::sort(headers.begin(), headers.end());
    for (const auto& [name, value] : headers) part("header " + name, value);
  } else {
    part("type", "unsupported");
    part("definition", json::serialize(server.definition.raw));
  }
  return shape;
}

std::string shape_difference(const DefinitionShape& before, const DefinitionShape& now) {
  if (before.empty() || now.empty()) return {};
  const auto find = [](const DefinitionShape& in, const std::string& name) -> const std::string* {
    for (const auto& [n, v] : in) {
      if (n == name) return &v;
    }
    return nullptr;
  };
  std::vector<std::string> said;
  for (const auto& [name, value] : now) {
    const std::string* was = find(before, name);
    if (was == nullptr) said.push_back(name + " added");
    else if (*was != value) said.push_back(name + " changed");
  }
  for (const auto& [name, value] : before) {
    if (find(now, name) == nullptr) said.push_back(name + " removed");
  }
  std::string out;
  for (const auto& s : said) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string resolution_stamp(const std::vector<fs::path>& files, const std::vector<std::string>& variables,
                             const util::Environment& env, util::FileReader& reader) {
  // The fingerprints' own version: a binding made when they were reckoned otherwise is made again, once.
  std::string text = "fingerprints 3;" + util::stamp_of(files, reader);
  for (const auto& v : variables) {
    auto value = env.get(v);
    text += v + (value ? "=" + *value : std::string("-")) + ";";
  }
  return hash_hex(text);
}

std::string resolution_stamp(const DiscoveryInputs& inputs, const Resolution& resolution, const util::Environment& env) {
  return resolution_stamp(resolution.read_files, resolution.variables, env, inputs.reader ? *inputs.reader : util::disk());
}

} // namespace mcphealth::config
