#include <mcphealth/config/settings.hpp>

#include <mcphealth/util/redact.hpp>

#include <mcphealth/util/text.hpp>

#include <charconv>

namespace mcphealth::config {

namespace fs = std::filesystem;

std::string Origin::text() const {
  switch (kind) {
  case Kind::variable: return "variable " + name;
  case Kind::flag: return "flag " + name;
  case Kind::policy: return "policy " + name;
  case Kind::built_in: break;
  }
  return name.empty() ? "default" : "default (" + name + ")";
}

std::string_view probe_mode_name(ProbeMode mode) {
  switch (mode) {
  case ProbeMode::skip: return "skip";
  case ProbeMode::liveness: return "liveness";
  case ProbeMode::handshake: return "handshake";
  case ProbeMode::automatic: break;
  }
  return "auto";
}

std::string_view protocol_mode_name(ProtocolMode mode) {
  switch (mode) {
  case ProtocolMode::legacy: return "legacy";
  case ProtocolMode::modern: return "modern";
  case ProtocolMode::automatic: break;
  }
  return "auto";
}

std::optional<ProbeMode> parse_probe_mode(std::string_view text) {
  for (ProbeMode m : {ProbeMode::automatic, ProbeMode::liveness, ProbeMode::handshake, ProbeMode::skip}) {
    if (text == probe_mode_name(m)) return m;
  }
  return std::nullopt;
}

std::optional<ProtocolMode> parse_protocol_mode(std::string_view text) {
  for (ProtocolMode m : {ProtocolMode::automatic, ProtocolMode::modern, ProtocolMode::legacy}) {
    if (text == protocol_mode_name(m)) return m;
  }
  return std::nullopt;
}

std::string SettingWarning::text() const {
  switch (code) {
  case Code::not_a_whole_number:
    return "ignoring " + variable + "=" + value + ": not a non-negative whole number; using " + detail;
  case Code::capped: return "capping " + variable + "=" + value + " at " + detail;
  case Code::zero_timeout: return "ignoring " + variable + "=" + value + ": a timeout must be at least 1 ms; using " + detail;
  case Code::not_a_choice: return "ignoring " + variable + "=" + value + ": expected " + detail;
  case Code::home_in_path:
    return variable + " entry '" + value + "' starts with ~ or $HOME; mcphealth expands it to " + detail +
           ", but launchd and the JS hook would not";
  }
  return {};
}

std::string ReconnectSpec::text() const {
  if (argv.empty()) return util::redact(shell);
  std::string out;
  for (const auto& word : util::redact_args(argv)) out += (out.empty() ? "" : " ") + util::shell_word(word);
  return out;
}

std::string CheckSpec::text() const {
  switch (kind) {
  case Kind::command: return "command " + ReconnectSpec{argv, shell}.text();
  case Kind::url: return "url " + util::redact(url) + (headers ? " (with the definition's headers)" : "");
  case Kind::tool: return "tool " + tool + (arguments == "{}" ? std::string() : " " + util::redact(arguments));
  }
  return {};
}

fs::path expand_home(const std::string& path, const util::Environment& env, bool& expanded) {
  expanded = false;
  if (path == "~" || path.rfind("~/", 0) == 0) {
    expanded = true;
    return util::home_dir(env) / path.substr(path.size() > 1 ? 2 : 1);
  }
  for (std::string_view literal : {"$HOME", "${HOME}"}) {
    if (path.rfind(literal, 0) == 0 && (path.size() == literal.size() || path[literal.size()] == '/')) {
      expanded = true;
      std::string rest = path.substr(literal.size());
      if (!rest.empty()) rest.erase(0, 1);
      return util::home_dir(env) / rest;
    }
  }
  return path;
}

namespace {

/// Whether 0 is a value the setting can take (a TTL or backoff of 0 can be meant; a timeout of 0 cannot).
enum class ZeroAllowed { no, yes };

void read_whole_number(Setting<std::int64_t>& setting, const util::Environment& env, std::string_view ecc_name,
                       std::vector<SettingWarning>& warnings, ZeroAllowed zero = ZeroAllowed::yes,
                       const std::string& in_force = {}) {
  auto found = util::lookup_setting(env, ecc_name);
  if (!found) return;
  // What is used instead: the value, or (where commands default apart) the words `in_force` gives.
  const std::string fallback = in_force.empty() ? std::to_string(setting.value) : in_force;
  std::int64_t value = 0;
  const char* begin = found->value.data();
  const char* end = begin + found->value.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr != end || value < 0) {
    warnings.push_back({SettingWarning::Code::not_a_whole_number, found->name, found->value, fallback});
    return;
  }
  if (value == 0 && zero == ZeroAllowed::no) {
    warnings.push_back({SettingWarning::Code::zero_timeout, found->name, found->value, fallback});
    return;
  }
  // Times and sizes are added to the clock and to each other; no sane value comes near this (about 31 years in ms).
  constexpr std::int64_t k_max_whole_number = 1'000'000'000'000;
  if (value > k_max_whole_number) {
    warnings.push_back({SettingWarning::Code::capped, found->name, found->value, std::to_string(k_max_whole_number)});
    value = k_max_whole_number;
  }
  setting.value = value;
  setting.origin = Origin::variable(found->name);
}

} // namespace

Setting<fs::path> resolve_state_path(const util::Environment& env, const SettingsOverrides& flags) {
  if (flags.state_path) return {*flags.state_path, Origin::flag("--state")};
  if (auto found = util::lookup_setting(env, "ECC_MCP_HEALTH_STATE_PATH")) {
    bool expanded = false;
    return {expand_home(found->value, env, expanded), Origin::variable(found->name)};
  }
  return {util::home_dir(env) / ".claude" / "mcp-health-cache.json", {}};
}

Setting<std::int64_t> resolve_input_max_bytes(const util::Environment& env, std::vector<SettingWarning>& warnings) {
  Setting<std::int64_t> limit{k_default_input_max_bytes};
  read_whole_number(limit, env, "ECC_HOOK_INPUT_MAX_BYTES", warnings);
  return limit;
}

Setting<std::vector<fs::path>> resolve_config_paths(const util::Environment& env, const SettingsOverrides& flags,
                                                              std::vector<SettingWarning>& warnings) {
  Setting<std::vector<fs::path>> out;
  if (!flags.config_paths.empty()) {
    out = {flags.config_paths, Origin::flag("--config")};
  } else if (auto found = util::lookup_setting(env, "ECC_MCP_CONFIG_PATH")) {
    std::vector<fs::path> paths;
    std::size_t start = 0;
    while (start <= found->value.size()) {
      std::size_t colon = found->value.find(':', start);
      std::string part = found->value.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!part.empty()) {
        bool expanded = false;
        paths.push_back(expand_home(part, env, expanded));
        if (expanded) {
          warnings.push_back({SettingWarning::Code::home_in_path, found->name, part, paths.back().string()});
        }
      }
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    out = {paths, Origin::variable(found->name)};
  }
  return out;
}

Settings resolve_settings(const util::Environment& env, const SettingsOverrides& flags) {
  Settings s;
  s.state_path = resolve_state_path(env, flags);
  read_whole_number(s.ttl_ms, env, "ECC_MCP_HEALTH_TTL_MS", s.warnings);
  // probe, watch and refresh wait as long as Claude Code's start-up when no timeout is set (config::unhurried).
  read_whole_number(s.timeout_ms, env, "ECC_MCP_HEALTH_TIMEOUT_MS", s.warnings, ZeroAllowed::no,
                    "the defaults: " + std::to_string(s.timeout_ms.value) + " ms in a hook, Claude Code's start-up "
                    "timeout (MCP_TIMEOUT, else " + std::to_string(k_client_startup_timeout_ms) + " ms) in probe, watch and refresh");
  read_whole_number(s.backoff_ms, env, "ECC_MCP_HEALTH_BACKOFF_MS", s.warnings);
  read_whole_number(s.max_backoff_ms, env, "ECC_MCP_HEALTH_MAX_BACKOFF_MS", s.warnings);
  read_whole_number(s.crash_loop_max_backoff_ms, env, "MCPHEALTH_CRASH_LOOP_MAX_BACKOFF_MS", s.warnings);
  read_whole_number(s.reconnect_timeout_ms, env, "ECC_MCP_RECONNECT_TIMEOUT_MS", s.warnings, ZeroAllowed::no);
  read_whole_number(s.look_cpu_percent, env, "MCPHEALTH_LOOK_CPU_PERCENT", s.warnings, ZeroAllowed::no);
  s.look_cpu_percent.value = std::min<std::int64_t>(s.look_cpu_percent.value, 100);
  if (auto found = util::lookup_setting(env, "ECC_MCP_HEALTH_FAIL_OPEN")) {
    s.fail_open = {util::is_truthy(found->value), Origin::variable(found->name)};
  }
  if (auto v = env.get("MCPHEALTH_PROBE_DEPTH"); v && !v->empty()) {
    // A depth: `skip` belongs to the policy file, per server, never to every server at once.
    const std::optional<ProbeMode> mode = parse_probe_mode(*v);
    if (mode && *mode != ProbeMode::skip) s.probe = {*mode, Origin::variable("MCPHEALTH_PROBE_DEPTH")};
    else s.warnings.push_back({SettingWarning::Code::not_a_choice, "MCPHEALTH_PROBE_DEPTH", *v, "liveness, handshake or auto"});
  }
  if (flags.timeout_ms) s.timeout_ms = {*flags.timeout_ms, Origin::flag("--timeout-ms")};
  if (flags.probe) s.probe = {*flags.probe, Origin::flag("--depth")};
  if (flags.protocol) s.protocol = {*flags.protocol, Origin::flag("--protocol")};
  s.config_paths = resolve_config_paths(env, flags, s.warnings);
  s.policy_path = resolve_policy_path(env, flags);
  return s;
}

} // namespace mcphealth::config
