#pragma once
// `mcphealth install` and `uninstall`: the hook's entries merged into (or taken out of) a Claude Code settings
// file, touching nothing else. A plan is computed first (what the file would become, and why), so `--dry-run`
// shows exactly what a real run writes.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/env.hpp>
#include <mcphealth/util/result.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcphealth::ops {

struct InstallRequest {
  /// The agent whose settings file it is (its events, matchers and hook entry): Claude Code when nothing.
  const agent::Agent* agent = nullptr;
  /// The settings file to change.
  std::filesystem::path file;
  /// The binary as the hook command should name it: an absolute path, so the hook runs whatever PATH the agent
  /// has; or a bare name (`mcphealth`), looked up on that PATH (what a file shared with a repository needs).
  std::string binary;
  /// The events to register, as the agent names them; empty = the agent's defaults (agent::Registration::events).
  std::vector<std::string> events = {};
  /// Also set `statusLine` to `BINARY status --statusline`, when none is set.
  bool statusline = false;
  /// Also remove the JS hook's entries (`mcp-health-check`) from this file.
  bool remove_js_hook = false;
};

/// What a run would do to the file.
struct InstallPlan {
  std::filesystem::path file;
  /// The file as it is (empty when missing) and as it would be.
  std::string before;
  std::string after;
  /// True when the file goes: the uninstall of a file mcphealth wrote whole (an agent's plugin).
  bool remove = false;
  /// True for an uninstall: once it is done, of the file's backups only the one it made is kept.
  bool uninstall = false;
  bool changed() const { return before != after || remove; }
  /// One line per change or decision: "PreToolUse: added", "statusLine: already set to ..., left as it is".
  std::vector<std::string> notes;
  /// Where the JS hook was found in this file (entries left in place unless asked to remove them).
  std::vector<std::string> js_hook;
};

/// True for a hook command that runs mcphealth's hook (agent::read_hook_command).
bool is_mcphealth_hook(const std::string& command);

/// Plans the install: adds a `mcp__.*` group running `BINARY hook` to each event that has none (SessionStart has
/// no matcher), points an existing one at `BINARY`, and leaves every other key, group and hook as it is. Fails
/// when the file cannot be changed safely (it does not parse, `hooks` is not an object, ...).
util::Result<InstallPlan> plan_install(const InstallRequest& request);

/// Plans the uninstall: removes every mcphealth hook (and groups and event lists it leaves empty), and the
/// `statusLine` when it runs mcphealth.
util::Result<InstallPlan> plan_uninstall(const std::filesystem::path& file,
                                         const agent::Agent& agent = agent::default_agent());

/// Why a plan was not applied: the file changed since it was read (plan again), or it could not be written.
enum class InstallFailure { changed_meanwhile, failed };
using InstallError = util::KindedError<InstallFailure>;

/// Writes `plan.after` atomically, keeping the file's mode (0644 for a new one), after copying the old file to
/// `<file>.bak-<YYYYMMDD-HHMMSS>` (`-2`, `-3`, ... when that backup exists), or into `backup_dir` when given (a
/// file inside a repository keeps its backups out of it: `<backup_dir>/<the file's path, / as %>.bak-...`). Just
/// before the write it reads the file again: when another program changed it meanwhile, nothing is written
/// (changed_meanwhile). Returns the backup's path (nothing when there was no file).
util::Result<std::optional<std::filesystem::path>, InstallError> apply_plan(
    const InstallPlan& plan, std::int64_t now_ms, const std::optional<std::filesystem::path>& backup_dir = std::nullopt);

/// One install or uninstall in one agent's file, whole: what `install` asks for.
struct InstallRun {
  enum class Direction { install, uninstall };
  Direction direction = Direction::install;
  /// For an install: the file, agent, binary and options (request.file and request.agent are used for both).
  InstallRequest request;
  /// Plan only: write nothing, ask no agent to trust anything.
  bool dry_run = false;
  /// Where the backup goes (a file inside a repository); nothing = beside the file.
  std::optional<std::filesystem::path> backup_dir = std::nullopt;
  /// The folder whose hooks an agent that trusts hooks by record (agent::HookTrust) is asked about.
  std::filesystem::path project;
  /// Whether that agent is asked to record trust for the entries written (install --no-trust: no).
  agent::TrustWritten ask_trust = agent::TrustWritten::yes;
};

/// What an install or uninstall did.
struct InstallDone {
  InstallPlan plan;
  /// The old file's copy, when one was written.
  std::optional<std::filesystem::path> backup;
  /// For an install in an agent that trusts hooks by record (and not a dry run): what it said of the hooks,
  /// `written` marking the entries install wrote. Nothing when it was not asked (--no-trust), or needs no trust.
  std::optional<agent::TrustListing> trust;
  /// For an uninstall there: the trust records of the removed hooks taken out of the agent's record, and why
  /// they could not be (empty: they were, or there were none).
  std::vector<std::string> trust_forgotten;
  std::string forget_error;
};

/// Plans and applies `run`: when another program (the agent itself) changes the file between the read and the
/// write, it reads it again and plans anew (five times at most). Around the write it keeps the agent's trust
/// records in step: an install asks the agent to trust the entries it wrote; an uninstall takes out the records of
/// the entries it removed (found while they are still listed). Fails with the message to show.
util::Result<InstallDone> install(const InstallRun& run, const util::Environment& env, util::Clock& clock);

/// The name the next backup of the file `base` takes at `now_ms`: `<base>.bak-YYYYMMDD-HHMMSS`, with `-N` one past
/// the highest of that second's when it has some, so that names sort in the order the backups were made.
std::filesystem::path backup_path(const std::string& base, util::EpochMs now_ms);

/// Where backups of files inside a repository go: `$XDG_STATE_HOME/mcphealth/backups`, else
/// `~/.local/state/mcphealth/backups`.
std::filesystem::path backup_folder(const util::Environment& env);


/// Where the full binary lies from the front's folder: mcphealth is two files (docs/developing.md, "Two binaries"),
/// `bin/mcphealth`, which a hook runs, and this one, which it starts for everything but a call it answers by reading.
inline constexpr std::string_view k_full_binary_from_front = "../libexec/mcphealth/mcphealth-full";
/// The variable by which the front names itself to the full binary it starts (the full binary unsets it at once).
inline constexpr const char* k_front_variable = "MCPHEALTH_FRONT_BINARY";

/// Takes `front` as the binary that hooks and services are to run (this_binary()), when the running binary is the
/// full binary that `front` starts; returns whether it did.
bool adopt_front(const std::filesystem::path& front);

/// The absolute path of the binary that users and hooks run: the front that started this process (adopt_front),
/// else the running binary (platform::own_executable, symlinks resolved), or nothing.
std::optional<std::filesystem::path> this_binary();

/// The path a hook should name for this binary: the one the user ran it by (`argv[0]`, looked up on PATH when a bare
/// name), made absolute but with its symlinks kept, when it is this same program: `~/.local/bin/mcphealth` ->
/// `…/Cellar/mcphealth/1.2/bin/mcphealth` registers the link, which an upgrade moves, not the versioned file, which
/// an upgrade deletes. Else this_binary().
std::optional<std::filesystem::path> registered_binary(std::string_view invoked_as, const util::Environment& env);

/// Why `program` looks like a path that an upgrade removes (a Homebrew Cellar, the nix store, a folder named for a
/// version such as `mcphealth-1.4.2/` or `v1.4.2/`), or nothing.
std::optional<std::string> versioned_folder(const std::filesystem::path& program);

} // namespace mcphealth::ops
