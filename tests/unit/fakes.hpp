#pragma once
// Fakes for the core's seams: a clock that moves only when told, a scripted prober and command runner, and a
// temporary folder per test.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/http/client.hpp>
#include <mcphealth/recover/reconnect.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/state/store.hpp>
#include <mcphealth/util/clock.hpp>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
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

} // namespace mcphealth::testing
