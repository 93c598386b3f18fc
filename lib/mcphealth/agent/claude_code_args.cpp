#include <mcphealth/agent/claude_code_args.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <cctype>

#include <unistd.h>

namespace mcphealth::agent {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_option = "--mcp-config";
constexpr std::string_view k_strict = "--strict-mcp-config";
/// How far up the hook's ancestors the client is looked for: the hook, its shell, a wrapper or three.
constexpr int k_max_hops = 6;

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

/// `claude` itself (its native binary), or a runtime running its npm package.
bool is_claude(const platform::ProcessInfo& p) {
  if (p.argv.empty()) return false;
  if (base_name(p.argv[0]) == "claude") return true;
  return p.argv.size() > 1 && (p.argv[1].find("claude-code") != std::string::npos || base_name(p.argv[1]) == "claude");
}

} // namespace


config::ClientArguments parse_client_arguments(const std::vector<std::string>& args, fs::path cwd) {
  config::ClientArguments out;
  out.cwd = std::move(cwd);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break; // the rest is the prompt
    if (a == k_strict) {
      out.strict = true;
    } else if (a.size() > k_option.size() && a.compare(0, k_option.size() + 1, std::string(k_option) + "=") == 0) {
      out.mcp_configs.push_back(a.substr(k_option.size() + 1));
    } else if (a == k_option) {
      while (i + 1 < args.size() && !(args[i + 1].size() > 1 && args[i + 1][0] == '-')) out.mcp_configs.push_back(args[++i]);
    }
  }
  return out;
}

std::optional<std::string> claude_version_of(const fs::path& program) {
  const std::string name = program.filename().string();
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name.front())) && util::version_in(name) == name) return name;
  fs::path dir = program.parent_path();
  for (int up = 0; up < 3 && dir.has_relative_path(); ++up, dir = dir.parent_path()) {
    const auto text = util::read_file(dir / "package.json", 64 * 1024);
    if (!text) continue;
    const util::JsonParse parsed = util::parse_json(*text, util::JsonComments::refused);
    if (!parsed || !parsed->is_object()) return std::nullopt;
    if (util::get_string(parsed->get_object(), "name") != std::optional<std::string>("@anthropic-ai/claude-code")) {
      return std::nullopt; // another package's file: the program is not Claude Code's, or not as npm lays it out
    }
    const std::optional<std::string> v = util::get_string(parsed->get_object(), "version");
    return v && util::version_in(*v) == *v ? v : std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> claude_version(const std::optional<std::string>& seen, const util::Environment& env) {
  if (seen) return seen;
  const std::optional<std::string> given = env.get("MCPHEALTH_CLAUDE_VERSION");
  if (given && !given->empty() && util::version_in(*given) == *given) return given;
  return std::nullopt;
}

ClientProcess client_process(const util::Environment& env) {
  ClientProcess out;
  if (env.get("CLAUDECODE").value_or("") != "1") return out;
  pid_t pid = ::getppid();
  for (int hop = 0; hop < k_max_hops && pid > 1; ++hop) {
    const std::optional<platform::ProcessInfo> p = platform::process_info(pid);
    if (!p) return out; // gone, or not known on this platform
    // The nearest `claude` above: shells and wrappers that fork (`timeout 30 mcphealth hook`, `nice`, `env`) between
    // it and the hook are passed over.
    if (!is_claude(*p)) {
      pid = p->parent;
      continue;
    }
    config::ClientArguments args = parse_client_arguments({p->argv.begin() + 1, p->argv.end()}, p->cwd);
    if (!args.empty()) out.args = std::move(args);
    // Its program: the executable, or the script a runtime runs (`node .../cli.js`).
    out.version = p->executable.empty() ? std::nullopt : claude_version_of(p->executable);
    if (!out.version && p->argv.size() > 1 && fs::path(p->argv[1]).is_absolute()) out.version = claude_version_of(p->argv[1]);
    return out;
  }
  return out;
}

config::DiscoveryInputs::Mode client_mode(const util::Environment& env) {
  const auto entrypoint = env.get("CLAUDE_CODE_ENTRYPOINT");
  return entrypoint && *entrypoint == "sdk-cli" ? config::DiscoveryInputs::Mode::headless : config::DiscoveryInputs::Mode::interactive;
}

} // namespace mcphealth::agent
