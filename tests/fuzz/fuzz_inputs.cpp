// libFuzzer target for everything mcphealth parses from outside: hook payloads (whole or cut off), state files,
// config definitions, settings files as install rewrites them, policy files, SSE streams (bounded), JSON-RPC
// messages and the tool-name split. The hook must never crash into a session; this hunts for inputs that would
// make it. Build and run with scripts/fuzz.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/expand.hpp>
#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/hook/payload.hpp>
#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/mcp/sse.hpp>
#include <mcphealth/mcp/transport.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/json_edit.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace mcphealth;
namespace json = boost::json;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void as_payload(std::string_view text) {
  hook::HookInput in;
  in.raw = std::string(text);
  hook::parse_payload(in);
  (void)hook::find_target(in.payload);
  (void)hook::find_target_in_raw(text);
  (void)hook::find_raw_string_field(text, "hook_event_name");
  (void)hook::classify_failure(hook::failure_text(in.payload));
  // Every agent's dialect reads it, whole and as a cut payload, and answers without a crash; the answer is JSON.
  const util::MapEnvironment env;
  hook::HookInput cut = in;
  cut.incomplete = true;
  (void)agent::detect_agent(in);
  (void)agent::read_hook_command(std::string(text));
  for (const agent::Agent* a : agent::agents()) {
    for (const hook::HookInput* input : {&in, &cut}) {
      const hook::HookCall call = a->dialect.read(*input, std::nullopt, env);
      (void)hook::read_failure(call.failure_text, call.tool_input, a->dialect.failure_wordings());
    }
    hook::HookOutcome block;
    block.decision = hook::HookOutcome::Decision::block;
    block.reason = std::string(text.substr(0, 500));
    const agent::Answer answer = a->dialect.answer_json(block);
    check(answer.out.empty() || static_cast<bool>(util::parse_json(answer.out)));
  }
}

void as_state(const json::value& value) {
  if (!value.is_object()) return;
  const json::object* servers = util::get_object(value.get_object(), "servers");
  if (servers == nullptr) return;
  for (const auto& kv : *servers) {
    if (!kv.value().is_object()) continue;
    json::object entry = kv.value().get_object();
    const state::ServerEntry read = state::ServerEntry::from_json(entry);
    // Every time in a file meets clock arithmetic: now, a TTL, a backoff bound, a month of keeping.
    (void)state::outlook_of(read, 1'800'000'000'000, 600'000, 120'000);
    (void)state::honoured_retry_at(read, 1'800'000'000'000, 600'000);
    (void)state::backoff_delay_ms(read.failure_count, 30'000, 600'000);
    (void)read.last_failure_code.text();
    state::mark_unhealthy(entry, {.now = 1000,
                                  .error = "x",
                                  .code = state::FailureCode::http(503),
                                  .backoff_ms = 30'000,
                                  .max_backoff_ms = 600'000,
                                  .retry_after_ms = 5'000});
    check(state::ServerEntry::from_json(entry).unhealthy());
    state::mark_healthy(entry, {.now = 2000, .ttl_ms = 120'000, .source = std::string("/c")});
    check(state::ServerEntry::from_json(entry).healthy());
  }
  // What the writer writes must read back.
  check(util::parse_json(util::pretty_json(value)).ok());
}

void as_config(const json::value& value) {
  if (!value.is_object()) return;
  const json::object* servers = util::get_object(value.get_object(), "mcpServers");
  if (servers == nullptr) return;
  util::MapEnvironment env{{"HOME", "/h"}, {"PATH", "/usr/bin:/bin"}, {"A", "1"}};
  for (const auto& kv : *servers) {
    if (!kv.value().is_object()) continue;
    (void)config::resolve_server({std::string(kv.key()), "/c", "explicit", kv.value().get_object()}, env, {}, util::disk());
  }
}

void as_policy(std::string_view text) {
  const util::MapEnvironment env{{"HOME", "/h"}};
  const config::Policy p = config::parse_policy(text, {"/p.json", {}}, env);
  check(p.status == config::Policy::Status::ok || !p.problems.empty());
  const config::Settings base = config::resolve_settings(env, {});
  for (const auto& rule : p.rules) (void)config::settings_for(base, p, rule.pattern, rule.project);
  (void)config::settings_for(base, p, "any", std::filesystem::path("/p"));
  (void)p.longest_recovery_ms(base);
}

/// Every split of a tool name puts it back together, longest server first, the shortest being the plain split.
void as_tool_name(std::string_view text) {
  const std::string name = "mcp__" + std::string(text.substr(0, 512));
  const std::vector<hook::CallTarget> splits = hook::mcp_tool_name_splits(name);
  for (std::size_t i = 0; i < splits.size(); ++i) {
    check(!splits[i].server.empty() && !splits[i].tool.empty());
    check("mcp__" + splits[i].server + "__" + splits[i].tool == name);
    if (i > 0) check(splits[i].server.size() < splits[i - 1].server.size());
  }
  // The plain split (first `__`) is the shortest one, when it leaves a server and a tool at all.
  if (auto first = hook::split_mcp_tool_name(name); first && first->tool != name && !splits.empty()) {
    check(first->server == splits.back().server);
  }
}

void as_protocol(std::string_view text, const json::value* value) {
  mcp::SseParser sse;
  const std::size_t half = text.size() / 2;
  for (const auto& e : sse.feed(text.substr(0, half))) (void)util::parse_json(e.data);
  for (const auto& e : sse.feed(text.substr(half))) (void)util::parse_json(e.data);
  // With a small limit, fed in small chunks: no event's data outgrows it, and once overflowed nothing comes out.
  mcp::SseParser small(64);
  for (std::size_t at = 0; at < text.size(); at += 7) {
    const bool was = small.overflowed();
    for (const auto& e : small.feed(text.substr(at, 7))) check(!was && e.data.size() <= 64);
  }
  if (!value) return;
  const mcp::MessageKind kind = mcp::classify(*value);
  if (kind == mcp::MessageKind::server_request) {
    check(util::parse_json(mcp::reply_to_server_request(value->get_object())).ok());
  }
  if (kind == mcp::MessageKind::response) (void)mcp::outcome_of_response(value->get_object());
}

} // namespace

/// A settings file install edits, edited the way install and uninstall do: written back unchanged it keeps every
/// byte; an entry added (install adds, it never replaces a value of the user's) is there when the result is read
/// back; and taking that entry out of what was read back gives the original bytes again. (Values are compared only
/// within one document: Boost.JSON 1.81 may read the same digits as another double elsewhere.)
void as_settings_file(std::string_view text, const json::value& v) {
  check(util::rewrite_json(text, v) == text);
  if (!v.is_object() && !v.is_array()) return;
  if (v.is_object() && v.get_object().contains("zz-fuzz")) return;
  const json::value entry =
      json::object{{"matcher", "mcp__.*"}, {"hooks", json::array{json::object{{"command", "mcphealth hook"}}}}};
  json::value edited = v;
  if (edited.is_object()) edited.get_object()["zz-fuzz"] = entry;
  else edited.get_array().push_back(entry);
  const std::string out = util::rewrite_json(text, edited);
  util::JsonParse reread = util::parse_json(out);
  check(static_cast<bool>(reread));
  json::value undone = std::move(*reread);
  if (undone.is_object()) {
    check(undone.get_object().contains("zz-fuzz") && undone.get_object().size() == v.get_object().size() + 1);
    undone.get_object().erase("zz-fuzz");
  } else {
    check(undone.is_array() && undone.get_array().size() == v.get_array().size() + 1);
    undone.get_array().pop_back();
  }
  const std::string back = util::rewrite_json(out, undone);
  // An empty container comes back as `{}` or `[]`, whatever space it held.
  const bool was_empty = v.is_object() ? v.get_object().empty() : v.get_array().empty();
  check(back == text || was_empty);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  as_payload(text);
  as_tool_name(text);
  const util::JsonParse parsed = util::parse_json(text);
  if (parsed) {
    as_state(*parsed);
    as_config(*parsed);
    as_settings_file(text, *parsed);
  }
  as_protocol(text, parsed ? &*parsed : nullptr);
  as_policy(text);

  util::MapEnvironment env{{"SET", "v"}};
  std::vector<std::string> unset;
  (void)config::expand_vars(text, env, unset);
  (void)config::expand_vars(text, env, unset, config::VarExpansion::braces_and_bare, config::UnsetVar::empty);
  const std::string capped = util::cap_utf8(text, size / 2);
  check(capped.size() <= size / 2 && text.substr(0, capped.size()) == capped);
  return 0;
}
