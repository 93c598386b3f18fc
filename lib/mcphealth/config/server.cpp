#include <mcphealth/config/server.hpp>

#include <mcphealth/config/expand.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <cctype>

namespace mcphealth::config {

namespace json = boost::json;
namespace fs = std::filesystem;

std::vector<std::string> code_files(const StdioServer& server) {
  static constexpr std::string_view k_code_extensions[] = {
      ".js", ".mjs", ".cjs", ".ts", ".mts", ".py", ".rb", ".php", ".pl", ".jar", ".sh",
      ".json", ".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".env"};
  std::vector<std::string> files;
  if (!server.executable.empty()) files.push_back(server.executable.lexically_normal().string());
  for (const std::string& arg : server.args) {
    if (files.size() >= k_most_code_files) break;
    // Not a flag, a URL or a `NAME=value` (they may carry credentials, and a stored path must not), nor a line.
    if (arg.empty() || arg.starts_with('-') || arg.find_first_of("=\n") != std::string::npos ||
        arg.find("://") != std::string::npos)
      continue;
    const std::string ext = fs::path(arg).extension().string();
    if (std::find(std::begin(k_code_extensions), std::end(k_code_extensions), ext) == std::end(k_code_extensions)) continue;
    const fs::path p = fs::path(arg).is_absolute() || server.cwd.empty() ? fs::path(arg) : server.cwd / arg;
    const std::string normal = p.lexically_normal().string();
    if (std::find(files.begin(), files.end(), normal) == files.end()) files.push_back(normal);
  }
  return files;
}

fs::path find_on_path(const std::string& command, const std::vector<std::string>& environment, const fs::path& base,
                      util::FileReader& files) {
  if (command.empty()) return {};
  if (command.find('/') != std::string::npos) return command;
  std::string path_var = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& e : environment) {
    if (e.rfind("PATH=", 0) == 0) path_var = e.substr(5);
  }
  std::size_t start = 0;
  while (start <= path_var.size()) {
    std::size_t colon = path_var.find(':', start);
    std::string dir = path_var.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    fs::path candidate = (dir.empty() ? fs::path(".") : fs::path(dir)) / command;
    if (candidate.is_relative() && !base.empty()) candidate = (base / candidate).lexically_normal();
    if (files.executable(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return {};
}

ResolvedServer resolve_server(const ServerDefinition& def, const util::Environment& env, const fs::path& session_folder,
                              util::FileReader& files) {
  ResolvedServer out{def, UnsupportedServer{"unsupported MCP server config"}, {}};
  const json::object& raw = def.raw;
  // A remote definition's url and headers are always read for variables: Codex CLI, which starts a stdio server as
  // written, names a header's variable in its own keys (bearer_token_env_var), which its catalogue writes as ${VAR}.
  const VarExpansion remote_syntax = def.expansion == VarExpansion::literal ? VarExpansion::braces : def.expansion;
  auto expand = [&](std::string_view s) { return expand_vars(s, env, out.unset_vars, remote_syntax); };

  const std::string type = util::get_string(raw, "type").value_or("");
  const auto url = util::get_string(raw, "url");
  const auto command = util::get_string(raw, "command");

  if (type == "http" || type == "streamable-http" || type == "streamableHttp" || type == "sse" ||
      (type.empty() && url && !command)) {
    if (!url) {
      out.transport = UnsupportedServer{"unsupported MCP server config: type " + type + " without a url"};
      return out;
    }
    HttpServer http;
    http.url = util::SecretUrl(expand(*url));
    const std::string& text = http.url.for_transport();
    const std::string scheme = text.substr(0, text.find("://"));
    std::string lower;
    for (char c : scheme) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (text.find("://") == std::string::npos || (lower != "http" && lower != "https")) {
      out.transport = UnsupportedServer{"only http and https URLs are probed, not " + util::cap_utf8(http.url.shown(), 200)};
      return out;
    }
    http.type = type == "sse" ? "sse" : "http";
    if (const json::object* headers = util::get_object(raw, "headers")) {
      for (const auto& kv : *headers) {
        if (kv.value().is_string()) http.headers.emplace_back(std::string(kv.key()), expand(kv.value().get_string()));
      }
    }
    out.transport = std::move(http);
    return out;
  }
  if ((type.empty() || type == "stdio") && command && !command->empty()) {
    const auto as_started = [&](std::string_view s) { return expand_vars(s, env, out.unset_vars, def.expansion); };
    StdioServer stdio;
    stdio.command = as_started(*command);
    if (auto it = raw.find("args"); it != raw.end() && it->value().is_array()) {
      for (const auto& a : it->value().get_array()) {
        if (a.is_string()) stdio.args.push_back(as_started(a.get_string()));
        else if (a.is_number()) stdio.args.push_back(json::serialize(a));
      }
    }
    // What the agent passes on of its own environment, over what it sets beneath; then the definition's `env`.
    const EnvRule& rule = def.env_rule;
    util::MapEnvironment passed;
    for (const auto& [k, v] : rule.beneath) passed.set(k, v);
    for (const auto& entry : env.entries()) {
      const std::size_t eq = entry.find('=');
      const std::string_view name = std::string_view(entry).substr(0, eq);
      const std::string_view value = eq == std::string::npos ? std::string_view() : std::string_view(entry).substr(eq + 1);
      if (!rule.passes || rule.passes(name, value)) passed.set(std::string(name), std::string(value));
    }
    if (const json::object* env_obj = util::get_object(raw, "env")) {
      std::vector<std::pair<std::string, std::string>> overrides;
      for (const auto& kv : *env_obj) {
        if (rule.refuses && rule.refuses(kv.key())) continue;
        std::string value = kv.value().is_string() ? as_started(kv.value().get_string()) : json::serialize(kv.value());
        if (rule.unset_in_env == UnsetVar::empty) {
          std::vector<std::string> ignored;
          value = expand_vars(value, passed, ignored, def.expansion, UnsetVar::empty);
        }
        overrides.emplace_back(std::string(kv.key()), std::move(value));
        stdio.env_names.emplace_back(kv.key());
      }
      for (auto& [k, v] : overrides) passed.set(std::move(k), std::move(v));
    }
    stdio.environment = passed.entries();
    // Where the agent starts it: a server whose args name files relative to the project must find them from a
    // probe run anywhere (cron runs in $HOME).
    std::error_code ignored;
    const fs::path session = session_folder.empty() ? fs::current_path(ignored) : absolute_normal(session_folder);
    stdio.cwd = def.cwd.empty() ? session : (session / as_started(def.cwd)).lexically_normal();
    stdio.executable = find_on_path(stdio.command, stdio.environment, stdio.cwd, files);
    if (!stdio.executable.empty() && stdio.executable.is_relative()) {
      stdio.executable = (stdio.cwd / stdio.executable).lexically_normal();
    }
    out.transport = std::move(stdio);
    return out;
  }
  return out;
}

std::string transport_name(const Transport& transport) {
  if (const auto* h = std::get_if<HttpServer>(&transport)) return h->type;
  if (std::holds_alternative<StdioServer>(transport)) return "stdio";
  return "unsupported";
}

bool HttpServer::sends_authorization() const {
  return std::any_of(headers.begin(), headers.end(), [](const auto& h) {
    return h.first.size() == 13 && std::equal(h.first.begin(), h.first.end(), "authorization", [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == b;
           });
  });
}

} // namespace mcphealth::config
