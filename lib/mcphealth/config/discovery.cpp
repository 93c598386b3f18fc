#include <mcphealth/config/discovery.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/toml.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <string_view>
#include <unordered_set>

namespace mcphealth::config {

namespace fs = std::filesystem;
namespace json = boost::json;

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

std::string config_fingerprint(const std::vector<ConfigSource>& sources, util::FileReader& reader) {
  std::vector<fs::path> files;
  for (const auto& s : sources) files.push_back(s.file);
  return util::stamp_of(files, reader);
}

void collect_servers(const json::object& holder, FileReport& report, std::span<const std::string_view> keys) {
  for (std::string_view key : keys) {
    const json::object* servers = util::get_object(holder, key);
    if (servers == nullptr) continue;
    // One object's keys are already one of each; only the second spelling can repeat a name, so a set of the
    // first's is all the check there is: linear however many a repository's file names.
    std::unordered_set<std::string_view> seen;
    for (const auto& d : report.servers) seen.insert(d.name);
    for (const auto& kv : *servers) {
      if (!kv.value().is_object() || seen.contains(kv.key())) continue;
      if (report.servers.size() >= k_max_servers_per_file) {
        ++report.servers_not_read;
        continue;
      }
      report.servers.push_back({std::string(kv.key()), report.source.file, report.source.scope, kv.value().get_object()});
    }
  }
}

FileReport read_source(const ConfigSource& source, util::FileReader& reader, FileFormat format,
                       std::span<const std::string_view> keys) {
  FileReport report;
  report.source = source;
  const auto file = reader.read(source.file);
  if (!file && file.error().is(util::ReadFailure::missing)) return report;
  if (!file) {
    report.status = FileReport::Status::unreadable;
    report.error = file.error().message;
    return report;
  }
  util::JsonParse parsed = format == FileFormat::toml ? util::parse_toml(*file)
                           : util::parse_json(*file, format == FileFormat::json_with_comments ? util::JsonComments::allowed
                                                                                             : util::JsonComments::refused);
  if (!parsed) {
    report.status = FileReport::Status::parse_error;
    report.error = parsed.error().message;
    report.line = parsed.error().line;
    report.column = parsed.error().column;
    return report;
  }
  report.status = FileReport::Status::no_servers;
  if (parsed->is_object()) collect_servers(parsed->get_object(), report, keys);
  if (!report.servers.empty()) report.status = FileReport::Status::ok;
  return report;
}


std::string ClientArguments::stamp() const {
  std::string text = cwd.string();
  for (const auto& v : mcp_configs) text += "\n" + std::to_string(v.size()) + ":" + v;
  text += strict ? "\nstrict" : "";
  return hash_hex(text).substr(0, 12);
}

} // namespace mcphealth::config
