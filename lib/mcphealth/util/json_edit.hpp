#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace mcphealth::util {

/// The JSON text of `after` written over `before`, a JSON document's text, changing as few bytes as it can: a value
/// equal to the one in `before` keeps its bytes (its layout, its escapes, numbers like 1e400); an object or list
/// that changed keeps its unchanged members and their separators, drops the ones that went, and gains the new
/// ones after its last, indented like their neighbours; a key written twice counts at its last place. So writing
/// back what `before` held gives `before`, and an edit undone gives back the bytes it started from. Falls back to
/// `pretty_json(after)` when `before` is blank or not one JSON value.
std::string rewrite_json(std::string_view before, const boost::json::value& after);

} // namespace mcphealth::util
