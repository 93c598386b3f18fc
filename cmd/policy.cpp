#include "policy.hpp"

#include "choices.hpp"
#include "output.hpp"

#include <mcphealth/ops/policy.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>
#include <mcphealth/util/text.hpp>

#include <cstdio>

namespace mcphealth::cli {

namespace json = boost::json;

void register_policy(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<PolicyOptions>();
  CLI::App* sub = app.add_subcommand("policy", "Show the effective per-server policy: each value and where it comes from");
  sub->add_option("servers", o->servers, "Only these servers")->type_name("SERVER");
  sub->add_flag("--json", o->json, "Print the same content as JSON");
  sub->add_option("--cwd", o->cwd, "Project dir (default: $CLAUDE_PROJECT_DIR, else the current dir)")->type_name("DIR")->check(existing_folder());
  sub->footer("Precedence, highest first: flag > policy servers.<name> (exact name over pattern, with project over "
              "without) > policy defaults > MCPHEALTH_* > ECC_* > default.\n"
              "Exit: 0 the policy file is valid or absent, 1 it is not valid (ignored; every problem is listed), "
              "2 usage error.");
  sub->callback([o, &command_line] { command_line.exit_code = run_policy(*o, command_line.globals); });
}

namespace {


json::object policy_json(const ops::PolicyReport& r) {
  json::array problems;
  for (const auto& p : r.policy.problems) {
    json::object o{{"where", p.where}, {"message", p.message}, {"text", p.text()}};
    if (p.line > 0) {
      o["line"] = p.line;
      o["column"] = p.column;
    }
    problems.push_back(std::move(o));
  }
  json::array servers;
  for (const auto& s : r.servers) {
    json::object values;
    for (const auto& v : s.values) values[v.name] = json::object{{"value", v.value}, {"origin", v.origin}};
    servers.push_back(json::object{{"name", s.name},
                                   {"source", s.source},
                                   {"scope", s.scope},
                                   {"project", s.project ? json::value(*s.project) : json::value(nullptr)},
                                   {"values", std::move(values)}});
  }
  return {{"policy", json::object{{"path", r.policy.path.value.string()},
                                  {"pathOrigin", r.policy.path.origin.text()},
                                  {"status", config::policy_status_name(r.policy.status)},
                                  {"problems", std::move(problems)}}},
          {"servers", std::move(servers)}};
}

void print_policy(const ops::PolicyReport& r) {
  say("policy file: %s (%s): %s\n", r.policy.path.value.string().c_str(), r.policy.path.origin.text().c_str(),
              r.policy.status == config::Policy::Status::absent ? "none, the environment decides"
              : r.policy.status == config::Policy::Status::ok   ? "valid"
                                                                : "NOT VALID, ignored: the environment decides");
  for (const auto& p : r.policy.problems) say("  problem: %s\n", p.text().c_str());
  for (const auto& s : r.servers) {
    say("\n%s  (%s, %s)\n", s.name.c_str(), s.scope.c_str(), s.source.c_str());
    for (const auto& v : s.values) {
      say("  %-19s %s  [%s]\n", (v.name + ":").c_str(), v.value.c_str(), v.origin.c_str());
    }
  }
  if (r.servers.empty()) std::printf("\nno MCP servers that Claude Code would start here\n");
}

} // namespace

int run_policy(const PolicyOptions& o, const GlobalOptions& globals) {
  util::ProcessEnvironment env;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  warn_all(settings.warnings);
  const ops::PolicyReport report = ops::policy_report(env, settings, discovery_for(env, settings, o.cwd), o.servers);
  if (!report.unknown.empty()) {
    util::log::error(util::unknown_name("server", report.unknown.front(), report.known));
    return k_exit_usage;
  }
  if (o.json) print_json(policy_json(report));
  else print_policy(report);
  return report.policy.status == config::Policy::Status::invalid ? k_exit_unhealthy : k_exit_ok;
}

} // namespace mcphealth::cli
