#include <mcphealth/ops/status.hpp>

#include <mcphealth/config/names.hpp>

#include <mcphealth/agent/agent.hpp>

#include <mcphealth/config/policy.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/gate/decide.hpp>
#include <mcphealth/ops/hints.hpp>
#include <mcphealth/state/verdicts.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <set>
#include <tuple>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace mcphealth::ops {

namespace json = boost::json;
namespace fs = std::filesystem;

util::Result<void> check_writable(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (::access(path.c_str(), W_OK) != 0) return util::fail(path.string() + " is not writable (" + std::strerror(errno) + ")");
  }
  // The writer creates a temp file next to the state file: the folder must be writable, or creatable.
  fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  for (;;) {
    if (::stat(dir.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return util::fail(dir.string() + " is not a folder, so " + path.string() + " cannot be written");
      if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        return util::fail("folder " + dir.string() + " is not writable (" + std::strerror(errno) + ")");
      }
      return util::ok();
    }
    if (errno == ENOTDIR) {
      // Some ancestor is a file; find it for a useful message.
      fs::path up = dir;
      while (up.has_parent_path() && up.parent_path() != up) {
        up = up.parent_path();
        if (::stat(up.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
          return util::fail(up.string() + " is not a folder, so " + path.string() + " cannot be written");
        }
      }
      return util::fail(path.string() + " cannot be written (a path component is not a folder)");
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) return util::ok();
    dir = dir.parent_path();
  }
}

std::vector<std::string> state_warnings(const fs::path& state_path, const state::StateSnapshot& snapshot,
                                        const config::Settings& settings) {
  std::vector<std::string> out;
  for (const auto& w : settings.warnings) out.push_back(w.text());
  if (settings.fail_open.value) {
    out.push_back("fail-open is on (" + settings.fail_open.origin.name +
                  "): servers known to be down are NOT blocked");
  }
  if (state::is_cache_off(state_path)) {
    out.push_back("the cache is off (the state path is the null device): every call is checked anew, nothing is remembered");
  } else if (auto writable = check_writable(state_path); !writable) {
    out.push_back("the state file cannot be written: " + writable.error().message + "; hooks keep deciding but cache nothing");
  }
  switch (snapshot.status) {
  case state::LoadStatus::corrupt:
    out.push_back(state_path.string() + " is not a valid state file (" + snapshot.error +
                  "); the next write moves it aside");
    break;
  case state::LoadStatus::newer_version:
    out.push_back(state_path.string() + " has version " + std::to_string(snapshot.version) +
                  ", newer than this mcphealth writes (" + std::to_string(state::k_state_version) +
                  "); it is read but never overwritten");
    break;
  case state::LoadStatus::unreadable:
    out.push_back("cannot read " + state_path.string() + ": " + snapshot.error);
    break;
  default: break;
  }
  std::error_code ec;
  const fs::path dir = state_path.has_parent_path() ? state_path.parent_path() : fs::path(".");
  const std::string prefix = state_path.filename().string() + ".corrupt-";
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    if (item.path().filename().string().rfind(prefix, 0) == 0) {
      out.push_back("a corrupt state file was moved aside to " + item.path().string() +
                    " (look at it, then delete it)");
    }
  }
  return out;
}

namespace {

/// The hint for a cached row, in the words of the first agent that starts it (Claude Code's when none is known).
std::string hint_of(const StatusRow& row) {
  const agent::Agent* who = row.agents.empty() ? nullptr : agent::find_agent(row.agents.front());
  return hint_for_entry(row.raw, row.entry, row.health, who);
}

/// A row's server's settings, as gate::cache_rules asks for them.
class RowRuleSettings final : public gate::RuleSettings {
public:
  RowRuleSettings(RowSettings& all, const std::string& server, const std::optional<std::string>& project)
      : m_all(all), m_server(server), m_project(project) {}
  const config::Settings& environment() override { return m_all.environment(); }
  const config::Settings& server() override { return m_all.of(m_server, m_project); }
  gate::Refresh refresh() override { return gate::Refresh::background; }

private:
  RowSettings& m_all;
  const std::string& m_server;
  const std::optional<std::string>& m_project;
};

StatusRow cached_row(std::string name, const json::object& raw, RowSettings& settings, util::EpochMs now) {
  StatusRow row;
  row.name = std::move(name);
  row.cached = true;
  row.raw = raw;
  row.entry = state::ServerEntry::from_json(raw);
  row.health = state::health_of(row.entry, raw);
  row.definition = state::definition_of(raw);
  const state::VerdictLabel label = state::label_of(raw);
  row.scope = label.scope;
  row.project = label.project;
  const state::ProbeDetails notes = state::probe_details(raw).value_or(state::ProbeDetails{});
  row.why = util::last_meaningful_line(row.entry.last_error.value_or(""));
  if (notes.exit_status && row.down()) row.why = "exit " + *notes.exit_status + ": " + row.why;
  row.why = with_pattern(row.entry, row.why);
  if (row.entry.checked_at) row.age_ms = now - *row.entry.checked_at;
  // A name with nothing but a tool's upstream error noted (state::note_failed_call): no verdict, so no row to show
  // or count; it goes with its TTL like any name seen once.
  if (!row.definition && row.entry.status.empty() && !row.entry.checked_at && row.entry.last_failed_call_at) {
    row.superseded = true;
    row.age_ms = now - *row.entry.last_failed_call_at;
  }
  if (row.down() && row.entry.down_since && *row.entry.down_since <= now) row.down_for_ms = now - *row.entry.down_since;
  // The rules the hook holds this entry to (gate::cache_rules), so status says what the next call meets.
  const std::string server = config::tool_server_name(label.tool_server.value_or(row.name));
  RowRuleSettings own(settings, server, row.project);
  const gate::CacheRules rules = gate::cache_rules(&row.entry, own);
  const state::Outlook o = gate::outlook_under(row.entry, now, rules);
  if (row.entry.healthy() && row.entry.expires_at) row.fresh_ms = o.fresh_until ? *o.fresh_until - now : 0;
  if (row.entry.unhealthy() && row.entry.next_retry_at) {
    row.retry_in_ms = *o.retry_at - now;
    const config::Settings& s = own.server();
    row.breaker = state::breaker_of(row.entry);
    // A crash loop's trial calls double to its own cap; an upstream outage's and a plain one's to the look cap.
    const std::int64_t cap = row.breaker == state::Breaker::crash_loop ? config::crash_loop_cap_ms(s) : s.max_backoff_ms.value;
    row.pinned_at_cap = row.entry.failure_count > 1 &&
                        state::backoff_delay_ms(std::max(row.entry.failure_count, row.entry.failed_calls - 1),
                                                s.backoff_ms.value, cap) >= cap;
    row.backoff_cap_ms = cap;
  }
  return row;
}

std::string where(const StatusRow& row) {
  if (!row.scope) return row.name;
  return row.name + " (" + *row.scope + (row.project ? " " + *row.project : std::string()) + ")";
}

} // namespace

std::vector<NotStarted> not_started_in(const config::Resolution& resolution, const agent::Agent& agent) {
  std::vector<NotStarted> out;
  for (const config::Candidate& c : resolution.candidates) {
    if (c.wins() || c.standing == config::Standing::shadowed || resolution.winner(c.tool_server) != nullptr) continue;
    if (std::any_of(out.begin(), out.end(), [&](const NotStarted& n) { return n.name == c.tool_server; })) continue;
    out.push_back({c.tool_server, "'" + c.definition.name + "' is defined in " + c.definition.source.string() + " (" +
                                      std::string(config::scope_name(c.scope)) + "), but " + std::string(agent.name) +
                                      " does not start it here: " + (c.reason.empty() ? std::string(config::standing_name(c.standing)) : c.reason) +
                                      " (mcphealth explain-config --agent " + std::string(agent.id) + " shows more)"});
  }
  return out;
}

std::optional<std::string> why_not_started(const std::vector<NotStarted>& not_started, const std::string& name) {
  const std::string tool_name = config::tool_server_name(name);
  for (const NotStarted& n : not_started) {
    if (n.name == tool_name) return n.words;
  }
  return std::nullopt;
}

Bound read_bound(const std::filesystem::path& state_path, const util::Environment& env) {
  Bound out;
  agent::FolderScope& scope = out.scope;
  auto stored = std::make_shared<std::map<std::string, state::FolderBindings>>();
  std::set<std::string> seen;
  state::bindings_shelf(state_path).each([&](const std::string& key, const json::object& f) {
    scope.bound_folders.push_back(key);
    std::optional<state::FolderBindings> b = state::FolderBindings::from_json(f);
    if (!b) return;
    for (const auto& kv : b->names) {
      if (const auto binding = b->find(kv.key()); binding && binding->definition && seen.insert(*binding->definition).second)
        out.definitions.push_back(*binding->definition);
    }
    stored->emplace(key, std::move(*b));
  });
  std::sort(scope.bound_folders.begin(), scope.bound_folders.end());
  std::sort(out.definitions.begin(), out.definitions.end());
  scope.still_binds = [stored, &env](const std::string& key) -> std::optional<std::vector<std::string>> {
    const auto it = stored->find(key);
    if (it == stored->end()) return std::nullopt;
    const state::FolderBindings& b = it->second;
    const std::vector<std::filesystem::path> files(b.files.begin(), b.files.end());
    if (config::resolution_stamp(files, b.variables, env, util::disk()) != b.stamp) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& kv : b.names) {
      if (const auto binding = b.find(kv.key()); binding && binding->definition) out.push_back(*binding->definition);
    }
    return out;
  };
  return out;
}

Configured configured_everywhere(const config::DiscoveryInputs& base, const util::Environment& env,
                                 const config::Settings& settings, const agent::FolderScope& scope) {
  Configured all;
  std::vector<ConfiguredServer>& out = all.servers;
  const config::Policy policy = config::load_policy(settings.policy_path, env, util::disk(), std::nullopt);
  const auto add = [&](const config::Resolution& res, const agent::Agent& who, bool here) {
    for (const config::FileReport& f : res.files) {
      if (f.status != config::FileReport::Status::parse_error && f.status != config::FileReport::Status::unreadable) continue;
      const bool parse = f.status == config::FileReport::Status::parse_error;
      std::string problem = f.source.file.string() + (parse ? " does not parse" : " cannot be read") +
                            util::at_line(f.line, f.column) + (f.error.empty() ? "" : ": " + f.error);
      if (std::find(all.problems.begin(), all.problems.end(), problem) == all.problems.end()) all.problems.push_back(std::move(problem));
    }
    for (const auto* c : res.winners()) {
      auto it = std::find_if(out.begin(), out.end(), [&](const ConfiguredServer& s) { return s.fingerprint == c->fingerprint; });
      if (it == out.end()) {
        const bool skipped = config::settings_for(settings, policy, *c).probe.value == config::ProbeMode::skip;
        out.push_back({c->tool_server, c->definition.source.string(), c->fingerprint, std::string(config::scope_name(c->scope)),
                       c->project, skipped});
        it = std::prev(out.end());
        it->shape = c->shape;
      }
      if (std::find(it->agents.begin(), it->agents.end(), who.id) == it->agents.end()) it->agents.emplace_back(who.id);
      it->here = it->here || here;
    }
  };
  for (const agent::AgentFolder& f : agent::folders_in_use(base, env, scope)) {
    add(f.resolution, *f.agent, f.here);
    if (!f.here) continue;
    for (NotStarted& n : not_started_in(f.resolution, *f.agent)) {
      if (!why_not_started(all.not_started, n.name)) all.not_started.push_back(std::move(n));
    }
  }
  // A name one agent starts here is not "not started" because another agent does not.
  std::erase_if(all.not_started, [&](const NotStarted& n) {
    return std::any_of(out.begin(), out.end(), [&](const ConfiguredServer& c) { return c.name == n.name && c.here; });
  });
  return all;
}

const config::Settings& RowSettings::of(const std::string& server, const std::optional<std::string>& project) {
  auto it = m_of.find({server, project});
  if (it != m_of.end()) return it->second;
  if (!m_policy) m_policy = config::load_policy(m_environment.policy_path, m_env, util::disk(), std::nullopt);
  const std::optional<std::filesystem::path> folder = project ? std::optional<std::filesystem::path>(*project) : std::nullopt;
  return m_of.emplace(std::pair{server, project}, config::settings_for(m_environment, *m_policy, server, folder)).first->second;
}

StatusReport build_status(const state::StateSnapshot& snapshot, const std::optional<Configured>& configured,
                          RowSettings& settings, util::EpochMs now, const std::vector<std::string>& bound) {
  StatusReport report;
  // A config that cannot be read hides what is configured: one line for it, and no server called gone for it.
  const bool known_whole = !configured || configured->problems.empty();
  if (configured) {
    report.not_started = configured->not_started;
    for (const auto& p : configured->problems) {
      report.warnings.push_back(p + " (until it is fixed, status cannot tell which cached servers are still configured)");
    }
  }
  for (const auto& kv : state::verdicts(snapshot.doc)) {
    if (!kv.value().is_object()) continue;
    const json::object& raw = kv.value().get_object();
    StatusRow row = cached_row(state::verdict_tool_server(raw).value_or(std::string(kv.key())), raw, settings, now);
    row.definition = std::string(kv.key());
    report.rows.push_back(std::move(row));
  }
  for (const auto& kv : snapshot.servers()) {
    // An entry that names a definition mirrors that definition's verdict (for the JS hook): already a row.
    if (!kv.value().is_object() || state::definition_of(kv.value().get_object())) continue;
    report.rows.push_back(cached_row(std::string(kv.key()), kv.value().get_object(), settings, now));
  }
  if (configured) {
    const auto same = [](const StatusRow& row, const ConfiguredServer& c) {
      return row.definition ? *row.definition == c.fingerprint : row.name == c.name;
    };
    for (auto& row : report.rows) {
      row.configured = false;
      for (const auto& c : configured->servers) {
        if (!same(row, c)) continue;
        row.configured = true;
        row.config_source = c.source;
        row.agents = c.agents;
        row.here = c.here;
        if (!row.scope) row.scope = c.scope;
        if (!row.project) row.project = c.project;
        if (c.probe_skipped && !row.entry.unhealthy()) row.health = state::Health::skipped;
      }
    }
    const auto bound_to = [&](const std::optional<std::string>& fp) {
      return fp && std::find(bound.begin(), bound.end(), *fp) != bound.end();
    };
    for (const auto& c : configured->servers) {
      const bool cached = std::any_of(report.rows.begin(), report.rows.end(), [&](const StatusRow& r) {
        return r.cached && (r.definition == c.fingerprint || (!r.definition && r.name == c.name));
      });
      if (cached) continue;
      // This environment builds another definition of a server whose agent-bound one has its verdict (a watch or
      // cron with another token than the agent's): the same server seen from elsewhere, not one never checked. The
      // bound verdict stands for it.
      if (!bound_to(c.fingerprint)) {
        const auto agents_own = std::find_if(report.rows.begin(), report.rows.end(), [&](const StatusRow& r) {
          return r.cached && r.name == c.name && r.scope == std::optional<std::string>(c.scope) &&
                 r.project == c.project && bound_to(r.definition);
        });
        if (agents_own != report.rows.end()) {
          agents_own->configured = true;
          continue;
        }
      }
      StatusRow row{};
      row.name = c.name;
      row.health = c.probe_skipped ? state::Health::skipped : state::Health::unknown;
      row.configured = true;
      row.config_source = c.source;
      row.agents = c.agents;
      row.here = c.here;
      row.definition = c.fingerprint;
      row.scope = c.scope;
      row.project = c.project;
      report.rows.push_back(std::move(row));
    }
  }
  if (!known_whole) {
    for (auto& row : report.rows) {
      if (row.configured == false) row.configured.reset(); // not known: a config could not be read
    }
  }
  // Superseded: a verdict nothing points at any more. Without bindings at all (a state file the JS hook wrote) or
  // without configs (the status line) the file alone cannot tell, unless some folder is bound.
  if (known_whole && (configured || !bound.empty())) {
    for (auto& row : report.rows) {
      if (!row.cached || !row.definition || row.configured == true) continue;
      row.superseded = std::find(bound.begin(), bound.end(), *row.definition) == bound.end();
    }
  }
  // Retired: a definition no agent starts now, whose name and scope another definition that answers has taken
  // (a token rotated, a project folder moved). Folders whose sessions ran before may still be bound to it, so it
  // would stay red for good: it is superseded, not shown, not counted, and reset --stale removes it.
  if (known_whole && configured) {
    for (auto& row : report.rows) {
      if (!row.cached || !row.definition || row.configured != false || row.superseded) continue;
      const auto answers_in_its_place = [&](const StatusRow& other) {
        return &other != &row && other.cached && other.configured == true && other.name == row.name &&
               other.scope == row.scope && other.entry.healthy();
      };
      const auto it = std::find_if(report.rows.begin(), report.rows.end(), answers_in_its_place);
      if (it == report.rows.end()) continue;
      row.superseded = true;
      if (row.project && it->project && *row.project != *it->project) {
        row.retired_because = "folder moved to " + *it->project;
        continue;
      }
      const auto live = std::find_if(configured->servers.begin(), configured->servers.end(),
                                     [&](const ConfiguredServer& c) { return it->definition == c.fingerprint; });
      const std::string how = live == configured->servers.end()
                                  ? std::string()
                                  : config::shape_difference(state::shape_of(row.raw), live->shape);
      row.retired_because = how.empty() ? "replaced by a definition that answers" : how;
    }
  }
  std::stable_sort(report.rows.begin(), report.rows.end(), [](const StatusRow& a, const StatusRow& b) {
    return std::tie(a.name, a.superseded, a.project) < std::tie(b.name, b.superseded, b.project);
  });
  for (const auto& row : report.rows) {
    if (row.pinned_at_cap) {
      report.notes.push_back(row.name + " is pinned at the backoff cap (" +
                                util::format_duration_short(row.backoff_cap_ms) + ", " +
                                std::to_string(row.entry.failure_count) +
                                " failures): if it has recovered, `mcphealth reset " + row.name +
                                "` or `mcphealth probe " + row.name + "` clears it now");
    }
    if (row.cached && row.configured == false && !row.superseded && known_whole) {
      report.warnings.push_back(row.definition ? where(row) + " is in the cache for a definition that no folder Claude Code knows uses any more "
                                                              "(`mcphealth reset " + row.name + "` removes it)"
                                               : row.name + " is in the cache but no config file defines it (a failed call's name, "
                                                            "or a claude.ai connector): not counted; `mcphealth reset " +
                                                     row.name + "` removes it");
    }
  }
  for (auto& row : report.rows) {
    if (row.cached) row.hint = hint_of(row);
  }
  return report;
}

void keep_bound_in(StatusReport& report, const std::optional<state::FolderBindings>& here) {
  if (!here) return;
  const auto not_here = [&](const StatusRow& r) {
    // A name the folder binds to no definition (a failed call's, a connector's) is not one of its servers.
    const std::optional<state::Binding> b = here->find(r.name);
    return !b || !b->definition || (r.definition && b->definition != r.definition);
  };
  report.rows.erase(std::remove_if(report.rows.begin(), report.rows.end(), not_here), report.rows.end());
}

std::string status_line(const StatusReport& report) {
  int up = 0, auth = 0, silent = 0, down = 0, unknown = 0;
  std::string names;
  for (const auto& row : report.rows) {
    if (row.superseded) continue;
    if (row.health == state::Health::healthy || row.health == state::Health::reachable) ++up;
    else if (row.health == state::Health::needs_auth) ++auth;
    else if (row.health == state::Health::alive_silent) ++silent;
    else if (row.down()) {
      ++down;
      names += " " + row.name;
    } else if (row.health == state::Health::unknown) {
      ++unknown;
    }
  }
  // Nothing checked yet is not "all fine": `mcp 0✔` read as no server down when none had been looked at.
  if (up + auth + silent + down == 0) return unknown > 0 ? "mcp " + std::to_string(unknown) + "?" : "mcp ?";
  std::string line = "mcp " + std::to_string(up) + "✔";
  if (auth > 0) line += " " + std::to_string(auth) + "!";
  if (silent > 0) line += " " + std::to_string(silent) + "~";
  if (down > 0) line += " " + std::to_string(down) + "✘" + names;
  if (unknown > 0) line += " " + std::to_string(unknown) + "?";
  return line;
}

std::string project_word(const std::string& project) {
  const std::filesystem::path folder(project);
  return folder.filename().empty() ? folder.parent_path().filename().string() : folder.filename().string();
}

std::string display_name(const StatusRow& row, const std::vector<StatusRow>& rows) {
  const auto shares = [&](const StatusRow& other) {
    return &other != &row && other.name == row.name && other.definition != row.definition;
  };
  if (std::none_of(rows.begin(), rows.end(), shares)) return row.name;
  if (!row.retired_because.empty()) return row.name + " (retired: " + row.retired_because + ")";
  if (row.project) {
    if (const std::string last = project_word(*row.project); !last.empty()) return row.name + " (" + last + ")";
  }
  return row.scope ? row.name + " (" + *row.scope + ")" : row.name;
}

util::Result<void> select_rows(StatusReport& report, const RowSelection& selection) {
  if (!selection.superseded) {
    report.rows.erase(std::remove_if(report.rows.begin(), report.rows.end(), [](const StatusRow& r) { return r.superseded; }),
                      report.rows.end());
  }
  if (!selection.servers.empty()) {
    std::vector<StatusRow> chosen;
    for (const auto& name : selection.servers) {
      // The definition an agent uses in this folder when there is one (what the hook decides by), else every
      // definition of that name.
      const auto named = [&](const StatusRow& r) { return r.name == name; };
      const bool one_here = std::any_of(report.rows.begin(), report.rows.end(), [&](const StatusRow& r) { return named(r) && r.here; });
      const std::size_t before = chosen.size();
      for (const StatusRow& r : report.rows) {
        if (named(r) && (r.here || !one_here)) chosen.push_back(r);
      }
      if (chosen.size() == before) {
        if (auto why = why_not_started(report.not_started, name)) return util::fail(*why);
        std::vector<std::string> names;
        for (const auto& r : report.rows) names.push_back(r.name);
        return util::fail(util::unknown_name("server", name, std::move(names)));
      }
    }
    report.rows = std::move(chosen);
    // Per-server warnings only for the servers asked about.
    std::vector<std::string> kept;
    for (const auto& w : report.warnings) {
      if (std::any_of(report.rows.begin(), report.rows.end(), [&](const auto& row) { return w.rfind(row.name + " ", 0) == 0; })) {
        kept.push_back(w);
      }
    }
    report.warnings = std::move(kept);
  }
  if (selection.only == RowSelection::Only::down) {
    report.rows.erase(std::remove_if(report.rows.begin(), report.rows.end(), [](const auto& r) { return !r.down(); }),
                      report.rows.end());
  }
  if (selection.here) {
    report.rows.erase(std::remove_if(report.rows.begin(), report.rows.end(), [](const auto& r) { return !r.here; }),
                      report.rows.end());
  }
  if (selection.agent) {
    const auto not_its = [&](const StatusRow& r) {
      return std::find(r.agents.begin(), r.agents.end(), *selection.agent) == r.agents.end();
    };
    report.rows.erase(std::remove_if(report.rows.begin(), report.rows.end(), not_its), report.rows.end());
  }
  return {};
}

} // namespace mcphealth::ops
