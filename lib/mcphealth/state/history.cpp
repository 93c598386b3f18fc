#include <mcphealth/state/history.hpp>

#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/fields.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/text.hpp>
#include <mcphealth/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::state {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::pair<HistoryKind, std::string_view> k_kind_names[] = {
    {HistoryKind::down, "down"},
    {HistoryKind::up, "up"},
    {HistoryKind::forgotten, "forgotten"},
    {HistoryKind::blocked, "blocked"},
    {HistoryKind::failed_call, "failed-call"},
};

// A history line's fields.
constexpr std::string_view k_at = "at";
constexpr std::string_view k_kind = "kind";
constexpr std::string_view k_server = "server";
constexpr std::string_view k_by = "by";
constexpr std::string_view k_text = "text";
constexpr std::string_view k_code = "code";
constexpr std::string_view k_event = "event";
constexpr std::string_view k_scope = "scope";
constexpr std::string_view k_project = "project";

// The state file's record of the hooks seen: `agents.<id>.{seenAt,event,path}`.
constexpr std::string_view k_agents = "agents";
constexpr std::string_view k_seen_at = "seenAt";
constexpr std::string_view k_seen_event = "event";
constexpr std::string_view k_seen_path = "path";
constexpr std::string_view k_sdk_version = "sdkVersion";
constexpr std::string_view k_sdk_seen_at = "sdkSeenAt";

/// The longest PATH kept.
constexpr std::size_t k_max_path_bytes = 8192;

/// Writes all of `text` to `fd`.
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// A history file is never larger than this (rotation keeps it near k_history_max_bytes; a writer may pass it by a
/// line or two): a larger one is not a history, and is not read.
constexpr std::size_t k_history_read_limit = 4 * k_history_max_bytes;

void read_lines(const fs::path& path, util::EpochMs since, History& out) {
  // read_file opens without blocking and reads regular files only, within a bound: a FIFO or /dev/zero is refused.
  const auto bytes = util::read_file(path, k_history_read_limit);
  if (!bytes) {
    if (!bytes.error().is(util::ReadFailure::missing))
      out.unread_files.push_back(path.string() + ": " + bytes.error().message);
    return;
  }
  for (const std::string& line : util::split_lines(*bytes)) {
    if (line.empty()) continue;
    const auto parsed = util::parse_json(line);
    const json::object* obj = parsed ? parsed->if_object() : nullptr;
    const auto event = obj ? HistoryEvent::from_json(*obj) : std::nullopt;
    if (!event) {
      ++out.unreadable;
      continue;
    }
    if (event->at >= since) out.events.push_back(*event);
  }
}

} // namespace

std::string_view history_kind_name(HistoryKind kind) {
  for (const auto& [k, name] : k_kind_names) {
    if (k == kind) return name;
  }
  return "down";
}

std::optional<HistoryKind> history_kind_from_name(std::string_view name) {
  for (const auto& [k, n] : k_kind_names) {
    if (n == name) return k;
  }
  return std::nullopt;
}

json::object HistoryEvent::to_json() const {
  json::object o;
  o[k_at] = at;
  o[k_kind] = history_kind_name(kind);
  o[k_server] = server;
  if (!by.empty()) o[k_by] = by;
  if (!text.empty()) o[k_text] = util::cap_utf8(util::redact(text), k_history_text_bytes);
  if (!code.empty()) o[k_code] = code;
  if (!event.empty()) o[k_event] = event;
  if (definition) o[field::definition] = *definition;
  if (scope) o[k_scope] = *scope;
  if (project) o[k_project] = *project;
  return o;
}

std::optional<HistoryEvent> HistoryEvent::from_json(const json::object& obj) {
  const auto at = util::get_int(obj, k_at);
  const auto kind = history_kind_from_name(util::get_string(obj, k_kind).value_or(""));
  const auto server = util::get_string(obj, k_server);
  if (!at || !kind || !server) return std::nullopt;
  HistoryEvent e{.at = *at, .kind = *kind, .server = *server};
  e.by = util::get_string(obj, k_by).value_or("");
  e.text = util::redact(util::get_string(obj, k_text).value_or(""));
  e.code = util::get_string(obj, k_code).value_or("");
  e.event = util::get_string(obj, k_event).value_or("");
  e.definition = util::get_string(obj, field::definition);
  e.scope = util::get_string(obj, k_scope);
  e.project = util::get_string(obj, k_project);
  return e;
}

fs::path history_path(const fs::path& state_path) { return state_path.string() + ".history.jsonl"; }
fs::path rotated_history_path(const fs::path& state_path) { return state_path.string() + ".history.1.jsonl"; }

std::vector<HistoryEvent> transitions(const json::object& before, const json::object& after, util::EpochMs now) {
  std::vector<HistoryEvent> out;
  // One entry's change: `name` as the event names it, `label` the verdict's who (none for a mirror).
  const auto changed = [&](const json::object* was, const json::object* is, const std::string& name,
                           const std::optional<std::string>& fp, const json::object& label_from) {
    const std::string old = was ? ServerEntry::from_json(*was).status : std::string();
    HistoryEvent e{.at = now, .server = name, .definition = fp};
    if (fp) {
      const VerdictLabel label = label_of(label_from);
      e.server = label.tool_server.value_or(name);
      e.scope = label.scope;
      e.project = label.project;
    }
    if (is == nullptr) {
      if (old != "unhealthy") return;
      e.kind = HistoryKind::forgotten;
    } else {
      const ServerEntry entry = ServerEntry::from_json(*is);
      if (entry.status == old) return;
      e.by = updated_by(*is).value_or("");
      if (entry.unhealthy()) {
        e.kind = HistoryKind::down;
        e.text = entry.last_error.value_or("");
        e.code = entry.last_failure_code.text();
      } else if (entry.healthy() && old == "unhealthy") {
        e.kind = HistoryKind::up;
        // Back because a reconnect command brought it back: credited to the reconnect, not to the probe after it.
        if (entry.restored_by == RestoredBy::reconnect_command || entry.restored_by == RestoredBy::post_failure_reconnect)
          e.by = "reconnect by " + (e.by.empty() ? std::string("mcphealth") : e.by);
      } else {
        return;
      }
    }
    out.push_back(std::move(e));
  };
  const json::object& defs_was = verdicts(before);
  const json::object& defs_is = verdicts(after);
  for (const auto& kv : defs_is) {
    if (!kv.value().is_object()) continue;
    const json::value* was = defs_was.if_contains(kv.key());
    changed(was && was->is_object() ? &was->get_object() : nullptr, &kv.value().get_object(), kv.key(),
            std::string(kv.key()), kv.value().get_object());
  }
  for (const auto& kv : defs_was) {
    if (defs_is.contains(kv.key()) || !kv.value().is_object()) continue;
    changed(&kv.value().get_object(), nullptr, kv.key(), std::string(kv.key()), kv.value().get_object());
  }
  // The `servers` entries that name no definition: written by a hook that does not tell definitions apart.
  const json::object& was = servers_of(before);
  const json::object& is = servers_of(after);
  const auto entry_at = [](const json::object& map, std::string_view key) { return util::get_object(map, key); };
  for (const auto& kv : is) {
    if (!kv.value().is_object() || definition_of(kv.value().get_object())) continue;
    changed(entry_at(was, kv.key()), &kv.value().get_object(), kv.key(), std::nullopt, kv.value().get_object());
  }
  for (const auto& kv : was) {
    if (is.contains(kv.key()) || !kv.value().is_object() || definition_of(kv.value().get_object())) continue;
    changed(&kv.value().get_object(), nullptr, kv.key(), std::nullopt, kv.value().get_object());
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.server < b.server; });
  return out;
}

std::optional<std::string> append_history(const fs::path& state_path, const std::vector<HistoryEvent>& events) {
  if (events.empty() || is_cache_off(state_path)) return std::nullopt;
  std::string text;
  for (const auto& e : events) text += json::serialize(e.to_json()) + "\n";
  const fs::path path = history_path(state_path);
  auto fail = [&](const char* what) { return "history " + path.string() + ": " + what + ": " + std::strerror(errno); };
  // Under an flock of the file itself, which writers take briefly: a rotation (a rename) while another writer holds
  // the old file open would otherwise send its line into the rotated file, or lose the rotated file to a second
  // rotation. A writer that finds the path names another file now reopens it.
  for (int attempt = 0; attempt < 3; ++attempt) {
    // O_NONBLOCK: a FIFO at the path would hold the hook until the agent's timeout; it is refused below.
    util::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600));
    if (!fd.valid()) return fail("cannot open");
    if (::flock(fd.get(), LOCK_EX) != 0) return fail("cannot lock");
    struct stat held {}, named {};
    if (::fstat(fd.get(), &held) != 0) return fail("cannot stat");
    if (!S_ISREG(held.st_mode)) {
      return "history " + path.string() + ": not a regular file; line not written";
    }
    if (::stat(path.c_str(), &named) != 0 || named.st_ino != held.st_ino || named.st_dev != held.st_dev) continue;
    if (static_cast<std::uintmax_t>(held.st_size) >= k_history_max_bytes) {
      if (std::rename(path.c_str(), rotated_history_path(state_path).c_str()) != 0) return fail("cannot rotate");
      continue; // the next round creates the new file
    }
    if (!write_all(fd.get(), text)) return fail("cannot write");
    return std::nullopt;
  }
  return "history " + path.string() + ": rotated under this writer three times; line not written";
}

History read_history(const fs::path& state_path, util::EpochMs since) {
  History out;
  if (is_cache_off(state_path)) return out;
  read_lines(rotated_history_path(state_path), since, out);
  read_lines(history_path(state_path), since, out);
  std::stable_sort(out.events.begin(), out.events.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  return out;
}

void note_hook_seen(json::object& doc, const HookSeen& seen) {
  json::value& agents = doc[k_agents];
  if (!agents.is_object()) agents = json::object();
  json::value& slot = agents.get_object()[seen.agent];
  // The last Agent SDK script seen stays through other sessions' runs.
  const json::object* was = slot.if_object();
  const std::optional<std::string> sdk = was ? util::get_string(*was, k_sdk_version) : std::nullopt;
  const std::optional<std::int64_t> sdk_at = was ? util::get_int(*was, k_sdk_seen_at) : std::nullopt;
  json::object entry;
  entry[k_seen_at] = seen.at;
  entry[k_seen_event] = seen.event;
  if (!seen.path.empty()) entry[k_seen_path] = util::cap_utf8(seen.path, k_max_path_bytes);
  if (!seen.sdk_version.empty()) {
    entry[k_sdk_version] = util::cap_utf8(seen.sdk_version, 64);
    entry[k_sdk_seen_at] = seen.at;
  } else if (sdk && sdk_at) {
    entry[k_sdk_version] = *sdk;
    entry[k_sdk_seen_at] = *sdk_at;
  }
  slot = std::move(entry);
}

std::vector<HookSeen> hooks_seen(const json::object& doc) {
  std::vector<HookSeen> out;
  const json::object* agents = util::get_object(doc, k_agents);
  if (!agents) return out;
  for (const auto& kv : *agents) {
    const json::object* e = kv.value().if_object();
    if (!e) continue;
    const auto at = util::get_int(*e, k_seen_at);
    if (!at) continue;
    out.push_back({.agent = kv.key(), .at = *at, .event = util::get_string(*e, k_seen_event).value_or(""),
                   .path = util::get_string(*e, k_seen_path).value_or(""),
                   .sdk_version = util::get_string(*e, k_sdk_version).value_or(""),
                   .sdk_at = util::get_int(*e, k_sdk_seen_at).value_or(0)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.at > b.at; });
  return out;
}

} // namespace mcphealth::state
