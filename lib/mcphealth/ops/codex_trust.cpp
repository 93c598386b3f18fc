#include <mcphealth/ops/codex_trust.hpp>

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/mcp/stdio_transport.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/version.hpp>

#include <algorithm>

namespace mcphealth::ops {

namespace json = boost::json;

namespace {

constexpr std::int64_t k_budget_ms = 30'000;

/// The hooks a `hooks/list` answer lists for its one folder.
std::vector<CodexHook> hooks_of(const json::object& result) {
  std::vector<CodexHook> out;
  const json::value* data = result.if_contains("data");
  if (data == nullptr || !data->is_array()) return out;
  for (const json::value& folder : data->get_array()) {
    if (!folder.is_object()) continue;
    const json::value* hooks = folder.get_object().if_contains("hooks");
    if (hooks == nullptr || !hooks->is_array()) continue;
    for (const json::value& h : hooks->get_array()) {
      if (!h.is_object()) continue;
      const json::object& o = h.get_object();
      CodexHook hook;
      hook.key = util::get_string(o, "key").value_or("");
      hook.event = util::get_string(o, "eventName").value_or("");
      hook.command = util::get_string(o, "command").value_or("");
      hook.trust = util::get_string(o, "trustStatus").value_or("");
      hook.hash = util::get_string(o, "currentHash").value_or("");
      hook.ours = agent::read_hook_command(hook.command).has_value();
      out.push_back(std::move(hook));
    }
  }
  return out;
}

std::string failure_of(const mcp::CallOutcome& outcome, std::string_view method, mcp::StdioTransport& transport) {
  std::string why;
  switch (outcome.status) {
  case mcp::CallOutcome::Status::rpc_error: why = outcome.error_message; break;
  case mcp::CallOutcome::Status::timeout: why = "no answer in time"; break;
  default: why = transport.exit_reason(); break;
  }
  return "codex app-server: " + std::string(method) + " failed: " + why;
}

} // namespace

CodexHookTrust codex_hook_trust(const util::Environment& env, const std::filesystem::path& folder, bool trust_ours,
                                util::Clock& clock) {
  CodexHookTrust out;
  out.program = config::find_on_path("codex", env.entries());
  if (out.program.empty()) {
    out.error = "codex is not on PATH";
    return out;
  }
  auto child = proc::spawn({out.program, {"app-server"}, std::nullopt});
  if (!child) {
    out.error = "could not start " + out.program.string() + ": " + child.error().message;
    return out;
  }
  mcp::StdioTransport rpc(std::move(*child), clock);
  const util::EpochMs deadline = clock.now_ms() + k_budget_ms;
  const auto ask = [&](std::string_view method, const json::object& params) -> std::optional<json::object> {
    mcp::CallOutcome outcome = rpc.call(method, params, deadline);
    if (outcome.status == mcp::CallOutcome::Status::result) return std::move(outcome.result);
    out.error = failure_of(outcome, method, rpc);
    return std::nullopt;
  };
  if (!ask("initialize", {{"clientInfo", {{"name", "mcphealth"}, {"version", std::string(util::version())}}}})) return out;
  rpc.notify("initialized", {}, deadline);
  const json::object list_params{{"cwds", json::array{folder.string()}}};
  auto listed = ask("hooks/list", list_params);
  if (!listed) return out;
  out.hooks = hooks_of(*listed);
  if (!trust_ours) return out;
  // The hash Codex lists for each of ours is what its own review records.
  json::object state;
  std::vector<std::string> keys;
  for (const CodexHook& h : out.hooks) {
    if (!h.ours || h.trust == "trusted" || h.hash.empty()) continue;
    state[h.key] = json::object{{"trusted_hash", h.hash}};
    keys.push_back(h.key);
  }
  if (state.empty()) return out;
  json::array edits{json::object{{"keyPath", "hooks.state"}, {"mergeStrategy", "upsert"}, {"value", std::move(state)}}};
  if (!ask("config/batchWrite", {{"edits", std::move(edits)}})) return out;
  auto again = ask("hooks/list", list_params);
  if (!again) return out;
  out.hooks = hooks_of(*again);
  for (CodexHook& h : out.hooks) {
    if (std::find(keys.begin(), keys.end(), h.key) == keys.end()) continue;
    h.trusted_now = h.trust == "trusted";
    if (!h.trusted_now) out.error = "Codex did not record trust for " + h.key + " (it is " + h.trust + ")";
  }
  return out;
}

} // namespace mcphealth::ops
