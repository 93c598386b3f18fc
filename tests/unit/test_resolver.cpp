#include "fakes.hpp"

#include <mcphealth/agent/agent.hpp>
#include <mcphealth/agent/claude_code_args.hpp>
#include <mcphealth/config/names.hpp>
#include <mcphealth/config/resolver.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;
using testing::TempDir;
namespace fs = std::filesystem;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_resolver {
namespace {

/// A scratch HOME laid out as Claude Code lays it out, with one project folder.
struct Layout {
  TempDir dir;
  util::MapEnvironment env;
  fs::path home = dir.path() / "home";
  fs::path project = dir.path() / "proj";

  Layout() {
    fs::create_directories(home / ".claude");
    fs::create_directories(project);
    env.set("HOME", home.string());
    env.set("MCPHEALTH_MANAGED_DIR", (dir.path() / "managed").string());
  }
  void write(const fs::path& path, const std::string& text) const {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  /// ~/.claude.json with `projects[project] = entry` and top-level `extra` members.
  void claude_json(const std::string& entry, const std::string& extra = "") const {
    write(home / ".claude.json", "{\"projects\":{\"" + project.string() + "\":" + entry + "}" + (extra.empty() ? "" : "," + extra) + "}");
  }
  config::Resolution resolve() const {
    return agent::default_agent().catalogue.resolve(config::discovery_inputs(env, {}, project.string()), env);
  }
};

std::string stdio(const std::string& marker) { return R"({"command":"/bin/echo","args":[")" + marker + R"("]})"; }

const config::Candidate* find(const config::Resolution& r, const std::string& name, config::Scope scope) {
  for (const auto& c : r.candidates) {
    if (c.tool_server == name && c.scope == scope) return &c;
  }
  return nullptr;
}

} // namespace

TEST_CASE("tool names replace every character outside [A-Za-z0-9_-]", "[resolver]") {
  CHECK(config::tool_server_name("claude.ai Gmail") == "claude_ai_Gmail");
  CHECK(config::tool_server_name("my-server_2") == "my-server_2");
  CHECK(config::plugin_tool_server_name("claude-mem", "mcp-search") == "plugin_claude-mem_mcp-search");
  CHECK(config::plugin_tool_server_name("a.b", "c d") == "plugin_a_b_c_d");
}

TEST_CASE("inside a repository the root's projects entry applies: project scope reads every .mcp.json above", "[resolver]") {
  Layout l;
  fs::create_directories(l.project / ".git");
  l.claude_json(R"({"mcpServers":{"a":)" + stdio("local") + "}}");
  l.write(l.home / ".claude" / "settings.json", R"({"enableAllProjectMcpServers":true})");
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"b":)" + stdio("project") + R"(,"c":)" + stdio("root") + "}}");
  l.write(l.project / "src" / ".mcp.json", R"({"mcpServers":{"c":)" + stdio("src") + "}}");
  fs::create_directories(l.project / "src" / "deep");
  const auto r = agent::default_agent().catalogue.resolve(config::discovery_inputs(l.env, {}, (l.project / "src" / "deep").string()), l.env);
  REQUIRE(r.winner("a") != nullptr);
  CHECK(r.winner("a")->scope == config::Scope::local);
  CHECK(r.winner("a")->project == std::optional<std::string>(l.project.string()));
  REQUIRE(r.winner("b") != nullptr);
  CHECK(r.winner("b")->definition.source == l.project / ".mcp.json");
  // The nearest definition of a name wins; the farther one is shadowed.
  REQUIRE(r.winner("c") != nullptr);
  CHECK(r.winner("c")->definition.source == l.project / "src" / ".mcp.json");
}

TEST_CASE("a parent folder's local servers never run in a folder below it, clone or not", "[resolver]") {
  // Claude Code 2.1.197 and 2.1.332 list no server under `claude mcp list` in either folder (NOTES.md).
  Layout l;
  l.claude_json(R"({"mcpServers":{"loc":{"command":"python3","args":["srv.py"]}},"hasTrustDialogAccepted":true})");
  const fs::path clone = l.project / "clone";
  fs::create_directories(clone / ".git");
  const fs::path sub = l.project / "sub";
  fs::create_directories(sub);
  for (const fs::path& folder : {clone, sub}) {
    const auto r = agent::default_agent().catalogue.resolve(config::discovery_inputs(l.env, {}, folder.string()), l.env);
    CHECK(r.winner("loc") == nullptr);
    CHECK(r.candidates_for("loc").empty());
  }
  CHECK(l.resolve().winner("loc") != nullptr);
}

TEST_CASE("trust on an ancestor does not let a clone approve its own servers", "[resolver]") {
  Layout l;
  // The user once trusted HOME; a clone below it approves its own .mcp.json.
  l.write(l.home / ".claude.json", "{\"projects\":{\"" + l.dir.path().string() + "\":{\"hasTrustDialogAccepted\":true}}}");
  fs::create_directories(l.project / ".git");
  l.write(l.project / ".claude" / "settings.json", R"({"enableAllProjectMcpServers":true})");
  l.write(l.project / ".claude" / "settings.local.json", R"({"enabledMcpjsonServers":["evil"]})");
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"evil":)" + stdio("evil") + "}}");
  auto r = l.resolve();
  CHECK(r.winner("evil") == nullptr);
  CHECK(r.candidates_for("evil").front()->standing == config::Standing::not_approved);
  CHECK_FALSE(r.trusted);
  // Trust recorded on the repository itself lets its own settings approve.
  l.claude_json(R"({"hasTrustDialogAccepted":true})");
  r = l.resolve();
  CHECK(r.trusted);
  CHECK(r.winner("evil") != nullptr);
}

TEST_CASE("in a repository's subfolder the root's trust and approvals count, and the subfolder's own settings", "[resolver]") {
  Layout l;
  fs::create_directories(l.project / ".git");
  const fs::path sub = l.project / "pkg";
  l.claude_json(R"({"hasTrustDialogAccepted":true,"enabledMcpjsonServers":["p"]})");
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"p":)" + stdio("p") + R"(,"q":)" + stdio("q") + R"(,"s":)" + stdio("s") + "}}");
  // The root's own settings file does not count from a subfolder; the subfolder's does.
  l.write(l.project / ".claude" / "settings.json", R"({"enabledMcpjsonServers":["q"]})");
  l.write(sub / ".claude" / "settings.json", R"({"enabledMcpjsonServers":["s"]})");
  const auto r = agent::default_agent().catalogue.resolve(config::discovery_inputs(l.env, {}, sub.string()), l.env);
  CHECK(r.winner("p") != nullptr);
  CHECK(r.winner("q") == nullptr);
  CHECK(r.winner("s") != nullptr);
}

TEST_CASE("the client's version decides approvals where the versions differ, and none known is the strictest",
          "[resolver]") {
  // Issue 37's fourth layout, as 2.1.332 and 2.1.197 ran it under `claude mcp list` (tests/fixtures/differential.py
  // --fixed): from a subfolder of a trusted repository root, 2.1.332 honours the root's settings.local.json
  // enableAllProjectMcpServers, and runs the project's `a` over the user's; 2.1.197 runs the user's.
  Layout l;
  fs::create_directories(l.project / ".git");
  const fs::path sub = l.project / "c";
  fs::create_directories(sub);
  l.claude_json(R"({"hasTrustDialogAccepted":true})", R"("mcpServers":{"a":)" + stdio("user") + "}");
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"a":)" + stdio("project") + R"(,"b":)" + stdio("project") + "}}");
  l.write(l.project / ".claude" / "settings.local.json", R"({"enableAllProjectMcpServers":true,"enabledMcpjsonServers":["b"]})");
  config::DiscoveryInputs in = config::discovery_inputs(l.env, {}, sub.string());
  for (const char* version : {"2.1.332", "2.1.400"}) {
    in.client_version = version;
    const auto r = agent::default_agent().catalogue.resolve(in, l.env);
    REQUIRE(r.winner("a"));
    CHECK(r.winner("a")->scope == config::Scope::project);
    CHECK(r.winner("b")); // approved by the root's enableAll
  }
  for (const std::optional<std::string>& version : {std::optional<std::string>("2.1.197"), std::optional<std::string>()}) {
    in.client_version = version;
    const auto r = agent::default_agent().catalogue.resolve(in, l.env);
    REQUIRE(r.winner("a"));
    CHECK(r.winner("a")->scope == config::Scope::user);
    CHECK_FALSE(r.winner("b"));
  }
  // Not trusted: no version's rule counts the root's file.
  l.claude_json(R"({})", R"("mcpServers":{"a":)" + stdio("user") + "}");
  in.client_version = "2.1.332";
  CHECK(agent::default_agent().catalogue.resolve(in, l.env).winner("a")->scope == config::Scope::user);
  // probe from cron has no client to ask: MCPHEALTH_CLAUDE_VERSION says which.
  l.claude_json(R"({"hasTrustDialogAccepted":true})", R"("mcpServers":{"a":)" + stdio("user") + "}");
  in.client_version.reset();
  l.env.set("MCPHEALTH_CLAUDE_VERSION", "2.1.332");
  CHECK(agent::default_agent().catalogue.resolve(in, l.env).winner("a")->scope == config::Scope::project);
  l.env.set("MCPHEALTH_CLAUDE_VERSION", "latest"); // not a version: not known
  CHECK(agent::default_agent().catalogue.resolve(in, l.env).winner("a")->scope == config::Scope::user);
}

TEST_CASE("Claude Code's version is read from its program's install, never by running it", "[resolver]") {
  TempDir dir;
  // npm: node_modules/@anthropic-ai/claude-code/{package.json,bin/claude.exe,cli.js}
  const fs::path pkg = dir.path() / "node_modules" / "@anthropic-ai" / "claude-code";
  fs::create_directories(pkg / "bin");
  std::ofstream(pkg / "package.json") << R"({"name":"@anthropic-ai/claude-code","version":"2.1.197"})";
  CHECK(agent::claude_version_of(pkg / "bin" / "claude.exe") == "2.1.197");
  CHECK(agent::claude_version_of(pkg / "cli.js") == "2.1.197");
  // The native installer's versions folder names the file by its version.
  CHECK(agent::claude_version_of(dir.path() / "versions" / "2.1.332") == "2.1.332");
  // Another package's file says nothing of Claude Code.
  const fs::path other = dir.path() / "other";
  fs::create_directories(other / "bin");
  std::ofstream(other / "package.json") << R"({"name":"claude-wrapper","version":"9.9.9"})";
  CHECK_FALSE(agent::claude_version_of(other / "bin" / "claude"));
  CHECK_FALSE(agent::claude_version_of("/usr/bin/claude"));
}

TEST_CASE("a symlinked spelling of a folder is the folder it points to", "[resolver]") {
  Layout l;
  l.claude_json(R"({"mcpServers":{"a":)" + stdio("local") + "}}");
  const fs::path link = l.dir.path() / "link";
  fs::create_directory_symlink(l.project, link);
  const auto r = agent::default_agent().catalogue.resolve(config::discovery_inputs(l.env, {}, link.string()), l.env);
  CHECK(r.winner("a") != nullptr);
}

TEST_CASE("in memory: the folder is keyed by its real path, and a command is found on PATH, through the reader",
          "[resolver]") {
  testing::MemoryDisk disk;
  disk.files["/home/u/.claude.json"] =
      R"({"projects":{"/work/proj":{"mcpServers":{"a":{"command":"srv","env":{"PATH":"/opt/bin:/usr/bin"}}}}}})";
  disk.links["/home/u/proj-link"] = "/work/proj";
  disk.files["/opt/bin/srv"] = "not executable";
  disk.programs.insert("/usr/bin/srv");
  util::MapEnvironment env({{"HOME", "/home/u"}, {"MCPHEALTH_MANAGED_DIR", "/managed"}});
  config::DiscoveryInputs in = config::discovery_inputs(env, {}, "/home/u/proj-link");
  in.reader = &disk;
  const config::Resolution r = agent::default_agent().catalogue.resolve(in, env);
  const config::Candidate* a = r.winner("a");
  REQUIRE(a);
  CHECK(std::get<config::StdioServer>(a->resolved->transport).executable == "/usr/bin/srv");
  // Neither question is a file the folder's bindings watch: a hit re-checks what the files said.
  CHECK(std::find(r.read_files.begin(), r.read_files.end(), fs::path("/usr/bin/srv")) == r.read_files.end());
}

TEST_CASE("local wins over an approved project server, which wins over user scope", "[resolver]") {
  Layout l;
  l.claude_json(R"({"mcpServers":{"a":)" + stdio("local") + R"(},"enabledMcpjsonServers":["a","b"],"hasTrustDialogAccepted":true})",
                R"("mcpServers":{"a":)" + stdio("user") + R"(,"b":)" + stdio("user") + R"(,"c":)" + stdio("user") + "}");
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"a":)" + stdio("project") + R"(,"b":)" + stdio("project") + "}}");
  const auto r = l.resolve();
  CHECK(r.winner("a")->scope == config::Scope::local);
  CHECK(r.winner("b")->scope == config::Scope::project);
  CHECK(r.winner("c")->scope == config::Scope::user);
  CHECK(find(r, "a", config::Scope::project)->standing == config::Standing::shadowed);
}

TEST_CASE("an unapproved project server is never the winner, and shadows nothing", "[resolver]") {
  Layout l;
  l.claude_json("{}", R"("mcpServers":{"github":)" + stdio("user") + "}");
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"github":)" + stdio("repo") + R"(,"extra":)" + stdio("repo") + "}}");
  const auto r = l.resolve();
  CHECK(r.winner("github")->scope == config::Scope::user);
  CHECK(find(r, "github", config::Scope::project)->standing == config::Standing::not_approved);
  CHECK(r.winner("extra") == nullptr);
}

TEST_CASE("a project is approved by each of Claude Code's keys, and a rejection wins", "[resolver]") {
  SECTION("enableAllProjectMcpServers in the user's settings") {
    Layout l;
    l.write(l.home / ".claude" / "settings.json", R"({"enableAllProjectMcpServers":true})");
    l.write(l.project / ".mcp.json", R"({"mcpServers":{"p":)" + stdio("p") + "}}");
    CHECK(l.resolve().winner("p") != nullptr);
  }
  SECTION("enabledMcpjsonServers in ~/.claude.json's entry for a folder the user trusted") {
    Layout l;
    l.claude_json(R"({"enabledMcpjsonServers":["p"]})");
    l.write(l.project / ".mcp.json", R"({"mcpServers":{"p":)" + stdio("p") + R"(,"q":)" + stdio("q") + "}}");
    // Claude Code 2.1.332 takes this record only with trust on the folder.
    CHECK(l.resolve().winner("p") == nullptr);
    l.claude_json(R"({"enabledMcpjsonServers":["p"],"hasTrustDialogAccepted":true})");
    CHECK(l.resolve().winner("p") != nullptr);
    CHECK(l.resolve().winner("q") == nullptr);
  }
  SECTION("disabledMcpjsonServers rejects even with enableAllProjectMcpServers") {
    Layout l;
    l.claude_json(R"({"enableAllProjectMcpServers":true,"disabledMcpjsonServers":["p"]})");
    l.write(l.project / ".mcp.json", R"({"mcpServers":{"p":)" + stdio("p") + "}}");
    const auto r = l.resolve();
    CHECK(r.winner("p") == nullptr);
    CHECK(r.candidates_for("p").front()->reason.find("rejected") != std::string::npos);
  }
  SECTION("the project's own settings approve only in a trusted folder") {
    Layout l;
    l.write(l.project / ".claude" / "settings.json", R"({"enableAllProjectMcpServers":true})");
    l.write(l.project / ".mcp.json", R"({"mcpServers":{"p":)" + stdio("p") + "}}");
    CHECK(l.resolve().winner("p") == nullptr);
    CHECK(l.resolve().candidates_for("p").front()->reason.find("not trusted") != std::string::npos);
    l.claude_json(R"({"hasTrustDialogAccepted":true})");
    CHECK(l.resolve().winner("p") != nullptr);
  }
}

TEST_CASE("a server disabled with /mcp is not used", "[resolver]") {
  Layout l;
  l.claude_json(R"({"disabledMcpServers":["u"]})", R"("mcpServers":{"u":)" + stdio("user") + "}");
  const auto r = l.resolve();
  CHECK(r.winner("u") == nullptr);
  CHECK(r.candidates_for("u").front()->standing == config::Standing::disabled);
}

TEST_CASE("a managed config takes over, and managed policies deny by name, url and command", "[resolver]") {
  Layout l;
  l.claude_json("{}", R"("mcpServers":{"mine":)" + stdio("user") + R"(,"web":{"type":"http","url":"https://evil.example/mcp"},"cmd":{"command":"/bin/echo","args":["x"]}})");
  l.write(l.dir.path() / "managed" / "managed-settings.json",
          R"({"deniedMcpServers":[{"serverName":"mine"},{"serverUrl":"https://*.example/*"},{"serverCommand":["/bin/echo","x"]}]})");
  auto r = l.resolve();
  CHECK(r.winner("mine") == nullptr);
  CHECK(r.winner("web") == nullptr);
  CHECK(r.winner("cmd") == nullptr);
  CHECK(r.candidates_for("web").front()->standing == config::Standing::denied);
  l.write(l.dir.path() / "managed" / "managed-settings.json", R"({"allowedMcpServers":[{"serverName":"cmd"}]})");
  r = l.resolve();
  CHECK(r.winner("mine") == nullptr);
  CHECK(r.winner("cmd") != nullptr);
  l.write(l.dir.path() / "managed" / "managed-mcp.json", R"({"mcpServers":{"corp":)" + stdio("corp") + "}}");
  r = l.resolve();
  CHECK(r.winner("corp") == nullptr); // the allowlist applies to managed servers too
  l.write(l.dir.path() / "managed" / "managed-settings.json", R"({"allowedMcpServers":[{"serverName":"cmd"},{"serverName":"corp"}]})");
  r = l.resolve();
  REQUIRE(r.winner("corp") != nullptr);
  CHECK(r.winner("corp")->scope == config::Scope::managed);
  CHECK(r.winner("cmd") == nullptr);
  CHECK(r.candidates_for("cmd").front()->standing == config::Standing::managed_only);
}

TEST_CASE("a user's allowlist broadens a managed one, unless allowManagedMcpServersOnly: a user's denial counts", "[resolver]") {
  Layout l;
  l.claude_json("{}", R"("mcpServers":{"a":)" + stdio("a") + R"(,"b":)" + stdio("b") + R"(,"c":)" + stdio("c") + "}");
  l.write(l.dir.path() / "managed" / "managed-settings.json", R"({"allowedMcpServers":[{"serverName":"a"}]})");
  l.write(l.home / ".claude" / "settings.json", R"({"allowedMcpServers":[{"serverName":"b"}],"deniedMcpServers":[{"serverName":"a"}]})");
  auto r = l.resolve();
  CHECK(r.winner("a") == nullptr); // denied by the user, although the managed list allows it
  CHECK(r.winner("b") != nullptr); // the user broadened the soft allowlist
  CHECK(r.winner("c") == nullptr);
  l.write(l.dir.path() / "managed" / "managed-settings.json",
          R"({"allowedMcpServers":[{"serverName":"a"},{"serverName":"c"}],"allowManagedMcpServersOnly":true})");
  r = l.resolve();
  CHECK(r.winner("b") == nullptr); // only the managed list counts now
  CHECK(r.winner("c") != nullptr);
}

TEST_CASE("an enabled plugin's servers are found under Claude Code's name for them", "[resolver]") {
  Layout l;
  const fs::path root = l.dir.path() / "plugins" / "claude-mem";
  l.write(l.home / ".claude" / "plugins" / "installed_plugins.json",
          R"({"version":2,"plugins":{"claude-mem@market":[{"scope":"user","installPath":")" + root.string() + R"("}]}})");
  l.write(root / ".claude-plugin" / "plugin.json", R"({"name":"claude-mem","mcpServers":{"mcp-search":{"command":"${CLAUDE_PLUGIN_ROOT}/bin/search"}}})");
  auto r = l.resolve();
  REQUIRE(r.candidates_for("plugin_claude-mem_mcp-search").size() == 1);
  CHECK(r.candidates_for("plugin_claude-mem_mcp-search").front()->standing == config::Standing::plugin_disabled);
  l.write(l.home / ".claude" / "settings.json", R"({"enabledPlugins":{"claude-mem@market":true}})");
  r = l.resolve();
  const config::Candidate* c = r.winner("plugin_claude-mem_mcp-search");
  REQUIRE(c != nullptr);
  CHECK(std::get<config::StdioServer>(c->resolved->transport).command == (root / "bin" / "search").string());
  CHECK(std::find(r.read_files.begin(), r.read_files.end(), root / ".claude-plugin" / "plugin.json") != r.read_files.end());
}

TEST_CASE("plugin servers may come from the plugin's .mcp.json or a file plugin.json names", "[resolver]") {
  Layout l;
  const fs::path a = l.dir.path() / "a", b = l.dir.path() / "b";
  l.write(l.home / ".claude" / "plugins" / "installed_plugins.json",
          R"({"version":2,"plugins":{"a@m":[{"installPath":")" + a.string() + R"("}],"b@m":[{"installPath":")" + b.string() + R"("}]}})");
  l.write(l.home / ".claude" / "settings.json", R"({"enabledPlugins":{"a@m":true,"b@m":true}})");
  l.write(a / ".mcp.json", R"({"mcpServers":{"s":{"command":"/bin/true"}}})");
  l.write(b / ".claude-plugin" / "plugin.json", R"({"mcpServers":"./servers.json"})");
  l.write(b / "servers.json", R"({"t":{"command":"/bin/true"}})");
  const auto r = l.resolve();
  CHECK(r.winner("plugin_a_s") != nullptr);
  CHECK(r.winner("plugin_b_t") != nullptr);
}

TEST_CASE("an unset variable leaves the winner active with the literal text, as Claude Code starts it", "[resolver]") {
  Layout l;
  l.claude_json("{}", R"("mcpServers":{"k":{"command":"/bin/echo","env":{"API_KEY":"${API_KEY}"}}})");
  auto r = l.resolve();
  REQUIRE(r.winner("k") != nullptr);
  CHECK(r.winner("k")->standing == config::Standing::active);
  CHECK(r.winner("k")->resolved->unset_vars == std::vector<std::string>{"API_KEY"});
  CHECK(r.variables == std::vector<std::string>{"API_KEY"});
  const std::string unset_fingerprint = r.winner("k")->fingerprint;
  l.env.set("API_KEY", "x");
  CHECK(l.resolve().winner("k")->resolved->unset_vars.empty());
  CHECK(l.resolve().winner("k")->fingerprint != unset_fingerprint);
}

TEST_CASE("servers in the JS hook's own files are not read", "[resolver]") {
  Layout l;
  l.write(l.project / ".claude.json", R"({"mcpServers":{"j":{"command":"/bin/true"}}})");
  l.write(l.project / ".claude" / "settings.json", R"({"mcpServers":{"k":{"command":"/bin/true"}}})");
  const auto r = l.resolve();
  CHECK(r.winner("j") == nullptr);
  CHECK(r.winner("k") == nullptr);
  CHECK(r.candidates_for("j").front()->standing == config::Standing::not_read);
}

TEST_CASE("one fingerprint per name and definition: what decides a probe changes it, nothing else does", "[resolver]") {
  Layout l;
  l.claude_json("{}", R"("mcpServers":{"a":)" + stdio("x") + R"(,"b":)" + stdio("x") + "}");
  const auto r = l.resolve();
  const std::string user_a = r.winner("a")->fingerprint;
  CHECK(user_a != r.winner("b")->fingerprint); // same command, another name
  Layout m;
  m.claude_json("{}", R"("mcpServers":{"a":)" + stdio("x") + "}");
  CHECK(m.resolve().winner("a")->fingerprint == user_a); // a user's server used elsewhere: the same verdict
  m.claude_json("{}", R"("mcpServers":{"a":)" + stdio("y") + "}");
  CHECK(m.resolve().winner("a")->fingerprint != user_a);
}

TEST_CASE("two credentials for one URL are two servers: header values count in the fingerprint, never shown", "[resolver]") {
  Layout l;
  auto with_token = [&](const std::string& token) {
    l.claude_json("{}", R"("mcpServers":{"api":{"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer )" +
                            token + R"("}}})");
    return l.resolve().winner("api")->fingerprint;
  };
  const std::string good = with_token("good-token");
  CHECK(with_token("revoked-token") != good);
  CHECK(with_token("good-token") == good);
  CHECK(good.find("good-token") == std::string::npos);
}

TEST_CASE("a definition's shape changes with its fingerprint, part by part, and says which part changed", "[resolver]") {
  Layout l;
  auto winner = [&](const std::string& definition) {
    l.claude_json("{}", R"("mcpServers":{"api":)" + definition + "}");
    const auto r = l.resolve();
    REQUIRE(r.winner("api"));
    return *r.winner("api");
  };
  const std::string base = R"({"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer one","X-Team":"a"}})";
  const config::Candidate was = winner(base);
  struct Change {
    std::string definition, said;
  };
  const std::vector<Change> changes = {
      {R"({"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer two","X-Team":"a"}})", "header Authorization changed"},
      {R"({"type":"http","url":"http://127.0.0.1:9/v2","headers":{"Authorization":"Bearer one","X-Team":"a"}})", "url changed"},
      {R"({"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer one"}})", "header X-Team removed"},
      {R"({"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer one","X-Team":"a","X-New":"1"}})", "header X-New added"},
      {R"({"type":"sse","url":"http://127.0.0.1:9/v2","headers":{"Authorization":"Bearer one","X-Team":"a"}})", "type changed, url changed"},
      {R"({"command":"/bin/echo","args":["x"]})", "type changed, command added, args added, url removed, header Authorization removed, header X-Team removed"},
  };
  for (const Change& c : changes) {
    const config::Candidate now = winner(c.definition);
    CAPTURE(c.definition);
    CHECK(now.fingerprint != was.fingerprint);
    CHECK(config::shape_difference(was.shape, now.shape) == c.said);
  }
  // The same definition read again: the same fingerprint, the same shape, nothing said.
  const config::Candidate again = winner(base);
  CHECK(again.fingerprint == was.fingerprint);
  CHECK(config::shape_difference(was.shape, again.shape).empty());
  // A stdio server's parts: its args, one env value, never the value itself.
  const config::Candidate s1 = winner(R"({"command":"/bin/echo","args":["x"],"env":{"TOKEN":"sekrit-1"}})");
  const config::Candidate s2 = winner(R"({"command":"/bin/echo","args":["x"],"env":{"TOKEN":"sekrit-2"}})");
  CHECK(s1.fingerprint != s2.fingerprint);
  CHECK(config::shape_difference(s1.shape, s2.shape) == "env TOKEN changed");
  for (const auto& [part, digest] : s1.shape) {
    CHECK(digest.size() == 8);
    CHECK(digest.find("sekrit") == std::string::npos);
  }
  // A verdict written before shapes were kept tells nothing.
  CHECK(config::shape_difference({}, s1.shape).empty());
}

TEST_CASE("a stdio server of a project's own files is that project's: its folder is in its fingerprint", "[resolver]") {
  Layout l, m;
  for (const Layout* x : {&l, &m}) {
    x->claude_json(R"({"mcpServers":{"loc":)" + stdio("x") + "}}");
    x->write(x->project / ".mcp.json", R"({"mcpServers":{"prj":)" + stdio("x") + R"(,"web":{"type":"http","url":"http://127.0.0.1:9/mcp"}}})");
    x->write(x->home / ".claude" / "settings.json", R"({"enableAllProjectMcpServers":true})");
  }
  const auto rl = l.resolve(), rm = m.resolve();
  for (const char* name : {"loc", "prj", "web"}) {
    REQUIRE(rl.winner(name));
    REQUIRE(rm.winner(name));
  }
  // Two clones with the same line run two programs (`./srv.sh` is each one's own): one's outage is not the other's.
  CHECK(rl.winner("loc")->fingerprint != rm.winner("loc")->fingerprint);
  CHECK(rl.winner("prj")->fingerprint != rm.winner("prj")->fingerprint);
  // A remote server is the same endpoint from anywhere.
  CHECK(rl.winner("web")->fingerprint == rm.winner("web")->fingerprint);
  // And the same local line, read again in the same folder, is the same definition.
  CHECK(l.resolve().winner("loc")->fingerprint == rl.winner("loc")->fingerprint);
}

TEST_CASE("the stamp changes with a watched file and with a referenced variable", "[resolver]") {
  Layout l;
  l.claude_json("{}", R"("mcpServers":{"a":{"command":"/bin/echo","args":["${TOKEN:-none}"]}})");
  const auto in = config::discovery_inputs(l.env, {}, l.project.string());
  const auto r = agent::default_agent().catalogue.resolve(in, l.env);
  const std::string first = config::resolution_stamp(in, r, l.env);
  CHECK(config::resolution_stamp(in, r, l.env) == first);
  l.env.set("TOKEN", "t");
  CHECK(config::resolution_stamp(in, r, l.env) != first);
  l.env = util::MapEnvironment{{"HOME", l.home.string()}, {"MCPHEALTH_MANAGED_DIR", (l.dir.path() / "managed").string()}};
  CHECK(config::resolution_stamp(in, r, l.env) == first);
  l.write(l.project / ".mcp.json", "{}");
  const auto in2 = config::discovery_inputs(l.env, {}, l.project.string());
  CHECK(config::resolution_stamp(in2, r, l.env) != first);
}

TEST_CASE("explicit files replace the search and are trusted as the user's choice", "[resolver]") {
  Layout l;
  l.write(l.dir.path() / "mine.json", R"({"mcpServers":{"e":{"command":"/bin/true"}}})");
  l.claude_json("{}", R"("mcpServers":{"u":{"command":"/bin/true"}})");
  const auto r = agent::default_agent().catalogue.resolve(config::discovery_inputs(l.env, {l.dir.path() / "mine.json"}, l.project.string()), l.env);
  CHECK(r.explicit_files);
  CHECK(r.winner("e")->scope == config::Scope::explicit_file);
  CHECK(r.winner("u") == nullptr);
}

TEST_CASE("headless Claude Code starts a pending project server (it shadows the user one) but not a rejected one", "[resolver]") {
  Layout l;
  l.claude_json("{}", R"("mcpServers":{"github":)" + stdio("user") + "}");
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"github":)" + stdio("repo") + R"(,"off":)" + stdio("off") + "}}");
  // Rejected in the project's own (untrusted) local settings: interactive rules would not read it; headless it counts.
  l.write(l.project / ".claude" / "settings.local.json", R"({"disabledMcpjsonServers":["off"]})");
  auto in = config::discovery_inputs(l.env, {}, l.project.string());
  CHECK(agent::default_agent().catalogue.resolve(in, l.env).winner("github")->scope == config::Scope::user);
  in.mode = config::DiscoveryInputs::Mode::headless;
  const auto r = agent::default_agent().catalogue.resolve(in, l.env);
  CHECK(r.winner("github")->scope == config::Scope::project);
  CHECK(r.winner("off") == nullptr);
}

TEST_CASE("the client's mode is headless only for claude -p's hooks", "[resolver]") {
  util::MapEnvironment env;
  CHECK(agent::client_mode(env) == config::DiscoveryInputs::Mode::interactive);
  env.set("CLAUDE_CODE_ENTRYPOINT", "cli");
  CHECK(agent::client_mode(env) == config::DiscoveryInputs::Mode::interactive);
  env.set("CLAUDE_CODE_ENTRYPOINT", "sdk-cli");
  CHECK(agent::client_mode(env) == config::DiscoveryInputs::Mode::headless);
}

TEST_CASE("an approval in a parent folder's entry does not approve a clone inside it", "[resolver]") {
  Layout l;
  const fs::path clone = l.project / "clone";
  l.write(clone / ".mcp.json", R"({"mcpServers":{"p":)" + stdio("p") + "}}");
  l.claude_json(R"({"enableAllProjectMcpServers":true,"enabledMcpjsonServers":["p"],"hasTrustDialogAccepted":true})");
  const auto in_clone = agent::default_agent().catalogue.resolve(config::discovery_inputs(l.env, {}, clone.string()), l.env);
  CHECK(in_clone.winner("p") == nullptr);
  CHECK(in_clone.candidates_for("p").front()->standing == config::Standing::not_approved);
  // The folder the entry names is approved.
  l.write(l.project / ".mcp.json", R"({"mcpServers":{"q":)" + stdio("q") + "}}");
  CHECK(l.resolve().winner("q") != nullptr);
}

TEST_CASE("client arguments read --mcp-config values as the client's option parser does", "[resolver]") {
  const auto a = agent::parse_client_arguments(
      {"-p", "hi", "--mcp-config", "a.json", "{\"mcpServers\":{}}", "--verbose", "--mcp-config=b.json", "--strict-mcp-config"},
      "/w");
  CHECK(a.mcp_configs == std::vector<std::string>{"a.json", "{\"mcpServers\":{}}", "b.json"});
  CHECK(a.strict);
  CHECK(a.cwd == "/w");
  CHECK(agent::parse_client_arguments({"-p", "--", "--mcp-config", "x"}, "/w").empty());
  // Other arguments give another stamp: such sessions bind apart.
  CHECK(a.stamp() != agent::parse_client_arguments({"--mcp-config", "a.json"}, "/w").stamp());
}

TEST_CASE("servers given with --mcp-config win over every file scope and with --strict-mcp-config are the only ones", "[resolver]") {
  Layout l;
  l.claude_json(R"({"mcpServers":{"a":)" + stdio("local") + "}}", R"("mcpServers":{"b":)" + stdio("user") + "}");
  l.write(l.project / "extra.json", R"({"mcpServers":{"a":)" + stdio("file") + "}}");
  config::DiscoveryInputs in = config::discovery_inputs(l.env, {}, l.project.string());
  in.client = agent::parse_client_arguments({"--mcp-config", "extra.json", R"({"mcpServers":{"c":{"command":"x"}}})"}, l.project);
  auto r = agent::default_agent().catalogue.resolve(in, l.env);
  CHECK(r.winner("a")->scope == config::Scope::command_line);
  CHECK(r.winner("a")->definition.source == l.project / "extra.json");
  CHECK(r.winner("b")->scope == config::Scope::user);
  CHECK(r.winner("c")->scope == config::Scope::command_line);
  CHECK(find(r, "a", config::Scope::local)->standing == config::Standing::shadowed);
  // The file was read, so the stamp covers it: editing it makes the folder's bindings stale.
  CHECK(std::find(r.read_files.begin(), r.read_files.end(), l.project / "extra.json") != r.read_files.end());
  in.client->strict = true;
  r = agent::default_agent().catalogue.resolve(in, l.env);
  CHECK(r.winner("a")->scope == config::Scope::command_line);
  CHECK(r.winner("b") == nullptr);
  CHECK(find(r, "b", config::Scope::user)->standing == config::Standing::not_read);
}

} // namespace test_resolver
