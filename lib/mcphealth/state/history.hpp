#pragma once
// What happened while nobody watched: a bounded log of the state's transitions (a server went down, came back, was
// forgotten) and of the calls the hook blocked, as JSON lines beside the state file (`<state>.history.jsonl`,
// rotated once to `<state>.history.1.jsonl`, so it never holds more than twice k_history_max_bytes). Written by the
// state's one writer after a change it made, and by the hook when it blocks a call: never on a cache hit. Read by
// `mcphealth report` and `mcphealth doctor`.
//
// Also here: what the hook leaves in the state file about the agent that ran it (`agents.<id>`: when it was last
// seen, on which event, with which PATH), so that `doctor` can say the gate is on and probes outside a session can
// start a server as the agent would.
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::state {

/// The size past which the history file is rotated.
inline constexpr std::uintmax_t k_history_max_bytes = 512 * 1024;
/// The longest text (an error, what the model was told) a history line keeps.
inline constexpr std::size_t k_history_text_bytes = 600;

/// What a history line records.
enum class HistoryKind {
  down,      // a server was marked unhealthy (from healthy, or from nothing)
  up,        // an unhealthy server was marked healthy
  forgotten, // an unhealthy server's entry was removed (`reset`)
  blocked,   // the hook blocked a call
  failed_call, // a call reached the server and failed for its outage (the model read the failure)
};

/// The JSON spelling of `kind`: `down`, `up`, `forgotten`, `blocked`, `failed-call`.
std::string_view history_kind_name(HistoryKind kind);
/// Reads the JSON spelling; nothing for another word.
std::optional<HistoryKind> history_kind_from_name(std::string_view name);

/// One line of the history.
struct HistoryEvent {
  util::EpochMs at = 0;
  HistoryKind kind = HistoryKind::down;
  /// The server, as tool names spell it (the `servers` key).
  std::string server;
  /// Who wrote it: the entry's `updatedBy` (hook, probe, watch, ...) for a transition, the agent's id for a block.
  std::string by = {};
  /// For `down`: the error recorded; for `blocked`: what the model was told.
  std::string text = {};
  /// For `down`: the failure's code (`401`, `transport`), when one.
  std::string code = {};
  /// For `blocked`: the hook event (`PreToolUse`).
  std::string event = {};
  /// Which definition of `server` it is about (its fingerprint), and what tells it from another of the same name:
  /// its scope (`user`, `project`, ...) and, for local and project scope, its folder. Nothing in a line about a
  /// name without a definition (the JS hook's entry, a connector) or written before definitions were kept here.
  std::optional<std::string> definition = std::nullopt;
  std::optional<std::string> scope = std::nullopt;
  std::optional<std::string> project = std::nullopt;

  boost::json::object to_json() const;
  /// Reads a line's object; nothing when it is not a history line.
  static std::optional<HistoryEvent> from_json(const boost::json::object& obj);
};

/// The history file of the state file at `state_path`, and its one rotated predecessor.
std::filesystem::path history_path(const std::filesystem::path& state_path);
std::filesystem::path rotated_history_path(const std::filesystem::path& state_path);

/// The transitions from `before` to `after` (two state documents, each with its `servers` and the `definitions`
/// it holds) at `now`, in server order: a definition's verdict that went down, came back or was forgotten while down
/// (with its label), and a `servers` entry that names no definition (the JS hook's, a connector's). A mirror that
/// names a definition is that verdict's copy, not a transition of its own: two servers of one name in two projects
/// share one mirror, and the second one's verdict is no recovery of the first.
std::vector<HistoryEvent> transitions(const boost::json::object& before, const boost::json::object& after,
                                      util::EpochMs now);

/// Appends `events` to the history of `state_path`, each as one line written whole (O_APPEND), rotating the file
/// first when it is past k_history_max_bytes. Best effort: the history never stops a verdict from being written, so
/// a failure is returned as words, not thrown.
std::optional<std::string> append_history(const std::filesystem::path& state_path,
                                          const std::vector<HistoryEvent>& events);

/// What read_history found.
struct History {
  /// In the order written, oldest first.
  std::vector<HistoryEvent> events;
  /// Lines that did not read as history (cut by a crash mid-write, or edited).
  std::size_t unreadable = 0;
  /// Files that were not read at all, with why (not a regular file, larger than any history grows): the state
  /// file's rules, so a FIFO or a link to /dev/zero cannot hang a reader.
  std::vector<std::string> unread_files = {};
};

/// The history of `state_path` from `since` on (the rotated file first); an absent file is an empty history.
History read_history(const std::filesystem::path& state_path, util::EpochMs since = 0);

/// What the state file says of an agent whose hook ran (`agents.<id>`).
struct HookSeen {
  std::string agent;
  util::EpochMs at = 0;
  /// The hook event it ran on.
  std::string event;
  /// The PATH it ran with (a variable's names and PATH only: never a secret value).
  std::string path;
  /// The Claude Agent SDK whose script ran it (`CLAUDE_AGENT_SDK_VERSION`), and when: kept across the runs of
  /// other sessions, so doctor can say what the gate does for such a script's own servers. Empty: none seen.
  std::string sdk_version = {};
  util::EpochMs sdk_at = 0;
};

/// Records in `doc` that `seen.agent`'s hook ran.
void note_hook_seen(boost::json::object& doc, const HookSeen& seen);
/// Every agent whose hook the state file says it saw, the most recent first.
std::vector<HookSeen> hooks_seen(const boost::json::object& doc);

} // namespace mcphealth::state
