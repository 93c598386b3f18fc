// libFuzzer target for the resolver: the input becomes ~/.claude.json, the project's .mcp.json, the user's
// settings.json and a plugin's .mcp.json in a scratch HOME, and the resolver must neither crash nor break its own
// rules (one winner per name, a winner always resolved and fingerprinted). Also the classifier and the text helpers.
// Build and run with scripts/fuzz.
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/config/names.hpp>
#include <mcphealth/config/resolver.hpp>
#include <mcphealth/hook/classify.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>

using namespace mcphealth;
namespace fs = std::filesystem;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

struct Scratch {
  fs::path root;
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "mcphealth-fuzz-XXXXXX").string();
    root = ::mkdtemp(tmpl.data());
    fs::create_directories(root / "home" / ".claude" / "plugins");
    fs::create_directories(root / "proj");
    fs::create_directories(root / "plugin");
    std::ofstream(root / "home" / ".claude" / "plugins" / "installed_plugins.json")
        << R"({"version":2,"plugins":{"p@m":[{"installPath":")" << (root / "plugin").string() << R"("}]}})";
  }
};

void write(const fs::path& p, std::string_view text) { std::ofstream(p, std::ios::binary) << text; }

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Scratch scratch;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // One input, four places: the same bytes as every file Claude Code's layout reads.
  write(scratch.root / "home" / ".claude.json", text);
  write(scratch.root / "proj" / ".mcp.json", text);
  write(scratch.root / "home" / ".claude" / "settings.json", text);
  write(scratch.root / "plugin" / ".mcp.json", text);
  util::MapEnvironment env{{"HOME", (scratch.root / "home").string()},
                           {"MCPHEALTH_MANAGED_DIR", (scratch.root / "managed").string()},
                           {"PATH", "/usr/bin:/bin"}};
  const config::DiscoveryInputs in = config::discovery_inputs(env, {}, (scratch.root / "proj").string());
  const config::Resolution res = agent::default_agent().catalogue.resolve(in, env);
  std::set<std::string> names;
  for (const auto* w : res.winners()) {
    check(names.insert(w->tool_server).second); // one winner per name
    check(w->resolved.has_value() && w->fingerprint.size() == 16);
    check(w->tool_server == config::tool_server_name(w->tool_server)); // already normalized
  }
  (void)config::resolution_stamp(in, res, env);

  (void)hook::classify_failure(text);
  for (char c : util::escape_control(text)) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
  if (auto mended = util::repair_lone_surrogates(text)) (void)util::parse_json(*mended);
  return 0;
}
