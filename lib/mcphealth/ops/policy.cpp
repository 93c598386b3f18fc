#include <mcphealth/ops/policy.hpp>

#include <mcphealth/util/redact.hpp>

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/names.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/recover/recover.hpp>

#include <algorithm>

namespace mcphealth::ops {

std::vector<EffectiveSetting> server_values(const config::Settings& own, const std::string& config_name,
                                            const util::Environment& env) {
  const auto entry = [](std::string name, std::string value, const config::Origin& origin) {
    return EffectiveSetting{std::move(name), std::move(value), origin.text(), origin.kind};
  };
  const auto ms = [&](std::string name, const config::Setting<std::int64_t>& s) {
    return entry(std::move(name), std::to_string(s.value), s.origin);
  };
  std::vector<EffectiveSetting> out{
      entry("probe", std::string(config::probe_mode_name(own.probe.value)), own.probe.origin),
      entry("protocol", std::string(config::protocol_mode_name(own.protocol.value)), own.protocol.origin),
      ms("timeoutMs", own.timeout_ms),
      // What probe, watch and refresh wait, where no agent waits: the client's start-up timeout unless one was set.
      ms("timeoutMs (probe, watch, refresh)", config::unhurried(own, env).timeout_ms),
      ms("ttlMs", own.ttl_ms),
      ms("backoffMs", own.backoff_ms),
      ms("maxBackoffMs", own.max_backoff_ms),
      ms("crashLoopMaxBackoffMs", own.crash_loop_max_backoff_ms),
      entry("failOpen", own.fail_open.value ? "true" : "false", own.fail_open.origin),
  };
  if (own.reconnect.value) {
    const std::string how = own.reconnect.value->argv.empty() ? " (with /bin/sh -c)" : " (no shell)";
    out.push_back(entry("reconnect", own.reconnect.value->text() + how, own.reconnect.origin));
  } else if (auto command = recover::find_reconnect_command(config_name, env)) {
    out.push_back(entry("reconnect", util::redact(command->command) + " (with /bin/sh -c)",
                        config::Origin::variable(command->variable)));
  } else {
    out.push_back(entry("reconnect", "none", {}));
  }
  out.push_back(ms("reconnectTimeoutMs", own.reconnect_timeout_ms));
  if (own.check.value) out.push_back(entry("check", own.check.value->text(), own.check.origin));
  else if (own.check_refused) out.push_back(entry("check", "not run: " + *own.check_refused, own.check.origin));
  else out.push_back(entry("check", "none", {}));
  return out;
}

PolicyReport policy_report(const util::Environment& env, const config::Settings& settings,
                           const config::DiscoveryInputs& inputs, const std::vector<std::string>& only) {
  PolicyReport report;
  report.policy = config::load_policy(settings.policy_path, env, util::disk(), inputs.project_dir);
  const config::Resolution res = agent::default_agent().catalogue.resolve(inputs, env);
  const auto wanted = [&](const config::Candidate& c) {
    return only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& n) {
             return c.named(n);
           });
  };
  for (const auto& name : only) {
    const auto winners = res.winners();
    if (std::none_of(winners.begin(), winners.end(), [&](const config::Candidate* c) {
          return c->named(name);
        })) {
      report.unknown.push_back(name);
    }
  }
  for (const config::Candidate* c : res.winners()) {
    report.known.push_back(c->tool_server);
    if (!wanted(*c)) continue;
    const config::Settings own = config::settings_for(settings, report.policy, *c);
    report.servers.push_back({c->tool_server, c->definition.source.string(), std::string(config::scope_name(c->scope)),
                              c->project, server_values(own, c->definition.name, env)});
  }
  return report;
}

} // namespace mcphealth::ops
