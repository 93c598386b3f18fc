#pragma once
// Fakes for the core's seams: a clock that moves only when told, a scripted prober and command runner, and a
// temporary folder per test.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/http/client.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/files.hpp>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mcphealth::testing {

/// URL resolution for fake HTTP clients: libcurl's own, the real part (the fakes stand in for the network only).
inline std::optional<std::string> resolve_with_libcurl(const std::string& base, const std::string& reference) {
  const auto curl = http::curl_client();
  return curl ? (*curl)->resolve_reference(base, reference) : std::nullopt;
}

class FakeClock final : public util::Clock {
public:
  explicit FakeClock(util::EpochMs start = 1'800'000'000'000) : m_now(start) {}
  util::EpochMs now_ms() const override { return m_now; }
  void sleep_ms(std::int64_t ms) override { m_now += ms; }
  void advance(std::int64_t ms) { m_now += ms; }

private:
  util::EpochMs m_now;
};

/// Returns the queued results in order (the last one repeats) and counts calls; with nothing queued, `not_probed`.
class FakeProber final : public probe::Prober {
public:
  std::deque<probe::ProbeResult> results;
  int calls = 0;
  /// The spec of each probe asked for.
  std::vector<probe::ProbeSpec> specs;
  probe::ProbeResult probe(const config::ResolvedServer&, const probe::ProbeSpec& spec) override {
    ++calls;
    specs.push_back(spec);
    if (results.empty()) {
      probe::ProbeResult none;
      none.kind = probe::Kind::not_probed;
      none.reason = "no result queued in the test";
      return none;
    }
    probe::ProbeResult r = results.front();
    if (results.size() > 1) results.pop_front();
    return r;
  }
  static probe::ProbeResult healthy() {
    probe::ProbeResult r;
    r.ok = true;
    r.kind = probe::Kind::answered;
    return r;
  }
  static probe::ProbeResult down(std::string reason, state::FailureCode code = {}) {
    probe::ProbeResult r;
    r.kind = probe::Kind::exited;
    r.reason = std::move(reason);
    r.code = code;
    return r;
  }
};

/// Records the commands it is asked to run (and for which server) and answers with `result`.
class FakeRunner final : public recover::CommandRunner {
public:
  std::vector<std::string> commands;
  std::vector<std::string> servers;
  proc::CommandResult result = ok();
  /// What each shell command was given on stdin.
  std::vector<std::string> inputs;
  proc::CommandResult run_shell(const std::string& command, std::string_view server, std::int64_t,
                                std::string_view input = {}) override {
    commands.push_back(command);
    servers.emplace_back(server);
    inputs.emplace_back(input);
    return result;
  }
  /// Records an argv as its words joined by `|`.
  proc::CommandResult run_argv(const std::vector<std::string>& argv, std::string_view server, std::int64_t) override {
    std::string joined;
    for (const auto& word : argv) joined += (joined.empty() ? "" : "|") + word;
    commands.push_back(joined);
    servers.emplace_back(server);
    return result;
  }
  static proc::CommandResult ok() {
    proc::CommandResult r;
    r.status = proc::CommandResult::Status::exited;
    r.exit.code = 0;
    return r;
  }
  static proc::CommandResult failing(std::string err) {
    proc::CommandResult r = ok();
    r.exit.code = 1;
    r.err = std::move(err);
    return r;
  }
};

/// The state in memory, behind the store interface the gate's executor writes through: no file, no lock file.
/// Counts what it is asked, so a test can say "a cache hit writes nothing".
class MemoryStore final : public state::Store {
public:
  boost::json::object doc = boost::json::parse(R"({"version":1,"servers":{}})").as_object();
  int reads = 0;
  int updates = 0;
  int probe_locks = 0;
  /// When set, every update fails with this (a lock that is never free, a full disk).
  std::optional<state::UpdateError> failing;

  const std::filesystem::path& path() const override { return m_path; }
  state::StateSnapshot read() const override {
    ++const_cast<MemoryStore*>(this)->reads;
    state::StateSnapshot snap;
    snap.status = state::LoadStatus::ok;
    snap.doc = doc;
    return snap;
  }
  state::UpdateResult update(const Mutator& mutate, std::int64_t, const state::Touches&) override {
    ++updates;
    if (failing) return util::fail(*failing);
    boost::json::object next = doc;
    if (!mutate(next)) return state::Update{};
    doc = std::move(next);
    return state::Update{true, std::nullopt};
  }
  util::Result<util::RecordLock, util::LockError> lock_probe(std::string_view, std::int64_t) override {
    ++probe_locks;
    return util::RecordLock{};
  }
  /// Each folder's bindings, as a shelf would hold them.
  std::map<std::string, boost::json::object, std::less<>> folders;
  int binds = 0;
  std::optional<state::FolderBindings> bindings(std::string_view folder) const override {
    const auto it = folders.find(folder);
    return it == folders.end() ? std::nullopt : state::FolderBindings::from_json(it->second);
  }
  util::Result<void> bind(std::string_view folder, const state::FolderBind& bind, util::EpochMs now) override {
    ++binds;
    state::bind_folder(folders[std::string(folder)], bind, now);
    return util::ok();
  }
  /// The entry of `server` (from its verdict when the folder bound one), or nothing.
  const boost::json::object* server(std::string_view name) const {
    const auto& servers = state::servers_of(doc);
    const auto* e = servers.if_contains(name);
    return e && e->is_object() ? &e->as_object() : nullptr;
  }

private:
  std::filesystem::path m_path = "/memory/state.json";
};

/// Files in memory: a path not given is missing. Every read and stat is kept, so a test can say which were looked at.
/// A program is executable when it is in `programs`; a path is its own real path unless `links` says otherwise.
class MemoryDisk final : public util::FileReader {
public:
  std::map<std::filesystem::path, std::string> files;
  std::set<std::filesystem::path> programs;
  std::map<std::filesystem::path, std::filesystem::path> links;

  /// Puts `text` at `path`, modified later than anything written before it.
  void write(const std::filesystem::path& path, std::string text) {
    files[path] = std::move(text);
    m_modified[path] = ++m_writes;
  }
  std::vector<std::filesystem::path> read_paths;
  std::vector<std::filesystem::path> stat_paths;

  util::Result<std::string, util::ReadError> read(const std::filesystem::path& path, std::size_t) override {
    read_paths.push_back(path);
    if (auto it = files.find(path); it != files.end()) return it->second;
    return util::fail(util::ReadError{util::ReadFailure::missing, path.string() + ": not found"});
  }
  std::optional<util::FileStamp> stat(const std::filesystem::path& path) override {
    stat_paths.push_back(path);
    if (auto it = files.find(path); it != files.end()) {
      const auto modified = m_modified.find(path);
      return util::FileStamp{static_cast<std::int64_t>(it->second.size()),
                             modified == m_modified.end() ? 0 : modified->second, true};
    }
    return std::nullopt;
  }
  bool executable(const std::filesystem::path& path) override { return programs.contains(path); }
  std::filesystem::path real_path(const std::filesystem::path& path) override {
    const auto it = links.find(path);
    return it == links.end() ? path : it->second;
  }

private:
  std::map<std::filesystem::path, std::int64_t> m_modified;
  std::int64_t m_writes = 0;
};

/// A state snapshot made from JSON text, as load_state would give it.
inline state::StateSnapshot snapshot(const char* raw) {
  state::StateSnapshot s;
  s.status = state::LoadStatus::ok;
  s.doc = boost::json::parse(raw).as_object();
  return s;
}

/// A fresh folder under the system temp dir, removed with its contents at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "mcphealth-test-XXXXXX").string();
    m_path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

/// A payload as the hook reads it (parsed, or from its text when it does not parse), without a limit to hit.
inline hook::HookInput payload_input(const std::string& text) {
  hook::HookInput in;
  in.raw = text;
  in.limit = 1 << 20;
  hook::parse_payload(in);
  return in;
}

/// Payloads read by an agent's dialect, each kept alive as long as this is: a HookCall points into its input.
class Payloads {
public:
  explicit Payloads(const agent::Agent& agent) : m_agent(agent) {}
  /// `text` read as the dialect reads it.
  hook::HookCall read(const std::string& text, std::optional<std::string> flag = std::nullopt,
                      const util::Environment& env = util::MapEnvironment{}) {
    m_inputs.push_back(std::make_unique<hook::HookInput>(payload_input(text)));
    return m_agent.dialect.read(*m_inputs.back(), flag, env);
  }
  /// The input the last read() read.
  const hook::HookInput& last() const { return *m_inputs.back(); }

private:
  const agent::Agent& m_agent;
  std::vector<std::unique_ptr<hook::HookInput>> m_inputs;
};

/// An entry marked down at `at` by a call that failed with `code`, whose failure recorded `credential_files` (a
/// server that refused the agent's token waits on them), with a `backoff_ms` backoff (cap 8 times it).
inline boost::json::object failed_call(util::EpochMs at, state::FailureCode code,
                                       std::vector<std::string> credential_files = {},
                                       std::int64_t backoff_ms = 30'000) {
  boost::json::object e;
  state::mark_unhealthy(e, {.now = at,
                            .error = "HTTP " + code.text(),
                            .code = code,
                            .backoff_ms = backoff_ms,
                            .max_backoff_ms = 8 * backoff_ms,
                            .failed_calls = 1,
                            .failed_tool = "act",
                            .credential_files = std::move(credential_files)});
  return e;
}

} // namespace mcphealth::testing
