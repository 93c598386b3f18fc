#include <mcphealth/hook/payload.hpp>

#include <mcphealth/config/names.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <cerrno>
#include <unistd.h>

namespace mcphealth::hook {

namespace json = boost::json;

HookInput read_input(int fd, std::int64_t limit, CutByCaller cut) {
  HookInput in;
  in.limit = limit;
  in.incomplete = cut == CutByCaller::yes;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const std::size_t room =
        in.raw.size() < static_cast<std::size_t>(limit) ? static_cast<std::size_t>(limit) - in.raw.size() : 0;
    if (static_cast<std::size_t>(n) > room) in.incomplete = true;
    in.raw.append(buf, std::min(room, static_cast<std::size_t>(n)));
  }
  if (!in.incomplete) parse_payload(in);
  return in;
}

void parse_payload(HookInput& input) {
  util::JsonParse parsed = util::parse_json(input.raw, util::JsonComments::refused, util::k_max_payload_depth);
  if (parsed && parsed->is_object()) {
    input.payload = std::move(parsed->get_object());
    return;
  }
  input.parse_error = parsed ? std::string("not a JSON object") : parsed.error().text();
  // Nested past any parser's limit in a tool's arguments: every other field is still there, read member by member,
  // whatever the dialect (a text search would know only one agent's field names).
  if (!parsed) {
    if (std::optional<json::object> members = util::parse_object_members(input.raw, 4, util::k_max_payload_depth)) {
      input.payload = std::move(*members);
      return;
    }
  }
  for (std::string_view key : {"hook_event_name", "tool_name", "cwd", "error", "server", "mcp_server"}) {
    if (auto value = find_raw_string_field(input.raw, key)) input.payload[key] = *value;
  }
}

Event event_from_name(std::string_view name) {
  if (name == "PreToolUse") return Event::pre_tool_use;
  if (name == "PostToolUseFailure") return Event::post_tool_use_failure;
  if (name == "PostToolUse") return Event::post_tool_use;
  if (name == "SessionStart") return Event::session_start;
  return Event::other;
}

std::optional<CallTarget> split_mcp_tool_name(std::string_view tool_name) {
  constexpr std::string_view prefix = "mcp__";
  if (tool_name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = tool_name.substr(prefix.size());
  std::size_t sep = rest.find("__");
  CallTarget t;
  t.server = std::string(rest.substr(0, sep));
  t.tool = sep == std::string_view::npos ? std::string(tool_name) : std::string(rest.substr(sep + 2));
  if (t.server.empty()) return std::nullopt;
  if (t.tool.empty()) t.tool = std::string(tool_name);
  return t;
}

std::vector<CallTarget> splits_at(std::string_view name, char sep) {
  std::vector<CallTarget> out;
  for (std::size_t at = name.find(sep, 1); at != std::string_view::npos; at = name.find(sep, at + 1)) {
    if (at + 1 >= name.size()) break; // no tool left
    out.push_back({std::string(name.substr(0, at)), std::string(name.substr(at + 1))});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<CallTarget> mcp_tool_name_splits(std::string_view tool_name) {
  constexpr std::string_view prefix = "mcp__";
  std::vector<CallTarget> out;
  if (tool_name.substr(0, prefix.size()) != prefix) return out;
  const std::string_view rest = tool_name.substr(prefix.size());
  for (std::size_t sep = rest.find("__", 1); sep != std::string_view::npos; sep = rest.find("__", sep + 1)) {
    if (sep + 2 >= rest.size()) break; // no tool left
    out.push_back({std::string(rest.substr(0, sep)), std::string(rest.substr(sep + 2))});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

namespace {

std::optional<std::string> non_empty(std::optional<std::string> s) {
  if (s && !s->empty()) return s;
  return std::nullopt;
}

std::optional<std::string> connector_name(const json::object& tool_input) {
  auto it = tool_input.find("connector");
  if (it == tool_input.end()) return std::nullopt;
  if (it->value().is_string()) return non_empty(std::string(it->value().get_string()));
  if (it->value().is_object()) return non_empty(util::get_string(it->value().get_object(), "name"));
  return std::nullopt;
}

/// The target the client names in `mcp_server` (an object; the string form is one of the explicit fields). Its
/// `name` is the name in the config (`my.srv`), the tool name spells it `my_srv`: the split of the tool name that
/// spells it is the one meant. Only the payload's own top-level field counts, never one inside a tool's input.
std::optional<CallTarget> client_named_target(const json::object& payload, const std::string& tool_name) {
  const json::object* named = util::get_object(payload, "mcp_server");
  if (named == nullptr) return std::nullopt;
  const std::optional<std::string> name = non_empty(util::get_string(*named, "name"));
  if (!name) return std::nullopt;
  const std::optional<std::string> source = non_empty(util::get_string(*named, "source"));
  const std::string spelled = config::tool_server_name(*name);
  for (CallTarget& t : mcp_tool_name_splits(tool_name)) {
    if (t.server == spelled) return CallTarget{std::move(t.server), std::move(t.tool), source};
  }
  // A name the tool name does not spell (a plugin's, say): the tool name's first split, with the client's source.
  if (std::optional<CallTarget> t = split_mcp_tool_name(tool_name)) {
    t->source = source;
    return t;
  }
  return CallTarget{spelled, tool_name.empty() ? "unknown" : tool_name, source};
}

} // namespace

bool names_server_itself(const json::object& payload) {
  const json::object* named = util::get_object(payload, "mcp_server");
  return named != nullptr && non_empty(util::get_string(*named, "name")).has_value();
}

std::optional<CallTarget> find_target(const json::object& payload) {
  const std::string tool_name = util::get_string(payload, "tool_name").value_or("");
  if (auto t = client_named_target(payload, tool_name)) return t;
  if (auto t = split_mcp_tool_name(tool_name)) return t;

  const json::object* tool_input = util::get_object(payload, "tool_input");
  std::optional<std::string> server = non_empty(util::get_string(payload, "server"));
  if (!server) server = non_empty(util::get_string(payload, "mcp_server"));
  if (!server && tool_input) server = non_empty(util::get_string(*tool_input, "server"));
  if (!server && tool_input) server = non_empty(util::get_string(*tool_input, "mcp_server"));
  if (!server && tool_input) server = connector_name(*tool_input);
  if (!server) return std::nullopt;

  std::optional<std::string> tool = non_empty(util::get_string(payload, "tool"));
  if (!tool) tool = non_empty(util::get_string(payload, "mcp_tool"));
  if (!tool && tool_input) tool = non_empty(util::get_string(*tool_input, "tool"));
  if (!tool && tool_input) tool = non_empty(util::get_string(*tool_input, "mcp_tool"));
  return CallTarget{*server, tool.value_or(tool_name.empty() ? "unknown" : tool_name)};
}

std::optional<std::string> string_field(const HookInput& input, std::string_view key) {
  return input.incomplete ? find_raw_string_field(input.raw, key) : util::get_string(input.payload, key);
}

std::optional<std::string> find_raw_string_field(std::string_view raw, std::string_view key) {
  const std::string needle = "\"" + std::string(key) + "\"";
  std::size_t pos = 0;
  while ((pos = raw.find(needle, pos)) != std::string_view::npos) {
    std::size_t i = pos + needle.size();
    while (i < raw.size() && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r')) ++i;
    if (i < raw.size() && raw[i] == ':') {
      ++i;
      while (i < raw.size() && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r')) ++i;
      if (i < raw.size() && raw[i] == '"') {
        std::string value;
        for (++i; i < raw.size() && raw[i] != '"'; ++i) {
          if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
          value += raw[i];
        }
        if (i < raw.size()) return value;
        return std::nullopt; // cut off inside the string
      }
    }
    pos += needle.size();
  }
  return std::nullopt;
}

std::optional<CallTarget> find_target_in_raw(std::string_view raw) {
  const std::string tool_name = find_raw_string_field(raw, "tool_name").value_or("");
  if (auto t = split_mcp_tool_name(tool_name)) return t;
  std::optional<std::string> server;
  for (std::string_view key : {"server", "mcp_server", "connector"}) {
    if ((server = find_raw_string_field(raw, key)) && !server->empty()) break;
    server.reset();
  }
  if (!server) return std::nullopt;
  std::optional<std::string> tool = find_raw_string_field(raw, "tool");
  if (!tool) tool = find_raw_string_field(raw, "mcp_tool");
  return CallTarget{*server, tool.value_or(tool_name.empty() ? "unknown" : tool_name)};
}

std::string server_key(const CallTarget& call) {
  return call.keyed ? call.server : config::tool_server_name(call.server);
}

} // namespace mcphealth::hook
