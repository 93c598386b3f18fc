#include <mcphealth/ops/policy.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/recover/recover.hpp>

#include <algorithm>

namespace mcphealth::ops {

std::vector<EffectiveSetting> server_values(const config::Settings& own, const std::string& config_name,
                                            const util::Environment& env) {
  const auto ms = [](const config::Setting<std::int64_t>& s) { return std::to_string(s.value); };
  std::vector<EffectiveSetting> out{
      {"probe", std::string(config::probe_mode_name(own.probe.value)), own.probe.origin.text()},
      {"protocol", std::string(config::protocol_mode_name(own.protocol.value)), own.protocol.origin.text()},
      {"timeoutMs", ms(own.timeout_ms), own.timeout_ms.origin.text()},
      {"ttlMs", ms(own.ttl_ms), own.ttl_ms.origin.text()},
      {"backoffMs", ms(own.backoff_ms), own.backoff_ms.origin.text()},
      {"maxBackoffMs", ms(own.max_backoff_ms), own.max_backoff_ms.origin.text()},
      {"failOpen", own.fail_open.value ? "true" : "false", own.fail_open.origin.text()},
  };
  if (own.reconnect.value) {
    const std::string how = own.reconnect.value->argv.empty() ? " (with /bin/sh -c)" : " (no shell)";
    out.push_back({"reconnect", own.reconnect.value->text() + how, own.reconnect.origin.text()});
  } else if (auto command = recover::find_reconnect_command(config_name, env)) {
    out.push_back({"reconnect", command->command + " (with /bin/sh -c)", "variable " + command->variable});
  } else {
    out.push_back({"reconnect", "none", "default"});
  }
  out.push_back({"reconnectTimeoutMs", ms(own.reconnect_timeout_ms), own.reconnect_timeout_ms.origin.text()});
  return out;
}

PolicyReport policy_report(const util::Environment& env, const config::Settings& settings,
                           const config::DiscoveryInputs& inputs, const std::vector<std::string>& only) {
  PolicyReport report;
  report.policy = config::load_policy(settings.policy_path, env);
  const config::Resolution res = config::resolve(inputs, env);
  const auto wanted = [&](const config::Candidate& c) {
    return only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& n) {
             return n == c.definition.name || config::tool_server_name(n) == c.tool_name;
           });
  };
  for (const auto& name : only) {
    const auto winners = res.winners();
    if (std::none_of(winners.begin(), winners.end(), [&](const config::Candidate* c) {
          return name == c->definition.name || config::tool_server_name(name) == c->tool_name;
        })) {
      report.unknown.push_back(name);
    }
  }
  for (const config::Candidate* c : res.winners()) {
    if (!wanted(*c)) continue;
    const config::Settings own = config::settings_for(settings, report.policy, *c);
    report.servers.push_back({c->tool_name, c->definition.source.string(), std::string(config::scope_name(c->scope)),
                              c->project, server_values(own, c->definition.name, env)});
  }
  return report;
}

} // namespace mcphealth::ops
