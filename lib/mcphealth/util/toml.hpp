#pragma once
// TOML (Codex CLI's config.toml) read with toml++, and handed on as JSON: every catalogue works on one shape.
#include <mcphealth/util/json.hpp>

#include <string_view>

namespace mcphealth::util {

/// Parses TOML `text` into its JSON twin (tables are objects, arrays arrays; dates and times become their TOML
/// text, which no definition field holds); never throws. A failure says why and where, as a JSON one does.
JsonParse parse_toml(std::string_view text);

} // namespace mcphealth::util
