#pragma once
// `mcphealth status --statusline`, shared by the two binaries (hook_run.hpp says which): a status line runs on
// every prompt, so the front answers its plain form too. From the state file alone: no config file is read.
#include "common.hpp"

#include <mcphealth/ops/status.hpp>
#include <mcphealth/util/result.hpp>

#include <optional>
#include <string>

namespace mcphealth::cli {

/// One status line and what it means for the exit code.
struct StatusLine {
  /// `mcp 3/4 ✔ (github ✘)` and the like (ops::status_line), not yet escaped for the terminal.
  std::string text;
  bool any_down = false;
};

/// Why there is no status line: the state file cannot be read (the line then says `mcp ?`), or the selection
/// names a server the state does not hold.
enum class NoStatusLine { state_unreadable, bad_selection };

/// The status line of the folder `cwd` (nothing: the folder the hook would find), of the rows `selection` keeps.
util::Result<StatusLine, util::KindedError<NoStatusLine>> status_line_of(const GlobalOptions& globals,
                                                                         const std::optional<std::string>& cwd,
                                                                         const ops::RowSelection& selection);

} // namespace mcphealth::cli
