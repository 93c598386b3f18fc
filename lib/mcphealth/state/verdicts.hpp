#pragma once
// One verdict per definition, and what each folder's names are bound to. The layout, in the state file:
//   servers.<name>          the JS hook's entry: a mirror of the last verdict written for that tool-name server
//   definitions.<fp>        mcphealth's verdicts, one per definition fingerprint (same fields, plus who it is)
//   bindings.<folder>       per folder: the resolution's stamp, and each name's fingerprint (or why it has none)
// Every field name of these lives here; the hook, probe, status and reset go through these functions.
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::state {

/// How long a folder's bindings and a definition's verdict are kept without being used or checked.
inline constexpr std::int64_t k_keep_unused_ms = 30LL * 24 * 3600 * 1000;

/// The standing stored for a name nothing defines in a folder.
inline constexpr std::string_view k_standing_undefined = "none";
/// The standing stored for a name whose definition the agent starts.
inline constexpr std::string_view k_standing_active = "active";
/// The standing stored for a call the client says goes to a definition in a place mcphealth finds none.
inline constexpr std::string_view k_standing_unseen = "unseen";

struct Binding {
  /// What a name means in a folder: the agent starts a definition of it, nothing defines it, or the definitions
  /// found are not started (pending approval, disabled, ...: `standing` says which).
  enum class Meaning { starts, undefined, not_started };
  /// The fingerprint of the definition the agent uses; nothing when it starts no server of that name there.
  std::optional<std::string> definition;
  /// Without a definition: the resolver's standing (`none` when nothing defines the name) and why.
  std::string standing;
  std::string reason;
  /// With a definition of local or project scope: its project, which per-project policy rules match.
  std::optional<std::string> project = std::nullopt;

  Meaning meaning() const {
    if (definition) return Meaning::starts;
    return standing == k_standing_undefined ? Meaning::undefined : Meaning::not_started;
  }
};

/// A folder's bindings as stored.
struct FolderBindings {
  /// The resolution stamp they were made under: they hold while a fresh stamp is equal.
  std::string stamp;
  /// Every file the resolution read or looked for: what the stamp covers. (Bindings written before it was kept,
  /// under `extraFiles`, have none: they are stale, and the next call binds the folder again.)
  std::vector<std::string> files;
  /// `${VAR}` names whose values the stamp covers.
  std::vector<std::string> variables;
  /// The entry of every name bound so far.
  const boost::json::object* names = nullptr;

  /// The binding of `server` (a tool-name server), if one was made.
  std::optional<Binding> find(std::string_view server) const;
};

/// The bindings of `folder`, if any.
std::optional<FolderBindings> folder_bindings(const boost::json::object& doc, std::string_view folder);

/// Sets `folder`'s bindings: all of them replaced when `stamp` differs from the stored one, else `names` merged in.
void bind_folder(boost::json::object& doc, std::string_view folder, std::string_view stamp,
                 const std::vector<std::string>& files, const std::vector<std::string>& variables,
                 const std::vector<std::pair<std::string, Binding>>& names, util::EpochMs now);

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
};

/// The entry to decide from: the definition's verdict; without one (or without a definition), the `servers` entry
/// of `server` when it names no definition (the JS hook's, or one written before definitions were told apart).
const boost::json::object* decision_entry(const boost::json::object& doc, std::string_view server,
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

/// Removes every trace of `server` (a config or tool-name server): its `servers` entry, its verdicts, and its
/// bindings in every folder. Returns true when anything was removed.
bool forget_server(boost::json::object& doc, std::string_view server);

/// Every fingerprint some folder's binding points at, each once: the definitions in use somewhere.
std::vector<std::string> bound_definitions(const boost::json::object& doc);

/// The keys of every folder's bindings (`<dir>`, `<dir> (<agent>)`): the folders the hooks have run in.
std::vector<std::string> bound_folders(const boost::json::object& doc);

/// Removes the verdict of definition `fingerprint`, and the `servers` entry that mirrors it (if that one still
/// does). Returns true when anything was removed.
bool forget_verdict(boost::json::object& doc, std::string_view fingerprint);

/// The stamp of the invalid policy file the hook last reported (`policyProblemSaid`): it says a problem once per
/// change of the file, not on every call. Empty when none was reported.
std::string policy_problem_said(const boost::json::object& doc);

/// Remembers that the invalid policy file with `stamp` was reported.
void remember_policy_problem(boost::json::object& doc, std::string_view stamp);

} // namespace mcphealth::state
