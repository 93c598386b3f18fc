#pragma once
// One verdict per definition. The layout, in the state file:
//   servers.<name>          the JS hook's entry: a mirror of the last verdict written for that tool-name server
//   definitions.<fp>        mcphealth's verdicts, one per definition fingerprint (same fields, plus who it is)
// and beside it, each folder's bindings (state/bindings.hpp): what its names mean, a file per folder.
// Every field name of these lives here; the hook, probe, status and reset go through these functions.
#include <mcphealth/state/bindings.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::state {

/// Who wrote an entry, as `updatedBy` records it: what `watch` names as the cause of a transition.
enum class Writer { hook, probe, refresh, watch, tool_success, adopted };

/// The JSON spelling of `by`: `hook`, `probe`, `refresh`, `watch`, `tool-success`, `adopted`.
std::string_view writer_name(Writer by);

/// Who a verdict is about.
struct DefinitionInfo {
  std::string fingerprint;
  /// The name in its config file.
  std::string server;
  /// The name as tool names spell it (the `servers` key the JS hook reads).
  std::string tool_server;
  std::string scope;
  std::optional<std::string> project;
  std::optional<std::string> source;
  /// Its parts' digests (config::definition_shape), kept with the labels: `status` says how two rows of one name
  /// differ.
  std::vector<std::pair<std::string, std::string>> shape = {};
};

/// The shape a verdict was recorded with (empty for one written before shapes were kept, or by the JS hook).
std::vector<std::pair<std::string, std::string>> shape_of(const boost::json::object& entry);

/// The entry to decide from: the definition's verdict; without one (or without a definition), the `servers` entry
/// of `server` when it names no definition (the JS hook's, or one written before definitions were told apart).
const boost::json::object* decision_entry(const boost::json::object& doc, std::string_view server,
                                          const std::optional<std::string>& fingerprint);
/// The same from a snapshot, whose verdict of `fingerprint` may be read from its file only now (a hook's read).
const boost::json::object* decision_entry(const StateSnapshot& snap, std::string_view server,
                                          const std::optional<std::string>& fingerprint);

/// The longest server name ever written (a tool name's server, or a config's): no real one comes near it, and a
/// longer one (a payload's, a hostile `.mcp.json`'s) must not grow the state file past what it can read back.
inline constexpr std::size_t k_max_name_bytes = 256;

/// Applies `mark` to the verdict of `who` (started from the adoptable `servers` entry when there is no verdict yet),
/// labels it when `who.server` is set, and mirrors it into `servers.<tool name>`. Drops verdicts unchecked for
/// `k_keep_unused_ms`. A name over k_max_name_bytes writes nothing.
void record_verdict(boost::json::object& doc, const DefinitionInfo& who, util::EpochMs now, Writer by,
                    const std::function<void(boost::json::object& entry)>& mark);

/// Applies `mark` to `servers.<server>` of a name without a definition (a claude.ai connector, a payload name);
/// a name over k_max_name_bytes writes nothing.
void record_unbound(boost::json::object& doc, std::string_view server, Writer by,
                    const std::function<void(boost::json::object& entry)>& mark);

/// Every verdict, as stored (`definitions`); an empty object when there is none.
const boost::json::object& verdicts(const boost::json::object& doc);

/// The fingerprint a verdict or mirror entry names (`definition`), if any.
std::optional<std::string> definition_of(const boost::json::object& entry);

/// The server's name as tool names spell it, as a verdict records it (`toolName`).
std::optional<std::string> verdict_tool_server(const boost::json::object& entry);

/// What a verdict says of the definition it is for: its name as tool names spell it, its scope and its project.
struct VerdictLabel {
  std::optional<std::string> tool_server;
  std::optional<std::string> scope;
  std::optional<std::string> project;
};
VerdictLabel label_of(const boost::json::object& entry);

/// Removes every trace of `server` (a config or tool-name server) from the state file: its `servers` entry and its
/// verdicts (its bindings are on their shelf: forget_bound_name). Returns true when anything was removed.
bool forget_server(boost::json::object& doc, std::string_view server);

/// Removes the verdict of definition `fingerprint`, and the `servers` entry that mirrors it (if that one still
/// does). Returns true when anything was removed.
bool forget_verdict(boost::json::object& doc, std::string_view fingerprint);

/// The stamp of the invalid policy file the hook last reported (`policyProblemSaid`): it says a problem once per
/// change of the file, not on every call. Empty when none was reported.
std::string policy_problem_said(const boost::json::object& doc);

/// Remembers that the invalid policy file with `stamp` was reported.
void remember_policy_problem(boost::json::object& doc, std::string_view stamp);

} // namespace mcphealth::state
