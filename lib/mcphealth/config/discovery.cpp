#include <mcphealth/config/discovery.hpp>

#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::config {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

bool is_file(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

fs::path absolute_normal(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  abs = abs.lexically_normal();
  // "/a/b/" normalizes to "/a/b/" with an empty last part; drop it so keys compare equal.
  if (abs.has_relative_path() && abs.filename().empty()) abs = abs.parent_path();
  return abs;
}

DiscoveryInputs discovery_inputs(const util::Environment& env, std::vector<fs::path> explicit_paths,
                                 const std::string& payload_cwd) {
  DiscoveryInputs in;
  in.explicit_paths = std::move(explicit_paths);
  in.home = util::home_dir(env);
  in.claude_json = util::claude_json_path(env);
  if (auto dir = env.get("CLAUDE_CONFIG_DIR"); dir && !dir->empty()) in.config_dir = *dir;
  else in.config_dir = in.home / ".claude";
  if (auto dir = env.get("MCPHEALTH_MANAGED_DIR"); dir && !dir->empty()) {
    in.managed_dir = *dir;
  } else {
#ifdef __APPLE__
    in.managed_dir = "/Library/Application Support/ClaudeCode";
#else
    in.managed_dir = "/etc/claude-code";
#endif
  }
  if (auto dir = env.get("CLAUDE_PROJECT_DIR"); dir && !dir->empty()) {
    in.project_dir = absolute_normal(*dir);
  } else if (!payload_cwd.empty()) {
    in.project_dir = absolute_normal(payload_cwd);
  } else {
    std::error_code ec;
    in.project_dir = fs::current_path(ec);
  }
  return in;
}

std::vector<ConfigSource> search_order(const DiscoveryInputs& in) {
  std::vector<ConfigSource> out;
  if (!in.explicit_paths.empty()) {
    for (const auto& p : in.explicit_paths) out.push_back({absolute_normal(p), ConfigSource::Kind::servers, "explicit"});
    return out;
  }
  const fs::path dir = in.project_dir;
  out.push_back({dir / ".claude.json", ConfigSource::Kind::servers, "project .claude.json"});
  out.push_back({dir / ".claude" / "settings.json", ConfigSource::Kind::servers, "project .claude/settings.json"});
  out.push_back({in.claude_json, ConfigSource::Kind::project_entry, "local scope"});
  fs::path mcp_json = dir / ".mcp.json";
  for (fs::path d = dir;; d = d.parent_path()) {
    if (is_file(d / ".mcp.json")) {
      mcp_json = d / ".mcp.json";
      break;
    }
    if (!d.has_relative_path()) break;
  }
  out.push_back({mcp_json, ConfigSource::Kind::servers, "project scope"});
  out.push_back({in.claude_json, ConfigSource::Kind::servers, "user scope"});
  out.push_back({in.home / ".claude" / "settings.json", ConfigSource::Kind::servers, "user settings.json"});
  return out;
}

std::string config_fingerprint(const std::vector<ConfigSource>& sources) {
  std::string out;
  for (const auto& s : sources) {
    struct stat st {};
    out += s.file.string();
    if (::stat(s.file.c_str(), &st) == 0) {
#ifdef __APPLE__
      const auto& mtime = st.st_mtimespec;
#else
      const auto& mtime = st.st_mtim;
#endif
      out += '@';
      out += std::to_string(mtime.tv_sec);
      out += '.';
      out += std::to_string(mtime.tv_nsec);
      out += '/';
      out += std::to_string(st.st_size);
    } else {
      out += "@-";
    }
    out += ";";
  }
  return out;
}

void collect_servers(const json::object& holder, FileReport& report) {
  for (std::string_view key : {"mcpServers", "mcp_servers"}) {
    const json::object* servers = util::get_object(holder, key);
    if (servers == nullptr) continue;
    for (const auto& kv : *servers) {
      if (!kv.value().is_object()) continue;
      std::string name(kv.key());
      bool seen = false;
      for (const auto& d : report.servers) seen = seen || d.name == name;
      if (!seen) report.servers.push_back({name, report.source.file, report.source.scope, kv.value().get_object()});
    }
  }
}

FileReport read_source(const ConfigSource& source, const fs::path& project_dir) {
  FileReport report;
  report.source = source;
  util::FileRead file = util::read_file(source.file);
  if (file.status == util::FileRead::Status::missing) return report;
  if (file.status == util::FileRead::Status::error) {
    report.status = FileReport::Status::unreadable;
    report.error = file.error;
    return report;
  }
  util::JsonParse parsed = util::parse_json(file.bytes);
  if (!parsed.value) {
    report.status = FileReport::Status::parse_error;
    report.error = parsed.error;
    report.line = parsed.line;
    report.column = parsed.column;
    return report;
  }
  report.status = FileReport::Status::no_servers;
  if (!parsed.value->is_object()) return report;
  const json::object& root = parsed.value->get_object();
  if (source.kind == ConfigSource::Kind::servers) {
    collect_servers(root, report);
  } else if (const json::object* projects = util::get_object(root, "projects")) {
    for (fs::path d = absolute_normal(project_dir);; d = d.parent_path()) {
      if (const json::object* entry = util::get_object(*projects, d.string())) {
        report.project_key = d.string();
        collect_servers(*entry, report);
        break;
      }
      if (!d.has_relative_path()) break;
    }
  }
  if (!report.servers.empty()) report.status = FileReport::Status::ok;
  return report;
}

const FileReport& ConfigReader::report(std::size_t index) {
  if (m_reports.size() < m_sources.size()) m_reports.resize(m_sources.size());
  if (!m_reports[index]) m_reports[index] = read_source(m_sources[index], m_project_dir);
  return *m_reports[index];
}

std::optional<ServerDefinition> ConfigReader::find(std::string_view name) {
  for (std::size_t i = 0; i < m_sources.size(); ++i) {
    for (const auto& def : report(i).servers) {
      if (def.name == name) return def;
    }
  }
  return std::nullopt;
}

std::vector<ServerDefinition> ConfigReader::definitions_of(std::string_view name) {
  std::vector<ServerDefinition> out;
  for (std::size_t i = 0; i < m_sources.size(); ++i) {
    for (const auto& def : report(i).servers) {
      if (def.name == name) out.push_back(def);
    }
  }
  return out;
}

std::vector<ServerDefinition> ConfigReader::all_winners() {
  std::vector<ServerDefinition> out;
  for (std::size_t i = 0; i < m_sources.size(); ++i) {
    for (const auto& def : report(i).servers) {
      bool seen = false;
      for (const auto& d : out) seen = seen || d.name == def.name;
      if (!seen) out.push_back(def);
    }
  }
  return out;
}

const std::vector<FileReport>& ConfigReader::reports() {
  if (m_all.empty()) {
    for (std::size_t i = 0; i < m_sources.size(); ++i) m_all.push_back(report(i));
  }
  return m_all;
}

} // namespace mcphealth::config
