#pragma once
// How a failed start, or a failed connect, is named in a reason: the errno's symbol, as Node.js names them in the
// JS hook's messages (`spawn foo ENOENT`, `connect ECONNREFUSED`), which people grep for.
#include <string>

namespace mcphealth::proc {

/// Returns the text of `errno` value `err` as its symbolic name (`ENOENT`), or `E<number>` when unknown.
std::string errno_name(int err);

} // namespace mcphealth::proc
