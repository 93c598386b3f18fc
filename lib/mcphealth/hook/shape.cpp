#include <mcphealth/hook/shape.hpp>

#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::hook {

namespace json = boost::json;

namespace {

/// Fields that hold what a tool was given or answered: their own keys are the tool's, not the agent's format.
bool holds_tool_values(std::string_view key) {
  for (std::string_view k : {"tool_input", "tool_response", "toolArgs", "toolResult", "tool_args", "args",
                             "arguments", "input", "output", "result", "content"}) {
    if (key == k) return true;
  }
  return false;
}

std::string_view type_name(const json::value& v) {
  switch (v.kind()) {
  case json::kind::object: return "object";
  case json::kind::array: return "array";
  case json::kind::string: return "string";
  case json::kind::bool_: return "bool";
  case json::kind::null: return "null";
  default: return "number";
  }
}

void walk_shape(const json::object& o, const std::string& prefix, int depth, std::set<std::string>& fields,
          std::string& error) {
  for (const auto& kv : o) {
    const std::string path = prefix + std::string(kv.key());
    fields.insert(path + ":" + std::string(type_name(kv.value())));
    if (kv.key() == "error" && kv.value().is_string() && error.empty()) error = std::string(kv.value().get_string());
    if (kv.key() == "error" && kv.value().is_object() && error.empty()) {
      if (const auto* m = kv.value().get_object().if_contains("message"); m && m->is_string())
        error = std::string(m->get_string());
    }
    if (kv.value().is_object() && depth < 3 && !holds_tool_values(kv.key())) {
      walk_shape(kv.value().get_object(), path + ".", depth + 1, fields, error);
    } else if (kv.value().is_object() && holds_tool_values(kv.key())) {
      // A failure's text may sit inside the tool's response (Gemini CLI: tool_response.error).
      if (const auto* e = kv.value().get_object().if_contains("error"); e && e->is_string() && error.empty())
        error = std::string(e->get_string());
    }
  }
}

} // namespace

std::string payload_shape(std::string_view agent, const HookInput& input) {
  std::set<std::string> fields;
  std::string error;
  walk_shape(input.payload, "", 1, fields, error);
  json::array names;
  for (const auto& f : fields) names.emplace_back(f);
  json::object line{{"agent", agent}, {"fields", std::move(names)}};
  auto event = input.payload.if_contains("hook_event_name");
  line["event"] = event && event->is_string() ? json::value(event->get_string()) : json::value(nullptr);
  if (!error.empty()) line["error"] = util::valid_utf8(util::cap_utf8(util::redact(error), 400));
  return json::serialize(line) + "\n";
}

void capture_shape(const std::filesystem::path& file, std::string_view agent, const HookInput& input) {
  const std::string line = payload_shape(agent, input);
  // The state file's rules: never through a link, never blocking on a FIFO, into a regular file only.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
  }
  ::close(fd);
}

} // namespace mcphealth::hook
