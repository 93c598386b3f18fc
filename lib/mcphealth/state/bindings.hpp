#pragma once
// What each folder's server names mean, as stored: per folder, the stamp of the configs they were read from, the
// files and variables that stamp covers, and each name's definition (or why it has none). Every folder has its own
// file on a shelf beside the state file (`<state>.d/bindings/`, state/shelf.hpp), so a hook reads its folder's
// alone and binding a folder rewrites that file alone, whatever number of folders months of use have bound.
// Bindings are a cache of what the configs say: one lost is read from the configs again at the next call.
#include <mcphealth/state/shelf.hpp>
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcphealth::state {

/// How long a folder's bindings and a definition's verdict are kept without being bound or checked.
inline constexpr std::int64_t k_keep_unused_ms = 30LL * 24 * 3600 * 1000;
/// The most folders one shard of the bindings keeps: 256 shards, so at most 16,384 folders, the least recently
/// bound going first (5,000 folders bound in a month fill a shard to about 40).
inline constexpr std::size_t k_folders_per_shard = 64;

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
  /// Every file the resolution read or looked for: what the stamp covers.
  std::vector<std::string> files;
  /// `${VAR}` names whose values the stamp covers.
  std::vector<std::string> variables;
  /// The entry of every name bound so far.
  boost::json::object names;

  /// The binding of `server` (a tool-name server), if one was made.
  std::optional<Binding> find(std::string_view server) const;
  /// Reads a folder's stored object; nothing when it was made before the stamp covered every file read.
  static std::optional<FolderBindings> from_json(const boost::json::object& stored);
};

/// What binding a folder records: the stamp and what it covers, and names to bind.
struct FolderBind {
  std::string stamp;
  std::vector<std::string> files = {};
  std::vector<std::string> variables = {};
  std::vector<std::pair<std::string, Binding>> names = {};
};

/// Binds into a folder's stored object: all of it replaced when the stamp differs from the stored one, else the
/// names merged in.
void bind_folder(boost::json::object& stored, const FolderBind& bind, util::EpochMs now);

/// True when `stored` already holds all `bind` would record (the same stamp, each name bound alike): binding again
/// would rewrite the folder's file for nothing.
bool holds(const std::optional<FolderBindings>& stored, const FolderBind& bind);

/// The shelf of a state file's bindings: `<state>.d/bindings`.
Shelf bindings_shelf(const std::filesystem::path& state_path);

/// How many folders' bindings one write moves out of a state file that kept them inside itself: each is a file
/// to create, and the writers' lock is held meanwhile (5,000 folders move in 20 writes, not one of seconds).
inline constexpr std::size_t k_folders_moved_per_write = 256;

/// Moves the bindings a state file kept inside itself (`bindings.<folder>`, before they had files of their own)
/// onto `shelf`, at most `limit` of them, each that was bound in the last month and has no file there yet (a
/// month-old one is dropped); `bindings` goes when it is empty. True when `doc` changed.
bool move_bindings_out(boost::json::object& doc, Shelf& shelf, util::EpochMs now,
                       std::size_t limit = k_folders_moved_per_write);

/// Removes the bindings of `servers` from every folder, in one pass over the shelf; true when any was removed.
bool forget_bound_names(Shelf& shelf, const std::vector<std::string>& servers, util::EpochMs now);

} // namespace mcphealth::state
