// Codex CLI runs a hook only once the user has trusted it (an untrusted hook is skipped, silently in `codex exec`).
// Trust is Codex's own record (`[hooks.state."<key>"] trusted_hash` in its config.toml, the hash of the entry as
// Codex normalises it), so mcphealth asks Codex itself, the way its interactive review does: `codex app-server`,
// `hooks/list` for what it would run and whether it trusts it, `config/batchWrite` to record trust.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/agent/codex.hpp>
#include <mcphealth/agent/trust.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/mcp/stdio_transport.hpp>
#include <mcphealth/proc/child.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/toml.hpp>
#include <mcphealth/util/version.hpp>

#include <algorithm>

namespace mcphealth::agent {

namespace json = boost::json;

namespace {

constexpr std::int64_t k_budget_ms = 30'000;

/// The hook file a Codex key names: all of the key but its last three fields (a path may hold colons itself).
std::filesystem::path file_of_key(const std::string& key) {
  std::size_t end = key.size();
  for (int field = 0; field < 3; ++field) {
    end = key.rfind(':', end == 0 ? 0 : end - 1);
    if (end == std::string::npos || end == 0) return {};
  }
  return key.substr(0, end);
}

/// A hook as Codex lists it, with the hash its own review records when trusting it.
struct CodexHook : ListedHook {
  std::string hash;
};

/// The hooks a `hooks/list` answer lists for its one folder.
std::vector<CodexHook> trusted_hooks_of(const json::object& result) {
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
      hook.file = file_of_key(hook.key);
      hook.event = util::get_string(o, "eventName").value_or("");
      hook.command = util::get_string(o, "command").value_or("");
      hook.trust = util::get_string(o, "trustStatus").value_or("");
      hook.hash = util::get_string(o, "currentHash").value_or("");
      hook.ours = read_hook_command(hook.command).has_value();
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

namespace {

/// One `codex app-server` session: started, initialized, asked, ended with the object.
class AppServer {
public:
  AppServer(const util::Environment& env, util::Clock& clock) {
    m_program = config::find_on_path("codex", env.entries(), {}, util::disk());
    if (m_program.empty()) {
      m_error = "codex is not on PATH";
      return;
    }
    auto child = proc::spawn({m_program, {"app-server"}, std::nullopt});
    if (!child) {
      m_error = "could not start " + m_program.string() + ": " + child.error().message;
      return;
    }
    m_rpc.emplace(std::move(*child), clock);
    m_deadline = clock.now_ms() + k_budget_ms;
    if (ask("initialize", {{"clientInfo", {{"name", "mcphealth"}, {"version", std::string(util::version())}}}})) {
      m_rpc->notify("initialized", {}, m_deadline);
    }
  }

  /// The result of `method`, or nothing (and error() says why).
  std::optional<json::object> ask(std::string_view method, const json::object& params) {
    if (!m_rpc || !m_error.empty()) return std::nullopt;
    mcp::CallOutcome outcome = m_rpc->call(method, params, m_deadline);
    if (outcome.status == mcp::CallOutcome::Status::result) return std::move(outcome.result);
    m_error = failure_of(outcome, method, *m_rpc);
    return std::nullopt;
  }

  const std::filesystem::path& program() const { return m_program; }
  const std::string& error() const { return m_error; }

private:
  std::filesystem::path m_program;
  std::optional<mcp::StdioTransport> m_rpc;
  util::EpochMs m_deadline = 0;
  std::string m_error;
};

/// What `codex_hook_trust` found: Codex's listing, with each hook's hash.
struct CodexListing {
  std::filesystem::path program;
  std::vector<CodexHook> hooks;
  std::string error;
};

CodexListing codex_hook_trust(const util::Environment& env, const std::filesystem::path& folder,
                              const std::optional<HookEntries>& written, TrustWritten trust, util::Clock& clock) {
  CodexListing out;
  AppServer codex(env, clock);
  out.program = codex.program();
  const json::object list_params{{"cwds", json::array{folder.string()}}};
  auto listed = codex.ask("hooks/list", list_params);
  if (!listed) {
    out.error = codex.error();
    return out;
  }
  auto mark = [&] {
    for (CodexHook& h : out.hooks) h.written = written && h.ours && written->match(h);
  };
  out.hooks = trusted_hooks_of(*listed);
  mark();
  if (trust == TrustWritten::no || !written) return out;
  // The hash Codex lists for each of ours is what its own review records.
  json::object state;
  std::vector<std::string> keys;
  for (const CodexHook& h : out.hooks) {
    if (!h.written || h.trust == "trusted" || h.hash.empty()) continue;
    state[h.key] = json::object{{"trusted_hash", h.hash}};
    keys.push_back(h.key);
  }
  if (state.empty()) return out;
  json::array edits{json::object{{"keyPath", "hooks.state"}, {"mergeStrategy", "upsert"}, {"value", std::move(state)}}};
  auto again = codex.ask("config/batchWrite", {{"edits", std::move(edits)}}) ? codex.ask("hooks/list", list_params)
                                                                             : std::nullopt;
  if (!again) {
    out.error = codex.error();
    return out;
  }
  out.hooks = trusted_hooks_of(*again);
  mark();
  for (CodexHook& h : out.hooks) {
    if (std::find(keys.begin(), keys.end(), h.key) == keys.end()) continue;
    h.trusted_now = h.trust == "trusted";
    if (!h.trusted_now) out.error = "Codex did not record trust for " + h.key + " (it is " + h.trust + ")";
  }
  return out;
}

std::string codex_forget_trust(const util::Environment& env, const std::vector<std::string>& keys, util::Clock& clock) {
  if (keys.empty()) return {};
  // Codex takes no null for a key, so the table is written back whole, without those keys.
  const auto text = util::read_file(agent::codex_home(env) / "config.toml");
  if (!text) return {};
  const util::JsonParse parsed = util::parse_toml(*text);
  if (!parsed || !parsed->is_object()) return {};
  const json::object* hooks = util::get_object(parsed->get_object(), "hooks");
  const json::object* state = hooks ? util::get_object(*hooks, "state") : nullptr;
  if (state == nullptr) return {};
  json::object kept = *state;
  std::size_t removed = 0;
  for (const auto& k : keys) removed += kept.erase(k);
  if (removed == 0) return {};
  AppServer codex(env, clock);
  json::array edits{json::object{{"keyPath", "hooks.state"}, {"mergeStrategy", "replace"}, {"value", std::move(kept)}}};
  if (!codex.ask("config/batchWrite", {{"edits", std::move(edits)}})) return codex.error();
  return {};
}

} // namespace

TrustListing CodexTrust::list(const util::Environment& env, const std::filesystem::path& folder,
                              const std::optional<HookEntries>& written, TrustWritten trust, util::Clock& clock) const {
  CodexListing found = codex_hook_trust(env, folder, written, trust, clock);
  TrustListing out{std::move(found.program), {}, std::move(found.error)};
  for (CodexHook& h : found.hooks) out.hooks.push_back(std::move(h));
  return out;
}

std::string CodexTrust::forget(const util::Environment& env, const std::vector<std::string>& keys,
                               util::Clock& clock) const {
  return codex_forget_trust(env, keys, clock);
}

std::string CodexTrust::record_name() const { return "config.toml"; }

std::string CodexTrust::by_hand(const std::filesystem::path& folder) const {
  return "start `codex` in " + folder.string() + " and trust mcphealth's hooks when it asks (or in /hooks)";
}

} // namespace mcphealth::agent
