#pragma once
// The state file (`~/.claude/mcp-health-cache.json`), shared with the JS hook, and what mcphealth keeps beside it
// (`<state>.d/`): each definition's verdict and each folder's bindings, a file apiece (state/shelf.hpp), so a hook
// reads what its call needs and a write rewrites what changed, however much the state has learned. Lock-free
// reads for the hot path, and one writer for every change: lock, re-read, mutate, write a temp file, rename.
#include <mcphealth/state/bindings.hpp>
#include <mcphealth/state/history.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/lockfile.hpp>
#include <mcphealth/util/result.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::state {

/// The newest state-file version this build writes.
inline constexpr std::int64_t k_state_version = 1;
/// How long a writer waits for another writer's lock before it gives up on writing.
inline constexpr std::int64_t k_lock_wait_ms = 2000;

/// What a read found.
enum class LoadStatus { ok, missing, corrupt, newer_version, unreadable };

/// What a load status means, in a few words: `read`, `missing (nothing cached yet)`, `not a state file (ignored)`, ...
std::string_view load_status_words(LoadStatus status);

/// A parsed state file. `doc` is always an object with an object `servers` (empty when the file was not usable),
/// and `definitions`, the verdicts: every one (a whole read), or none (a read of what is asked for: `verdict`
/// reads each from its file on first use).
///
/// A snapshot read as asked (load_state(path, Verdicts::when_asked)) reads the state file itself only when
/// something needs it (`read_file`, or a verdict that has no file): a call decided from its verdict's file never
/// parses the JS hook's map. Until then `doc` is empty and `status` says `missing`; so the fields are `mutable`,
/// filled on that first use. Every other snapshot is read whole when made.
struct StateSnapshot {
  mutable LoadStatus status = LoadStatus::missing;
  mutable boost::json::object doc;
  mutable std::int64_t version = k_state_version;
  /// Why the file was corrupt or unreadable.
  mutable std::string error;
  /// Where verdicts not in `doc` are, for a snapshot that reads them when asked for; none when `doc` holds all.
  std::optional<Shelf> verdict_files = std::nullopt;
  /// The state file not read yet, for a snapshot read as asked.
  mutable std::optional<std::filesystem::path> unread_file = std::nullopt;

  /// This snapshot with its state file read (now, when it was not).
  const StateSnapshot& read_file() const;

  /// Returns the entry of `server`, if there is one.
  const boost::json::object* server(std::string_view name) const;
  /// Returns the `servers` object.
  const boost::json::object& servers() const;
  /// The verdict of definition `fingerprint`: from `doc`, else read from its file once (a verdict found missing
  /// stays missing for this snapshot), when there is one.
  const boost::json::object* verdict(std::string_view fingerprint) const;

private:
  mutable std::map<std::string, std::optional<boost::json::object>, std::less<>> m_read;
};

/// Where a state file keeps its verdicts: `<state>.d/verdicts`, a file per definition. Kept for a month after
/// their last check (as in the file before), 16,384 at most.
Shelf verdicts_shelf(const std::filesystem::path& state_path);

/// What the state holds on disk, all of it: the file, the verdicts and the folders' bindings beside it, and the
/// history. Each part has a bound use does not move (a shelf's capacity; the history rotates).
struct StateSize {
  std::uintmax_t file_bytes = 0;
  Shelf::Size verdicts = {};
  Shelf::Size bindings = {};
  std::uintmax_t history_bytes = 0;
  std::uintmax_t total() const { return file_bytes + verdicts.bytes + bindings.bytes + history_bytes; }
};
StateSize state_size(const std::filesystem::path& state_path);

/// Which verdicts an update reads before its mutator runs: every one, or a few definitions' (a hook's write
/// touches one: reading every verdict would make each write cost what months of use have left).
struct Touches {
  bool all = true;
  std::vector<std::string> definitions = {};
  static Touches only(std::vector<std::string> fingerprints) { return {false, std::move(fingerprints)}; }
};

/// True for a path that switches the cache off: `/dev/null`, or another node of the null device.
bool is_cache_off(const std::filesystem::path& path);

/// Reads and validates the state file at `path` and every verdict beside it; never throws. `/dev/null` reads as
/// missing. `Verdicts::when_asked` reads none of the verdicts beside it until StateSnapshot::verdict asks.
enum class Verdicts { all, when_asked };
StateSnapshot load_state(const std::filesystem::path& path, Verdicts verdicts = Verdicts::all);

/// Returns the `servers` object of a document that `load_state` produced.
boost::json::object& servers_of(boost::json::object& doc);
/// The same, read only (an empty object when there is none).
const boost::json::object& servers_of(const boost::json::object& doc);

/// Returns the entry of `server` in `doc`, created empty when missing.
boost::json::object& entry_of(boost::json::object& doc, std::string_view server);

/// What an update that went through did.
struct Update {
  /// False when the mutator changed nothing, so nothing was written.
  bool written = false;
  /// Where a corrupt file's bytes were moved before it was replaced, when that happened.
  std::optional<std::filesystem::path> moved_aside;
};

/// Why an update did not go through (nothing was written), with words for the user: `state lock ... still held
/// after 5000 ms; not writing ...`.
enum class UpdateFailure { lock_timeout, refused_newer_version, failed };
using UpdateError = util::KindedError<UpdateFailure>;

/// The outcome of an update.
using UpdateResult = util::Result<Update, UpdateError>;

/// Changes a freshly read document (always an object with an object `servers`); returns true when it changed
/// anything, false to write nothing.
using Mutator = std::function<bool(boost::json::object& doc)>;

/// What the gate needs of the state: a read, an update through the one writer, a folder's bindings, and a
/// per-definition probe lock. An interface so the gate's executor runs in a unit test on a document in memory (tests/unit/fakes.hpp), with no file.
class Store {
public:
  using Mutator = state::Mutator;
  virtual ~Store() = default;
  /// Where the state lives, as the user's messages name it.
  virtual const std::filesystem::path& path() const = 0;
  /// The current state, read without locking, with every verdict.
  virtual StateSnapshot read() const = 0;
  /// The same, its verdicts read as they are asked for (StateSnapshot::verdict): what one call reads.
  virtual StateSnapshot read_lazily() const { return read(); }
  /// Applies `mutate` to the current state under the writers' lock, waiting at most `lock_wait_ms` for it; the
  /// document it is given holds the verdicts `touches` names (all, unless it says).
  virtual UpdateResult update(const Mutator& mutate, std::int64_t lock_wait_ms = k_lock_wait_ms,
                              const Touches& touches = {}) = 0;
  /// Takes the probe lock of `key` (a definition's fingerprint, or a server name), waiting at most `wait_ms`.
  virtual util::Result<util::RecordLock, util::LockError> lock_probe(std::string_view key, std::int64_t wait_ms) = 0;
  /// The bindings of `folder` (a folder key, agent::folder_key), as stored.
  virtual std::optional<FolderBindings> bindings(std::string_view folder) const = 0;
  /// Records bindings of `folder` at `now` (state::bind_folder's rule), under the writers' lock; words when it
  /// could not (the next call binds again).
  virtual util::Result<void> bind(std::string_view folder, const FolderBind& bind, util::EpochMs now) = 0;
  /// Adds `events` to the history kept beside the state (state/history.hpp); best effort, words when it failed. A
  /// store in memory keeps none.
  virtual std::optional<std::string> append_history(const std::vector<HistoryEvent>& events) {
    (void)events;
    return std::nullopt;
  }
};

/// The single writer of one state file.
class StateStore final : public Store {
public:
  StateStore(std::filesystem::path path, util::Clock& clock) : m_path(std::move(path)), m_clock(clock) {}

  /// The state file's path.
  const std::filesystem::path& path() const override { return m_path; }
  /// The clock its writes are stamped with.
  util::Clock& clock() const { return m_clock; }
  /// True when the state path is the null device (`/dev/null`): the cache is off. Reads find nothing, writes write nothing, and no
  /// lock file is made next to it.
  bool disabled() const { return is_cache_off(m_path); }
  /// The `flock` file that serializes writers: `<path>.lock`.
  std::filesystem::path lock_path() const { return m_path.string() + ".lock"; }
  /// Takes the probe lock of `key` (a definition's fingerprint, or a server name), waiting at most `wait_ms`: one
  /// probe of a server at a time, across processes, through the records of `<path>.probe.lock`. With the cache off
  /// nothing is recorded, so there is nothing to guard: an empty lock at once, and no lock file.
  util::Result<util::RecordLock, util::LockError> lock_probe(std::string_view key, std::int64_t wait_ms) override;

  /// Reads the current file without locking (writes are atomic renames, so a read sees a whole file).
  StateSnapshot read() const override { return load_state(m_path); }
  StateSnapshot read_lazily() const override { return load_state(m_path, Verdicts::when_asked); }

  /// Where the folders' bindings are: `<path>.d/bindings`, a file per folder (state/bindings.hpp).
  Shelf shelf() const { return bindings_shelf(m_path); }
  /// Reads `folder`'s file alone; nothing with the cache off.
  std::optional<FolderBindings> bindings(std::string_view folder) const override;
  /// Under the writers' lock: re-reads `folder`'s file, binds, and replaces that file alone.
  util::Result<void> bind(std::string_view folder, const FolderBind& bind, util::EpochMs now) override;

  /// Under the lock: re-reads the file and the verdicts `touches` names, moves a corrupt file aside, applies
  /// `mutate`, writes the verdicts that changed (each its file, removing those it removed) and replaces the file
  /// atomically. Verdicts and bindings a file from before they had their own files still holds are moved out. Refuses to overwrite a newer version. Waits at most `lock_wait_ms` for the lock.
  /// The history gets the transitions a written update made (state::transitions), under the same lock.
  UpdateResult update(const Mutator& mutate, std::int64_t lock_wait_ms = k_lock_wait_ms,
                      const Touches& touches = {}) override;
  std::optional<std::string> append_history(const std::vector<HistoryEvent>& events) override;

private:
  std::filesystem::path m_path;
  util::Clock& m_clock;
};

} // namespace mcphealth::state
