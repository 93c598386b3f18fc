// The agent table's shared rules (agent/agents.cpp): which folders count as in use, and which agent a payload is.
#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace mcphealth;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_agents {
namespace {

/// Every (agent id, folder, here) that folders_in_use gives, in its order.
std::vector<std::string> listed(const std::vector<agent::AgentFolder>& folders) {
  std::vector<std::string> out;
  for (const auto& f : folders) {
    out.push_back(std::string(f.agent->id) + " " + f.inputs.project_dir.string() + (f.here ? " here" : " elsewhere"));
  }
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

TEST_CASE("the folders in use: every agent's own, and every folder an agent's hook ran in that is still there",
          "[agents]") {
  testing::MemoryDisk disk;
  disk.files["/mem/b"] = ""; // the folder where Gemini CLI's hook ran, still there
  const util::MapEnvironment env{{"HOME", "/mem/home"}};
  config::DiscoveryInputs base = config::discovery_inputs(env, {}, "/mem/a");
  base.reader = &disk;
  const std::vector<std::string> bound{"/mem/b (gemini)", "/mem/gone (codex)", "/mem/a", "/mem/a (cursor)"};

  const auto all = listed(agent::folders_in_use(base, env, {.bound_folders = bound}));
  for (const agent::Agent* a : agent::agents()) CHECK(has(all, std::string(a->id) + " /mem/a here"));
  CHECK(has(all, "gemini /mem/b elsewhere"));
  CHECK_FALSE(has(all, "codex /mem/gone elsewhere")); // gone: no session runs there
  CHECK(all.size() == agent::agents().size() + 1);    // nothing twice

  // One agent: its folders alone.
  const auto gemini = listed(agent::folders_in_use(base, env, {.agents = {agent::find_agent("gemini")}, .bound_folders = bound}));
  CHECK(gemini == std::vector<std::string>{"gemini /mem/a here", "gemini /mem/b elsewhere"});

  // --project: that folder alone, for each agent.
  const auto project = listed(agent::folders_in_use(base, env, {.project = "/mem/b", .bound_folders = bound}));
  CHECK(project.size() == agent::agents().size());
  CHECK(std::all_of(project.begin(), project.end(), [](const std::string& s) { return s.find(" /mem/b here") != std::string::npos; }));

  // Config files named outright: every folder reads those, so only the folder asked about counts.
  config::DiscoveryInputs given = config::discovery_inputs(env, {"/mem/mcp.json"}, "/mem/a");
  given.reader = &disk;
  CHECK(agent::folders_in_use(given, env, {.bound_folders = bound}).size() == agent::agents().size());
}

TEST_CASE("a bound folder whose bindings still name only definitions its agent starts elsewhere is not read again",
          "[agents]") {
  testing::MemoryDisk disk;
  disk.files["/mem/b"] = "";
  disk.files["/mem/c"] = "";
  disk.files["/mem/home/.claude.json"] = R"({"mcpServers":{"u":{"command":"/bin/true"}}})";
  const util::MapEnvironment env{{"HOME", "/mem/home"}};
  config::DiscoveryInputs base = config::discovery_inputs(env, {}, "/mem/a");
  base.reader = &disk;
  const agent::Agent* claude = &agent::default_agent();
  const auto here = agent::folders_in_use(base, env, {.agents = {claude}});
  REQUIRE(here.size() == 1);
  REQUIRE(here.front().resolution.winners().size() == 1);
  const std::string user_fp = here.front().resolution.winners().front()->fingerprint;

  agent::FolderScope scope{.agents = {claude}, .bound_folders = {"/mem/b", "/mem/c"}};
  std::vector<std::string> asked;
  scope.still_binds = [&](const std::string& key) -> std::optional<std::vector<std::string>> {
    asked.push_back(key);
    if (key == "/mem/b") return std::vector<std::string>{user_fp}; // started in /mem/a already
    return std::vector<std::string>{user_fp, "fp-of-its-own"};
  };
  const auto all = listed(agent::folders_in_use(base, env, scope));
  CHECK(asked.size() == 2);
  CHECK_FALSE(has(all, "claude-code /mem/b elsewhere"));
  CHECK(has(all, "claude-code /mem/c elsewhere"));
  // Bindings that no longer hold say nothing: the folder is read.
  scope.still_binds = [](const std::string&) { return std::optional<std::vector<std::string>>(); };
  CHECK(has(listed(agent::folders_in_use(base, env, scope)), "claude-code /mem/b elsewhere"));
}

// doctor and explain-config tell the user's own hook files from a repository's by asking each agent for its files
// with no project: what remains for a project must lie inside it, and nothing of the user's may.
TEST_CASE("every agent's hook files split into the user's own and the project's, by the project asked for",
          "[agents]") {
  const util::MapEnvironment env{{"HOME", "/home/u"}, {"PATH", "/usr/bin"}};
  const std::filesystem::path project = "/work/repo";
  for (const agent::Agent* a : agent::agents()) {
    INFO(a->id);
    const auto own = a->registration.hook_files(env, std::filesystem::path());
    const auto all = a->registration.hook_files(env, project);
    std::size_t in_project = 0;
    for (const auto& f : all) {
      const bool users = std::find(own.begin(), own.end(), f) != own.end();
      const bool inside = f.string().rfind(project.string() + "/", 0) == 0;
      INFO(f.string());
      CHECK(users != inside);
      in_project += inside ? 1 : 0;
    }
    // Every agent with project hook files names at least one there (Copilot CLI has none).
    if (a->registration.install_file(agent::InstallScope::project, env, project)) CHECK(in_project > 0);
  }
}

TEST_CASE("the file install writes for a scope is one of the agent's hook files, however the project is spelled",
          "[agents]") {
  // What `install --cwd proj` writes is what explain-config and doctor then read.
  const util::MapEnvironment env{{"HOME", "/home/u"}, {"PATH", "/usr/bin"}};
  for (const std::filesystem::path project : {"/work/repo", "/work/repo/", "repo", "./repo/sub/.."}) {
    for (const agent::Agent* a : agent::agents()) {
      for (const auto scope : {agent::InstallScope::user, agent::InstallScope::project, agent::InstallScope::local}) {
        const auto file = a->registration.install_file(scope, env, project);
        if (!file) continue;
        INFO(a->id << " " << project << " " << *file);
        const auto all = a->registration.hook_files(env, project);
        CHECK(std::find(all.begin(), all.end(), *file) != all.end());
      }
    }
  }
}

TEST_CASE("every agent's captured hook payloads are claimed by its own recogniser or by none, never by another's",
          "[agents]") {
  // The file's first word names the agent that sent it (its id), or Claude Code's program (`claude`, and `sdk`: the
  // Agent SDK runs Claude Code).
  std::map<std::string, std::string> owner{{"claude", "claude-code"}, {"sdk", "claude-code"}};
  for (const agent::Agent* a : agent::agents()) owner.emplace(std::string(a->id), std::string(a->id));
  std::size_t read = 0;
  for (const auto& file : std::filesystem::directory_iterator(MCPHEALTH_TEST_PAYLOADS)) {
    if (file.path().extension() != ".json") continue;
    const std::string name = file.path().filename().string();
    INFO(name);
    const auto text = util::read_file(file.path(), 1 << 20);
    REQUIRE(text);
    const auto parsed = util::parse_json(*text);
    REQUIRE(parsed);
    REQUIRE(parsed->is_object());
    const auto sender = owner.find(name.substr(0, name.find('-')));
    REQUIRE(sender != owner.end());
    std::vector<std::string> claims;
    for (const agent::Agent* a : agent::agents()) {
      if (a->dialect.recognizes(parsed->get_object())) claims.emplace_back(a->id);
    }
    CHECK(claims.size() <= 1);
    if (!claims.empty()) CHECK(claims.front() == sender->second);
    // A shape of its own is recognised: Gemini CLI's tool events (its SessionStart is Claude Code's shape), and
    // Copilot CLI's camelCase events (its PascalCase ones are Claude Code's shape, named by --agent).
    const bool own_shape = (sender->second == "gemini" && name.find("Tool") != std::string::npos) ||
                           (sender->second == "copilot" && name.find("Pascal") == std::string::npos);
    if (own_shape) CHECK(claims == std::vector<std::string>{sender->second});
    ++read;
  }
  CHECK(read >= 20);
}

} // namespace test_agents
