#include <mcphealth/state/store.hpp>

#include <sys/stat.h>

#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/lockfile.hpp>
#include <mcphealth/util/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace mcphealth::state {

std::string_view load_status_words(LoadStatus status) {
  switch (status) {
  case LoadStatus::ok: return "read";
  case LoadStatus::missing: return "missing (nothing cached yet)";
  case LoadStatus::corrupt: return "not a state file (ignored)";
  case LoadStatus::newer_version: return "a newer version (read, never written)";
  case LoadStatus::unreadable: return "unreadable";
  }
  return "?";
}

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {
json::object empty_doc() {
  json::object doc;
  doc["version"] = k_state_version;
  doc["servers"] = json::object();
  return doc;
}
} // namespace

const json::object* StateSnapshot::server(std::string_view name) const {
  const json::object& all = servers();
  auto it = all.find(name);
  if (it == all.end() || !it->value().is_object()) return nullptr;
  return &it->value().get_object();
}

const json::object& StateSnapshot::servers() const { return read_file().doc.at("servers").get_object(); }

const json::object* StateSnapshot::verdict(std::string_view fingerprint) const {
  if (verdict_files) {
    auto it = m_read.find(fingerprint);
    if (it == m_read.end()) it = m_read.emplace(std::string(fingerprint), verdict_files->get(fingerprint)).first;
    if (it->second) return &*it->second;
  }
  // A verdict the file itself holds, written before verdicts had files of their own.
  const json::object* inside = util::get_object(read_file().doc, "definitions");
  return inside ? util::get_object(*inside, fingerprint) : nullptr;
}

Shelf verdicts_shelf(const fs::path& state_path) {
  return Shelf(state_path.string() + ".d/verdicts", 64, k_keep_unused_ms, util::Sync::yes);
}

json::object& servers_of(json::object& doc) { return doc["servers"].as_object(); }

const json::object& servers_of(const json::object& doc) {
  static const json::object k_none;
  const json::value* v = doc.if_contains("servers");
  return v && v->is_object() ? v->get_object() : k_none;
}

json::object& entry_of(json::object& doc, std::string_view server) {
  json::value& v = servers_of(doc)[server];
  if (!v.is_object()) v = json::object();
  return v.as_object();
}

bool is_cache_off(const fs::path& path) {
  if (path == "/dev/null") return true;
  // Another name for the null device (a node made with mknod, /dev/stdout redirected there) is the same switch.
  struct stat st {}, null_st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && ::stat("/dev/null", &null_st) == 0 &&
         S_ISCHR(null_st.st_mode) && st.st_rdev == null_st.st_rdev;
}

namespace {

/// The state file alone.
StateSnapshot load_file(const fs::path& path) {
  StateSnapshot snap;
  snap.doc = empty_doc();
  if (is_cache_off(path)) {
    snap.status = LoadStatus::missing;
    return snap;
  }
  const auto file = util::read_file(path);
  if (!file) {
    snap.status = file.error().is(util::ReadFailure::missing) ? LoadStatus::missing : LoadStatus::unreadable;
    snap.error = file.error().message;
    return snap;
  }
  util::JsonParse parsed = util::parse_json(*file);
  if (!parsed) {
    snap.status = LoadStatus::corrupt;
    snap.error = "not JSON (" + parsed.error().text() + ")";
    return snap;
  }
  if (!parsed->is_object() || util::get_object(parsed->get_object(), "servers") == nullptr) {
    snap.status = LoadStatus::corrupt;
    snap.error = "not an object with an object \"servers\"";
    return snap;
  }
  snap.doc = std::move(parsed->get_object());
  snap.version = util::get_int(snap.doc, "version").value_or(k_state_version);
  snap.status = snap.version > k_state_version ? LoadStatus::newer_version : LoadStatus::ok;
  return snap;
}

json::object& object_at(json::object& doc, std::string_view key) {
  json::value& v = doc[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

/// A verdict's mirror in `servers` whose verdict has not been checked for a month goes with it (the verdict's file
/// goes when its shard is next written): the JS hook's map keeps no server for ever.
bool prune_mirrors(json::object& doc, util::EpochMs now) {
  std::vector<std::string> old;
  for (const auto& kv : servers_of(doc)) {
    const json::object* e = kv.value().is_object() ? &kv.value().get_object() : nullptr;
    if (e == nullptr || !e->contains("definition")) continue;
    const auto at = util::get_epoch_ms(*e, "checkedAt");
    if (at && *at + k_keep_unused_ms < now) old.emplace_back(kv.key());
  }
  for (const auto& key : old) servers_of(doc).erase(key);
  return !old.empty();
}

} // namespace

const StateSnapshot& StateSnapshot::read_file() const {
  if (!unread_file) return *this;
  StateSnapshot file = load_file(*unread_file);
  unread_file.reset();
  status = file.status;
  doc = std::move(file.doc);
  version = file.version;
  error = std::move(file.error);
  return *this;
}

StateSize state_size(const fs::path& state_path) {
  StateSize out;
  std::error_code ec;
  const auto bytes_of = [&](const fs::path& p) -> std::uintmax_t {
    const std::uintmax_t n = fs::file_size(p, ec);
    return ec ? 0 : n;
  };
  out.file_bytes = bytes_of(state_path);
  out.verdicts = verdicts_shelf(state_path).size();
  out.bindings = bindings_shelf(state_path).size();
  out.history_bytes = bytes_of(history_path(state_path)) + bytes_of(rotated_history_path(state_path));
  return out;
}

StateSnapshot load_state(const fs::path& path, Verdicts verdicts) {
  if (verdicts == Verdicts::when_asked && !is_cache_off(path)) {
    StateSnapshot snap;
    snap.doc = empty_doc();
    snap.verdict_files = verdicts_shelf(path);
    snap.unread_file = path;
    return snap;
  }
  StateSnapshot snap = load_file(path);
  if (snap.status != LoadStatus::ok && snap.status != LoadStatus::newer_version && snap.status != LoadStatus::missing)
    return snap;
  if (is_cache_off(path)) return snap;
  const Shelf files = verdicts_shelf(path);
  // A verdict in the file itself was written before verdicts had files of their own: one in a file is newer.
  json::object& all = object_at(snap.doc, "definitions");
  files.each([&](const std::string& fp, const json::object& v) { all[fp] = v; });
  if (all.empty()) snap.doc.erase("definitions");
  return snap;
}

util::Result<util::RecordLock, util::LockError> StateStore::lock_probe(std::string_view key, std::int64_t wait_ms) {
  if (disabled()) return util::RecordLock{};
  return util::RecordLock::acquire(m_path.string() + ".probe.lock", key, wait_ms, m_clock);
}

std::optional<FolderBindings> StateStore::bindings(std::string_view folder) const {
  if (disabled()) return std::nullopt;
  const std::optional<json::object> stored = shelf().get(folder);
  return stored ? FolderBindings::from_json(*stored) : std::nullopt;
}

util::Result<void> StateStore::bind(std::string_view folder, const FolderBind& bind, util::EpochMs now) {
  if (disabled()) return util::ok();
  const auto lock = util::FileLock::acquire(lock_path(), k_lock_wait_ms, m_clock);
  if (!lock) return util::fail(lock.error().message);
  Shelf folders = shelf();
  json::object stored = folders.get(folder).value_or(json::object());
  bind_folder(stored, bind, now);
  return folders.put(folder, stored, now);
}

UpdateResult StateStore::update(const Mutator& mutate, std::int64_t lock_wait_ms, const Touches& touches) {
  auto refuse = [](UpdateFailure kind, std::string message) { return util::fail(UpdateError{kind, std::move(message)}); };
  if (disabled()) return Update{}; // the cache is off: nothing to lock, nothing to write
  // Only this user's own file, in a folder others cannot write in, is written (a shared or mis-permissioned
  // MCPHEALTH_STATE_PATH): it, and the folder beside it that holds the verdicts, would be another's to plant.
  if (auto why = util::not_ones_own(m_path, util::OwnKind::file)) {
    return refuse(UpdateFailure::failed, *why + "; not writing the state there");
  }
  const auto lock = util::FileLock::acquire(lock_path(), lock_wait_ms, m_clock);
  if (!lock && lock.error().is(util::LockFailure::timed_out)) {
    return refuse(UpdateFailure::lock_timeout, "state lock " + lock_path().string() + " still held after " +
                                                       std::to_string(lock_wait_ms) + " ms; not writing " + m_path.string());
  }
  if (!lock) return refuse(UpdateFailure::failed, lock.error().message);

  StateSnapshot snap = load_file(m_path);
  if (snap.status == LoadStatus::newer_version) {
    return refuse(UpdateFailure::refused_newer_version,
                  m_path.string() + " has version " + std::to_string(snap.version) + ", newer than " +
                      std::to_string(k_state_version) + "; reading it but not overwriting it");
  }
  if (snap.status == LoadStatus::unreadable) {
    return refuse(UpdateFailure::failed, "cannot read " + m_path.string() + ": " + snap.error);
  }

  // The verdicts the mutator may touch, from their files; a verdict the file itself still holds (written before
  // they had files) is older than one in a file, and moves out with this write.
  Shelf verdict_files = verdicts_shelf(m_path);
  json::object on_file;
  if (touches.all) {
    verdict_files.each([&](const std::string& fp, const json::object& v) { on_file[fp] = v; });
  } else {
    for (const std::string& fp : touches.definitions) {
      if (std::optional<json::object> v = verdict_files.get(fp)) on_file[fp] = std::move(*v);
    }
  }
  json::object& definitions = object_at(snap.doc, "definitions");
  const bool verdicts_inside = !definitions.empty();
  for (const auto& kv : on_file) definitions[kv.key()] = kv.value();

  // As they stood, for the history's transitions: the mirrors, and the verdicts this write may touch.
  // (`definitions` is copied first: the non-const servers_of may add `servers` and move the document's members.)
  json::object before{{"definitions", definitions}};
  before["servers"] = servers_of(std::as_const(snap.doc));
  const util::EpochMs now = m_clock.now_ms();
  Shelf folders = shelf();
  const bool moved = snap.status == LoadStatus::ok && move_bindings_out(snap.doc, folders, now);
  const bool changed = mutate(snap.doc);
  if (!changed && !moved && !verdicts_inside) return Update{};
  prune_mirrors(snap.doc, now);

  Update done;
  if (snap.status == LoadStatus::corrupt) {
    fs::path aside = m_path.string() + ".corrupt-" + std::to_string(m_clock.now_ms());
    if (std::rename(m_path.c_str(), aside.c_str()) != 0) {
      return refuse(UpdateFailure::failed, "cannot move corrupt " + m_path.string() + " aside: " + std::strerror(errno));
    }
    done.moved_aside = aside;
  }
  // Each verdict that changed, in its file; each removed, its file gone. Before the state file: its `servers`
  // mirrors them.
  json::object after = std::move(object_at(snap.doc, "definitions"));
  snap.doc.erase("definitions");
  for (const auto& kv : after) {
    if (!kv.value().is_object()) continue;
    const json::value* was = on_file.if_contains(kv.key());
    if (was != nullptr && util::same_json(*was, kv.value())) continue;
    if (auto written = verdict_files.put(kv.key(), kv.value().get_object(), now); !written) {
      return refuse(UpdateFailure::failed, "cannot write the verdict of " + std::string(kv.key()) + ": " +
                                               written.error().message);
    }
  }
  for (const auto& kv : on_file) {
    if (!after.contains(kv.key())) verdict_files.remove(kv.key());
  }
  snap.doc["version"] = k_state_version;
  const std::string text = util::pretty_json(snap.doc);
  // Never write what cannot be read back: every later command would refuse the file.
  if (text.size() > util::k_max_read_bytes) {
    return refuse(UpdateFailure::failed, "the state would grow to " + std::to_string(text.size()) +
                                             " bytes, more than is read back; not writing " + m_path.string());
  }
  if (auto written = util::atomic_replace(m_path, text); !written) {
    return refuse(UpdateFailure::failed, "cannot write state file: " + written.error().message);
  }
  done.written = true;
  // Best effort: the verdict is written; a history that cannot be is said by the commands that read it (doctor).
  snap.doc["definitions"] = std::move(after);
  (void)append_history(transitions(before, snap.doc, m_clock.now_ms()));
  return done;
}

std::optional<std::string> StateStore::append_history(const std::vector<HistoryEvent>& events) {
  return state::append_history(m_path, events);
}

} // namespace mcphealth::state
