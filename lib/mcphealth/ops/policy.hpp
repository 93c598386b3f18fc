#pragma once
// The effective policy: for each server Claude Code would start, every per-server value in force (probe, protocol,
// timeouts, TTL, backoff, fail-open, reconnect) and where it comes from, and what is wrong with the policy file.
// `mcphealth policy` prints it; `explain-config` shows the values a policy entry or a flag changed.
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/util/env.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

/// A setting as in force, with its origin.
struct EffectiveSetting {
  std::string name;
  std::string value;
  /// The origin as printed (`policy servers.github`, `variable MCPHEALTH_TTL_MS`, `default`).
  std::string origin;
  /// What kind of origin, for deciding without reading the text.
  config::Origin::Kind kind = config::Origin::Kind::built_in;
};

/// One server's effective values.
struct ServerPolicy {
  /// As tool names spell it.
  std::string name;
  std::string source;
  std::string scope;
  std::optional<std::string> project;
  /// `probe`, `protocol`, `timeoutMs`, `ttlMs`, `backoffMs`, `maxBackoffMs`, `failOpen`, `reconnect`,
  /// `reconnectTimeoutMs`, in that order (the policy file's keys).
  std::vector<EffectiveSetting> values;
};

/// The policy file and what it makes of each server.
struct PolicyReport {
  config::Policy policy;
  std::vector<ServerPolicy> servers;
  /// Names asked for that Claude Code would not start here.
  std::vector<std::string> unknown;
  /// Every server name the folder starts (for the message about an unknown one).
  std::vector<std::string> known;
};

/// The per-server values of `own` (settings with the policy applied) for the server named `config_name` in its
/// config file: a reconnect command comes from the policy, else from the variables, else there is none.
std::vector<EffectiveSetting> server_values(const config::Settings& own, const std::string& config_name,
                                            const util::Environment& env);

/// The effective policy of every server Claude Code starts from `inputs` (only `only`, when given).
PolicyReport policy_report(const util::Environment& env, const config::Settings& settings,
                           const config::DiscoveryInputs& inputs, const std::vector<std::string>& only);

} // namespace mcphealth::ops
