#include <mcphealth/ops/install.hpp>

#include <mcphealth/platform/platform.hpp>

#include <mcphealth/agent/hook_file.hpp>
#include <mcphealth/config/server.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/json_edit.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <functional>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::ops {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

/// True for a command whose program is named `mcphealth` (any folder) and whose first argument is `subcommand`.
bool runs_mcphealth(const std::string& command, std::string_view subcommand) {
  const std::vector<std::string> w = util::shell_words(command);
  return w.size() >= 2 && fs::path(w[0]).filename() == "mcphealth" && w[1] == subcommand;
}

bool is_js_hook(const std::string& command) { return command.find("mcp-health-check") != std::string::npos; }

/// The binary as the first word of a command Claude Code runs with the shell: as it is when plain, else in single
/// quotes (a path with a space or a `$` must reach exec unchanged).
std::string command_word(const std::string& binary) { return util::shell_word(binary); }

std::string statusline_command(const std::string& binary) { return command_word(binary) + " status --statusline"; }

/// The file as read (its bytes kept as `plan.before`) and parsed: an empty object when it is missing or blank.
util::Result<json::object> load(const fs::path& file, InstallPlan& plan, util::JsonComments comments) {
  plan.file = file;
  const auto read = util::read_file(file);
  if (!read && read.error().is(util::ReadFailure::missing)) return json::object{};
  if (!read) return util::fail(file.string() + " cannot be read: " + read.error().message);
  plan.before = *read;
  if (util::trim(*read).empty()) return json::object{};
  util::JsonParse parsed = util::parse_json(*read, comments);
  if (!parsed) {
    return util::fail(file.string() + " does not parse (" + parsed.error().text() + "); fix it first, nothing was changed");
  }
  if (!parsed->is_object()) return util::fail(file.string() + " is not a JSON object; nothing was changed");
  return std::move(parsed->get_object());
}

/// `root.hooks`, created when missing; nothing when it is there but not an object.
json::object* hooks_of(json::object& root, bool create) {
  auto it = root.find("hooks");
  if (it == root.end()) {
    if (!create) return nullptr;
    return &root["hooks"].emplace_object();
  }
  return it->value().is_object() ? &it->value().get_object() : nullptr;
}

/// Removes the hook entries `drop` selects from every event (as `layout` lists them), then events left empty.
/// Returns what went, as `Event: command`.
std::vector<std::string> remove_hooks(json::object& hooks, agent::Layout layout,
                                      const std::function<bool(const std::string&)>& drop) {
  std::vector<std::string> removed;
  std::vector<std::string> empty_events;
  for (auto& event : hooks) {
    if (!event.value().is_array()) continue;
    for (const std::string& command : agent::remove_hooks(event.value().get_array(), layout, drop)) {
      removed.push_back(std::string(event.key()) + ": " + command);
    }
    if (event.value().get_array().empty()) empty_events.emplace_back(event.key());
  }
  for (const auto& e : empty_events) hooks.erase(e);
  return removed;
}

void finish(InstallPlan& plan, const json::object& root, bool modified) {
  // Unchanged means the same bytes: a file formatted differently is never rewritten for nothing. Changed, only
  // what install changed is written anew (to the entry in a list of the user's hooks), so uninstall gives back
  // the bytes install began from.
  plan.after = modified ? util::rewrite_json(plan.before, root) : plan.before;
}

/// The plan for an agent whose hook is a plugin file of mcphealth's own: written whole (`text`), or removed
/// (nothing). A file there that is not mcphealth's is never touched.
util::Result<InstallPlan> plan_plugin(const fs::path& file, const std::optional<std::string>& text) {
  InstallPlan plan;
  plan.file = file;
  const auto read = util::read_file(file);
  if (!read && !read.error().is(util::ReadFailure::missing)) {
    return util::fail(file.string() + " cannot be read: " + read.error().message);
  }
  const std::optional<std::string> ran = read ? agent::plugin_command(*read) : std::nullopt;
  if (read) {
    plan.before = *read;
    if (!ran) {
      return util::fail(file.string() + " is not mcphealth's plugin (its first line does not name mcphealth's hook); "
                                        "move it away first; nothing was changed");
    }
  }
  if (text) {
    plan.after = *text;
    const std::optional<std::string> runs = agent::plugin_command(*text);
    plan.notes.push_back(!read ? "plugin: added, runs " + runs.value_or("")
                         : *read == *text
                             ? "plugin: already installed"
                             : "plugin: now runs " + runs.value_or("") + " (was " + ran.value_or("") + ")");
  } else if (read) {
    plan.remove = true;
    plan.notes.push_back("plugin: removed (it ran " + ran.value_or("") + ")");
  } else {
    plan.notes.push_back("mcphealth is not registered here");
  }
  return plan;
}

} // namespace

bool is_mcphealth_hook(const std::string& command) { return agent::read_hook_command(command).has_value(); }

util::Result<InstallPlan> plan_install(const InstallRequest& request) {
  InstallPlan plan;
  const agent::Agent& agent = request.agent ? *request.agent : agent::default_agent();
  if (agent::writes_plugin(agent.registration)) {
    if (!request.events.empty()) {
      return util::fail(std::string(agent.name) + "'s hook is one plugin that hands over every event; --events does "
                                                  "not apply there; nothing was changed");
    }
    const std::string command = agent::hook_command(request.binary, agent);
    if (command.find_first_of("\r\n") != std::string::npos || command.find("\xe2\x80\xa8") != std::string::npos ||
        command.find("\xe2\x80\xa9") != std::string::npos) {
      return util::fail("the hook command holds a line break (" + util::escape_control(command) + "): " +
                        std::string(agent.name) + "'s plugin names it on one comment line; install mcphealth "
                        "at a path without one; nothing was changed");
    }
    return plan_plugin(request.file, agent.registration.plugin_text(
                                         {request.binary, "hook", "--agent", std::string(agent.id)}, command));
  }
  auto loaded = load(request.file, plan, agent.registration.comments());
  if (!loaded) return util::fail(loaded.error());
  json::object& root = *loaded;
  bool modified = false;
  // Before `hooks` is taken: adding a member may move the others.
  for (const auto& [key, value] : agent.registration.file_keys()) {
    if (!root.contains(key)) {
      root[key] = value;
      modified = true;
    }
  }
  json::object* hooks = hooks_of(root, true);
  if (hooks == nullptr) return util::fail(request.file.string() + ": \"hooks\" is not an object; nothing was changed");
  const std::vector<agent::EventSpec> specs = agent.registration.events();
  std::vector<std::string> events = request.events;
  if (events.empty()) {
    for (const auto& spec : specs) events.push_back(spec.name);
  }
  const std::string command = agent::hook_command(request.binary, agent);
  const agent::Layout layout = agent.registration.layout();
  for (const std::string& event : events) {
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const agent::EventSpec& e) { return e.name == event; });
    if (spec == specs.end()) {
      return util::fail(event + " is not an event mcphealth registers for " + std::string(agent.name) + "; nothing was changed");
    }
    json::value& slot = (*hooks)[event];
    if (slot.is_null()) slot.emplace_array();
    if (!slot.is_array()) return util::fail(request.file.string() + ": hooks." + event + " is not a list; nothing was changed");
    bool found = false;
    agent::for_each_hook(slot.get_array(), layout, [&](json::object&, json::object& entry) {
      const std::string existing = agent::command_of(entry);
      if (!is_mcphealth_hook(existing)) return;
      found = true;
      if (existing == command) {
        plan.notes.push_back(event + ": already registered");
      } else {
        entry["command"] = command;
        modified = true;
        plan.notes.push_back(event + ": now runs " + command + " (was " + existing + ")");
      }
    });
    if (found) continue;
    json::object group;
    if (layout == agent::Layout::flat) {
      group = agent.registration.hook_entry(command);
      if (!spec->matcher.empty()) group["matcher"] = spec->matcher;
    } else {
      if (!spec->matcher.empty()) group["matcher"] = spec->matcher; // a session event has no tool to match
      group["hooks"] = json::array{agent.registration.hook_entry(command)};
    }
    slot.get_array().push_back(std::move(group));
    modified = true;
    plan.notes.push_back(event + ": added " + command);
  }
  for (const auto& event : *hooks) {
    if (!event.value().is_array()) continue;
    agent::for_each_hook(event.value().get_array(), layout, [&](const json::object&, const json::object& entry) {
      const std::string c = agent::command_of(entry);
      if (is_js_hook(c)) plan.js_hook.push_back(std::string(event.key()) + ": " + c);
    });
  }
  if (request.remove_js_hook && !plan.js_hook.empty()) {
    for (const auto& gone : remove_hooks(*hooks, layout, is_js_hook))
      plan.notes.push_back("removed the JS hook from " + gone);
    modified = true;
  }
  if (request.statusline) {
    const json::value* current = root.if_contains("statusLine");
    if (current == nullptr) {
      root["statusLine"] = json::object{{"type", "command"}, {"command", statusline_command(request.binary)}};
      modified = true;
      plan.notes.push_back("statusLine: set to " + statusline_command(request.binary));
    } else {
      const std::string existing =
          current->is_object() ? util::get_string(current->get_object(), "command").value_or("") : "";
      plan.notes.push_back("statusLine: already set" + (existing.empty() ? "" : " to " + existing) +
                           "; left as it is (mcphealth status --statusline can be part of it)");
    }
  }
  finish(plan, root, modified);
  return plan;
}

util::Result<InstallPlan> plan_uninstall(const fs::path& file, const agent::Agent& agent) {
  if (agent::writes_plugin(agent.registration)) {
    auto plan = plan_plugin(file, std::nullopt);
    if (plan) plan->uninstall = true;
    return plan;
  }
  InstallPlan plan;
  auto loaded = load(file, plan, agent.registration.comments());
  if (!loaded) return util::fail(loaded.error());
  json::object& root = *loaded;
  bool modified = false;
  if (json::object* hooks = hooks_of(root, false)) {
    for (const auto& gone : remove_hooks(*hooks, agent.registration.layout(), is_mcphealth_hook)) {
      plan.notes.push_back("removed " + gone);
    }
    if (!plan.notes.empty()) modified = true;
    if (hooks->empty()) root.erase("hooks");
  }
  if (const json::value* line = root.if_contains("statusLine"); line != nullptr && line->is_object()) {
    if (runs_mcphealth(util::get_string(line->get_object(), "command").value_or(""), "status")) {
      root.erase("statusLine");
      modified = true;
      plan.notes.push_back("removed the statusLine");
    }
  }
  // A file left with nothing but what install added for the agent (Cursor's version) goes back to what it was.
  const auto keys = agent.registration.file_keys();
  if (modified && !root.contains("hooks") && root.size() == keys.size() &&
      std::all_of(keys.begin(), keys.end(), [&](const auto& kv) { return root.contains(kv.first) && root.at(kv.first) == kv.second; })) {
    root.clear();
  }
  if (!modified) plan.notes.push_back("mcphealth is not registered here");
  plan.uninstall = true;
  finish(plan, root, modified);
  // Left with nothing (install made it, or emptied it), the file goes: a missing settings file means the same to
  // every agent, and a `{}` left behind is litter.
  if (modified && root.empty()) {
    plan.remove = true;
    plan.notes.push_back("the file is left empty: removed");
  }
  return plan;
}

namespace {

/// Backups of one file kept: the first (the file as it was before any of mcphealth's changes that are still
/// backed up) and the most recent ones; those between go, so that installs and uninstalls do not pile them up.
constexpr std::size_t k_backups_kept = 5;

/// One backup of a file: its second (`YYYYMMDD-HHMMSS`) and its number within that second (1 without a suffix).
struct Backup {
  std::pair<std::string, int> made;
  fs::path path;
  bool operator<(const Backup& o) const { return made < o.made; }
};

/// The backups of `base` (`<base>.bak-YYYYMMDD-HHMMSS[-N]`), in the order they were made.
std::vector<Backup> backups_of(const std::string& base) {
  const fs::path b(base);
  const std::string prefix = b.filename().string() + ".bak-";
  std::vector<Backup> found;
  std::error_code ec;
  for (fs::directory_iterator it(b.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size()); // YYYYMMDD-HHMMSS, then -N for the second of a second
    if (rest.size() < 15) continue;
    const int n = rest.size() > 16 && rest[15] == '-' ? std::atoi(rest.c_str() + 16) : 1;
    found.push_back({{rest.substr(0, 15), n}, it->path()});
  }
  std::sort(found.begin(), found.end());
  return found;
}

/// Removes the backups of `base` beyond `kept`, oldest after the first; with `kept` 1, all but the newest.
void prune_backups(const std::string& base, std::size_t kept = k_backups_kept) {
  const std::vector<Backup> found = backups_of(base);
  if (found.size() <= kept) return;
  const std::size_t first = kept == 1 ? 0 : 1;
  std::error_code ec;
  for (std::size_t i = first; i + (kept - first) < found.size(); ++i) fs::remove(found[i].path, ec);
}

/// The number the next backup of `base` made in the second `stamp` takes: 1 (no suffix) when that second has none,
/// else one past the highest it has.
int next_backup_number(const std::string& base, const std::string& stamp) {
  int highest = 0;
  for (const Backup& b : backups_of(base)) {
    if (b.made.first == stamp) highest = std::max(highest, b.made.second);
  }
  return highest + 1;
}

/// Where the backups of `file` go: beside it, or in `backup_dir` under its whole path flattened.
std::string backup_base_of(const fs::path& file, const std::optional<fs::path>& backup_dir) {
  if (!backup_dir) return file.string();
  std::string flat = fs::absolute(file).lexically_normal().string();
  std::replace(flat.begin(), flat.end(), '/', '%');
  return (*backup_dir / flat).string();
}

/// The newest backup of `base` that holds no mcphealth entry: the file as it was before the install this uninstall
/// undoes (a backup from before an earlier install and uninstall is older than it).
std::optional<std::string> backup_before_install(const std::string& base) {
  const std::vector<Backup> found = backups_of(base);
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    const auto text = util::read_file(it->path);
    if (text && text->find("mcphealth") == std::string::npos) return *text;
  }
  return std::nullopt;
}

/// An uninstall that would remove the file it empties gives back the file that was there before install instead
/// (`{}`, or a blank file): only a file install created goes. Its backups say which.
void given_back_as_it_was(InstallPlan& plan, const std::optional<fs::path>& backup_dir) {
  if (!plan.remove) return;
  const std::optional<std::string> was = backup_before_install(backup_base_of(plan.file, backup_dir));
  if (!was) return; // no backup without mcphealth in it: install made the file
  const bool blank = util::trim(*was).empty();
  const auto parsed = util::parse_json(*was);
  if (!blank && !(parsed && parsed->is_object() && parsed->get_object().empty())) return;
  plan.remove = false;
  plan.after = *was;
  std::erase(plan.notes, std::string("the file is left empty: removed"));
  plan.notes.push_back("the file is given back as it was before install");
}

} // namespace

fs::path backup_path(const std::string& base, util::EpochMs now_ms) {
  const std::time_t seconds = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  const int n = next_backup_number(base, stamp);
  return base + ".bak-" + stamp + (n > 1 ? "-" + std::to_string(n) : std::string());
}

fs::path backup_folder(const util::Environment& env) {
  if (auto state = env.get("XDG_STATE_HOME"); state && !state->empty()) return fs::path(*state) / "mcphealth" / "backups";
  return util::home_dir(env) / ".local" / "state" / "mcphealth" / "backups";
}

util::Result<std::optional<fs::path>, InstallError> apply_plan(const InstallPlan& plan, std::int64_t now_ms,
                                                               const std::optional<fs::path>& backup_dir) {
  std::optional<fs::path> backup_made;
  std::string backup_base;
  unsigned mode = 0644;
  struct stat st {};
  const bool existed = ::stat(plan.file.c_str(), &st) == 0;
  if (existed) {
    mode = st.st_mode & 07777;
    const std::string base = backup_base_of(plan.file, backup_dir);
    if (backup_dir) {
      std::error_code made;
      fs::create_directories(*backup_dir, made);
      if (made) return util::fail(InstallError{InstallFailure::failed, "cannot create " + backup_dir->string() + ": " + made.message()});
    }
    // Two installs in one second must not share a backup: the second would overwrite the original. Its number is
    // one past the highest of that second's, never a number pruning freed: names sort in the order they were made.
    backup_base = base;
    const fs::path backup = backup_path(base, now_ms);
    if (auto written = util::atomic_replace(backup, plan.before, mode, util::Folders::must_exist); !written) {
      return util::fail(InstallError{InstallFailure::failed, "cannot write the backup " + backup.string() + ": " + written.error().message});
    }
    backup_made = backup;
  }
  // The project's .claude/ may not exist yet; a new folder gets the usual 0755, as Claude Code makes it.
  const fs::path dir = plan.file.has_parent_path() ? plan.file.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return util::fail(InstallError{InstallFailure::failed, "cannot create " + dir.string() + ": " + ec.message()});
  }
  // Claude Code (or an editor) may have written the file since it was read: replacing it now would lose that.
  const auto now = util::read_file(plan.file);
  const std::string current = now ? *now : std::string();
  if (current != plan.before) {
    if (backup_made) fs::remove(*backup_made, ec);
    return util::fail(InstallError{InstallFailure::changed_meanwhile,
                                   "changed by another program while mcphealth edited it; nothing was written"});
  }
  // Nothing written, nothing kept: a refusal (a symlinked settings file, a full disk) leaves no backup behind.
  const auto unbacked = [&] {
    std::error_code ignored;
    if (backup_made) fs::remove(*backup_made, ignored);
  };
  if (plan.remove) {
    if (!fs::remove(plan.file, ec) && ec) {
      unbacked();
      return util::fail(
          InstallError{InstallFailure::failed, "cannot remove " + plan.file.string() + ": " + ec.message()});
    }
  } else if (auto written = util::atomic_replace(plan.file, plan.after, mode, util::Folders::must_exist); !written) {
    unbacked();
    return util::fail(InstallError{InstallFailure::failed, written.error().message});
  }
  // Done: the backups pruned (after, so that a refusal prunes nothing). An uninstall keeps one, the file as it was
  // just before: installs and uninstalls over months do not pile them up.
  if (backup_made) prune_backups(backup_base, plan.uninstall ? 1 : k_backups_kept);
  return backup_made;
}

std::optional<fs::path> registered_binary(std::string_view invoked_as, const util::Environment& env) {
  const std::optional<fs::path> self = this_binary();
  if (!self || invoked_as.empty()) return self;
  fs::path ran;
  if (invoked_as.find('/') != std::string_view::npos) {
    std::error_code ec;
    ran = fs::absolute(fs::path(invoked_as), ec).lexically_normal();
  } else {
    ran = config::find_on_path(std::string(invoked_as), {"PATH=" + env.get("PATH").value_or("")}, {}, util::disk());
  }
  std::error_code ec;
  if (!ran.empty() && fs::equivalent(ran, *self, ec)) return ran;
  return self;
}

std::optional<std::string> versioned_folder(const fs::path& program) {
  const fs::path folder = program.parent_path();
  for (const auto& part : folder) {
    const std::string name = part.string();
    if (name == "Cellar") return "it is inside a Homebrew Cellar";
    if (name == "store" && folder.string().rfind("/nix/store/", 0) == 0) return "it is inside the nix store";
    // A version: digits, a dot, digits (`1.4`, `v1.4.2`, `mcphealth-1.4.2`).
    for (std::size_t i = 0; i + 2 < name.size(); ++i) {
      const bool starts = i == 0 || !std::isdigit(static_cast<unsigned char>(name[i - 1]));
      if (starts && std::isdigit(static_cast<unsigned char>(name[i])) != 0) {
        std::size_t j = i;
        while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])) != 0) ++j;
        if (j + 1 < name.size() && name[j] == '.' && std::isdigit(static_cast<unsigned char>(name[j + 1])) != 0) {
          return "its folder " + name + " is named for a version";
        }
      }
    }
  }
  return std::nullopt;
}

namespace {
std::optional<fs::path>& adopted_front() {
  static std::optional<fs::path> front;
  return front;
}

std::optional<fs::path> running_binary() {
  fs::path self = platform::own_executable();
  return self.empty() ? std::nullopt : std::optional<fs::path>(std::move(self));
}
} // namespace

bool adopt_front(const fs::path& front) {
  std::optional<fs::path> self = running_binary();
  std::error_code ec;
  // Where the platform knows a program's file only from argv[0], a front's execv kept the front's argv[0]: when it
  // names that front, this process is the full binary beside it (checked below like any other).
  if (self && front.is_absolute() && fs::equivalent(*self, front, ec)) {
    platform::set_program_name((front.parent_path() / k_full_binary_from_front).c_str());
    self = running_binary();
  }
  // The front must be there: a name that exists nowhere would be registered in hooks the agent cannot start.
  if (!self || !front.is_absolute() || !fs::is_regular_file(front, ec) ||
      !fs::equivalent(front.parent_path() / k_full_binary_from_front, *self, ec))
    return false;
  adopted_front() = front;
  return true;
}

std::optional<fs::path> this_binary() {
  if (adopted_front()) return adopted_front();
  return running_binary();
}

util::Result<InstallDone> install(const InstallRun& run, const util::Environment& env, util::Clock& clock) {
  const std::filesystem::path& file = run.request.file;
  const agent::Agent& agent = run.request.agent ? *run.request.agent : agent::default_agent();
  const agent::HookTrust* trust = agent.registration.trust();
  const bool uninstall = run.direction == InstallRun::Direction::uninstall;
  InstallDone done;
  // Uninstalling: which trust records are mcphealth's, found while its hooks are still listed; they go once the
  // hooks have. Only records of entries in this file: uninstall takes out nothing else.
  std::vector<std::string> trusted_keys;
  if (uninstall && !run.dry_run && trust) {
    const agent::HookEntries here{file, {}};
    for (const agent::ListedHook& h :
         trust->list(env, run.project, std::nullopt, agent::TrustWritten::no, clock).hooks) {
      if (h.ours && h.trusted() && here.in_file(h)) trusted_keys.push_back(h.key);
    }
  }
  auto make_plan = [&]() -> util::Result<InstallPlan> {
    if (!uninstall) return plan_install(run.request);
    util::Result<InstallPlan> plan = plan_uninstall(file, agent);
    if (plan) given_back_as_it_was(*plan, run.backup_dir);
    return plan;
  };
  util::Result<InstallPlan> planned = make_plan();
  // Another writer of the file (Claude Code itself) between our read and our write: read it again and plan anew.
  constexpr int k_attempts = 5;
  for (int attempt = 1;; ++attempt) {
    if (!planned) return util::fail(planned.error().message);
    if (!planned->changed() || run.dry_run) break;
    auto applied = apply_plan(*planned, clock.now_ms(), run.backup_dir);
    if (applied) {
      done.backup = *applied;
      break;
    }
    if (!applied.error().is(InstallFailure::changed_meanwhile) || attempt == k_attempts) {
      return util::fail(file.string() + ": " + applied.error().message +
                        (attempt == k_attempts ? " (" + std::to_string(k_attempts) + " times; try again)" : ""));
    }
    planned = make_plan();
  }
  done.plan = std::move(*planned);
  if (!uninstall && !run.dry_run && trust && run.ask_trust == agent::TrustWritten::yes) {
    done.trust = trust->list(env, run.project, agent::HookEntries{file, agent::hook_command(run.request.binary, agent)},
                             agent::TrustWritten::yes, clock);
  }
  if (uninstall && done.plan.changed() && !trusted_keys.empty()) {
    done.forget_error = trust->forget(env, trusted_keys, clock);
    if (done.forget_error.empty()) done.trust_forgotten = std::move(trusted_keys);
  }
  return done;
}

} // namespace mcphealth::ops
