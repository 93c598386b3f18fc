#include <mcphealth/agent/claude_code_args.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/util/fs.hpp>

#include <unistd.h>

namespace mcphealth::agent {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_option = "--mcp-config";
constexpr std::string_view k_strict = "--strict-mcp-config";
/// How far up the hook's ancestors the client is looked for: the hook, its shell, a wrapper or three.
constexpr int k_max_hops = 6;

struct Process {
  std::vector<std::string> argv;
  pid_t parent = 0;
};

std::optional<Process> read_process(pid_t pid) {
  const fs::path dir = "/proc/" + std::to_string(pid);
  auto cmdline = util::read_file(dir / "cmdline", 256 * 1024);
  auto stat = util::read_file(dir / "stat", 4096);
  if (!cmdline || !stat) return std::nullopt;
  Process p;
  std::string arg;
  for (char ch : *cmdline) {
    if (ch == '\0') {
      p.argv.push_back(std::move(arg));
      arg.clear();
    } else {
      arg += ch;
    }
  }
  if (!arg.empty()) p.argv.push_back(std::move(arg));
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
  const std::size_t close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  const std::size_t ppid_at = stat->find_first_of("0123456789", close);
  if (ppid_at == std::string::npos) return std::nullopt;
  p.parent = static_cast<pid_t>(std::strtol(stat->c_str() + ppid_at, nullptr, 10));
  return p;
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

/// `claude` itself (its native binary), or a runtime running its npm package.
bool is_claude(const Process& p) {
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

std::optional<config::ClientArguments> client_arguments(const util::Environment& env) {
#ifdef __linux__
  if (env.get("CLAUDECODE").value_or("") != "1") return std::nullopt;
  pid_t pid = ::getppid();
  for (int hop = 0; hop < k_max_hops && pid > 1; ++hop) {
    const std::optional<Process> p = read_process(pid);
    if (!p) return std::nullopt;
    // The nearest `claude` above: shells and wrappers that fork (`timeout 30 mcphealth hook`, `nice`, `env`) between
    // it and the hook are passed over.
    if (!is_claude(*p)) {
      pid = p->parent;
      continue;
    }
    std::error_code ec;
    fs::path cwd = fs::read_symlink("/proc/" + std::to_string(pid) + "/cwd", ec);
    config::ClientArguments args = parse_client_arguments({p->argv.begin() + 1, p->argv.end()}, std::move(cwd));
    if (args.empty()) return std::nullopt;
    return args;
  }
#else
  (void)env;
#endif
  return std::nullopt;
}

config::DiscoveryInputs::Mode client_mode(const util::Environment& env) {
  const auto entrypoint = env.get("CLAUDE_CODE_ENTRYPOINT");
  return entrypoint && *entrypoint == "sdk-cli" ? config::DiscoveryInputs::Mode::headless : config::DiscoveryInputs::Mode::interactive;
}

} // namespace mcphealth::agent
