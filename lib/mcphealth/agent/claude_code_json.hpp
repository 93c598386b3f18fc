#pragma once
// Claude Code's JSON files as its catalogue reads them (agent/claude_code_servers.cpp): each read whole through the
// file seam, its root object or why there is none (a parse error's line and column, for explain-config); and a
// `--mcp-config` value, which is a file's name or JSON text.
#include <mcphealth/util/files.hpp>

#include <boost/json.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace mcphealth::agent {

/// A JSON file read whole: its root object, or why there is none.
struct JsonFile {
  std::filesystem::path path;
  bool exists = false;
  std::optional<boost::json::object> root;
  std::string error;
  std::size_t line = 0;
  std::size_t column = 0;
};

/// `path` read through `reader`: missing (`exists` false), unreadable or not JSON (`error`), or its root object.
JsonFile load_json(util::FileReader& reader, const std::filesystem::path& path);

/// A `--mcp-config` value that is JSON text rather than a file's name (Claude Code takes both).
bool is_json_text(const std::string& value);

/// A `--mcp-config` JSON text, read as load_json reads a file (labelled as coming from the command line).
JsonFile parse_json_text(const std::string& text);

} // namespace mcphealth::agent
