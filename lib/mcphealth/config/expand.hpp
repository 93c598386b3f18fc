#pragma once
// `${VAR}` and `${VAR:-default}` expansion, as Claude Code applies it to command, args, env, url and headers.
#include <mcphealth/util/env.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// Expands `${VAR}` and `${VAR:-default}` in `text`. An unset variable without a default stays literal and its
/// name is appended to `unset` (once).
std::string expand_vars(std::string_view text, const util::Environment& env, std::vector<std::string>& unset);

} // namespace mcphealth::config
