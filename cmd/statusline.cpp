#include "statusline.hpp"

#include <mcphealth/config/settings.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>

#include <algorithm>

namespace mcphealth::cli {

util::Result<StatusLine, util::KindedError<NoStatusLine>> status_line_of(const GlobalOptions& globals,
                                                                         const std::optional<std::string>& cwd,
                                                                         const ops::RowSelection& selection) {
  using Problem = util::KindedError<NoStatusLine>;
  util::ProcessEnvironment env;
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(env, globals.overrides());
  const state::StateSnapshot snapshot = state::load_state(settings.state_path.value);
  if (snapshot.status == state::LoadStatus::unreadable) {
    // Not "nothing is down": nothing is known.
    return util::fail(Problem{NoStatusLine::state_unreadable,
                              "cannot read the state file " + settings.state_path.value.string() + ": " + snapshot.error});
  }
  ops::RowSettings row_settings(settings, env);
  ops::StatusReport report = ops::build_status(snapshot, std::nullopt, row_settings, clock.now_ms());
  // About this folder: the definitions its binding points at, when it has one.
  ops::keep_bound_in(report, state::StateStore(settings.state_path.value, clock)
                                 .bindings(discovery_for(env, settings, cwd).project_dir.string()));
  if (auto chosen = ops::select_rows(report, selection); !chosen)
    return util::fail(Problem{NoStatusLine::bad_selection, chosen.error().message});
  const bool any_down = std::any_of(report.rows.begin(), report.rows.end(), [](const auto& r) { return r.down(); });
  return StatusLine{ops::status_line(report), any_down};
}

} // namespace mcphealth::cli
