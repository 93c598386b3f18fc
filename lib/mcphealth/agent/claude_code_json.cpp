#include <mcphealth/agent/claude_code_json.hpp>

#include <mcphealth/util/json.hpp>

#include <string_view>

namespace mcphealth::agent {

namespace fs = std::filesystem;

namespace {

/// Fills `out` from JSON text: its root object, or why there is none.
void parse_into(JsonFile& out, std::string_view text) {
  util::JsonParse parsed = util::parse_json(text);
  if (!parsed) {
    out.error = parsed.error().message;
    out.line = parsed.error().line;
    out.column = parsed.error().column;
  } else if (!parsed->is_object()) {
    out.error = "not a JSON object";
  } else {
    out.root = std::move(parsed->get_object());
  }
}

} // namespace

JsonFile load_json(util::FileReader& reader, const fs::path& path) {
  JsonFile out;
  out.path = path;
  const auto read = reader.read(path);
  if (!read && read.error().is(util::ReadFailure::missing)) return out;
  out.exists = true;
  if (!read) {
    out.error = read.error().message;
    return out;
  }
  parse_into(out, *read);
  return out;
}

bool is_json_text(const std::string& value) {
  const std::size_t first = value.find_first_not_of(" \t\r\n");
  return first != std::string::npos && value[first] == '{';
}

JsonFile parse_json_text(const std::string& text) {
  JsonFile out;
  out.path = "--mcp-config";
  out.exists = true;
  parse_into(out, text);
  return out;
}

} // namespace mcphealth::agent
