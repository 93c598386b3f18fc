#pragma once
// A unified diff of two texts, as `install --dry-run` and `uninstall --dry-run` show a settings file's change.
#include <string>

namespace mcphealth::util {

/// A unified diff (3 lines of context) from `before` to `after`, headed `--- name` / `+++ name (after)`; empty when
/// they are equal. A text too large to diff cheaply (lines of one times lines of the other past 25 million) says so.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& name);

} // namespace mcphealth::util
