// The background prober's service file (ops/service.hpp): its bytes from its inputs, escaped as each service
// manager reads them, and the check doctor makes of a file in place.
#include "fakes.hpp"

#include <mcphealth/ops/service.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using namespace mcphealth;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_service {
namespace {

ops::ServiceInputs inputs(ops::ServiceManager manager, std::string binary) {
  ops::ServiceInputs in;
  in.manager = manager;
  in.binary = std::move(binary);
  in.home = "/home/u--x";
  in.path = "/opt/agent bin:/usr/bin";
  in.path_recorded = true;
  in.variables = {"API_KEY", "GITHUB_TOKEN"};
  return in;
}

} // namespace

TEST_CASE("a systemd unit quotes what holds a space and doubles what systemd would expand", "[service]") {
  const util::MapEnvironment env{};
  const ops::ServiceFile f = ops::service_file(inputs(ops::ServiceManager::systemd, "/opt/my apps/mcphealth%1$x"), env);
  CHECK(f.path == "/home/u--x/.config/systemd/user/mcphealth-watch.service");
  // The program's path: % doubled, $ itself (systemd expands no variable there; `systemd-analyze verify` looks for
  // the file by the path as written).
  CHECK(f.text.find("\nExecStart=\"/opt/my apps/mcphealth%%1$x\" watch --probe --events --interval 60\n") !=
        std::string::npos);
  // An argument: $ doubled, as systemd would expand it there.
  ops::ServiceInputs with_state = inputs(ops::ServiceManager::systemd, "/opt/mcphealth");
  with_state.state = "/var/state $HOME/s.json";
  CHECK(ops::service_file(with_state, env).text.find("ExecStart=/opt/mcphealth --state \"/var/state $$HOME/s.json\" watch") !=
        std::string::npos);
  CHECK(f.text.find("\nEnvironment=\"PATH=/opt/agent bin:/usr/bin\"\n") != std::string::npos);
  CHECK(f.text.find("\nEnvironmentFile=-/home/u--x/.config/mcphealth/env\n") != std::string::npos);
  CHECK(f.text.find("reference API_KEY, GITHUB_TOKEN") != std::string::npos);
  CHECK(ops::written_by_mcphealth(f.text));
  // XDG_CONFIG_HOME moves it; a relative one is ignored, as the XDG rules say.
  CHECK(ops::service_path(ops::ServiceManager::systemd, "/home/u", util::MapEnvironment{{"XDG_CONFIG_HOME", "/cfg"}}) ==
        "/cfg/systemd/user/mcphealth-watch.service");
  CHECK(ops::service_path(ops::ServiceManager::systemd, "/home/u", util::MapEnvironment{{"XDG_CONFIG_HOME", "cfg"}}) ==
        "/home/u/.config/systemd/user/mcphealth-watch.service");
}

TEST_CASE("a launchd plist escapes its strings and keeps -- out of its comment", "[service]") {
  const util::MapEnvironment env{};
  const ops::ServiceFile f = ops::service_file(inputs(ops::ServiceManager::launchd, "/opt/a&b/mcphealth"), env);
  CHECK(f.path == "/home/u--x/Library/LaunchAgents/com.mcphealth.watch.plist");
  CHECK(f.text.find("<string>/opt/a&amp;b/mcphealth</string>") != std::string::npos);
  const std::size_t open = f.text.find("<!--"), close = f.text.find("-->");
  REQUIRE(open != std::string::npos);
  REQUIRE(close != std::string::npos);
  CHECK(f.text.substr(open + 4, close - open - 4).find("--") == std::string::npos);
  CHECK(f.text.find("<string>/home/u--x/.config/mcphealth/env</string>") !=
        std::string::npos); // outside the comment, as it is
  CHECK(f.load == "launchctl bootstrap gui/$(id -u) '/home/u--x/Library/LaunchAgents/com.mcphealth.watch.plist'");
}

TEST_CASE("doctor's check finds what makes a service file fail, and passes one that is right", "[service]") {
  testing::TempDir tmp;
  const util::MapEnvironment env{};
  for (const ops::ServiceManager m : {ops::ServiceManager::systemd, ops::ServiceManager::launchd}) {
    INFO(ops::manager_name(m));
    const ops::ServiceFile good = ops::service_file(inputs(m, (tmp.path() / "mcphealth").string()), env);
    CHECK(ops::check_service_file(m, good.text).size() == 1); // the program is not there
    std::ofstream(tmp.path() / "mcphealth") << "#!/bin/sh\n";
    std::filesystem::permissions(tmp.path() / "mcphealth", std::filesystem::perms::owner_all);
    CHECK(ops::check_service_file(m, good.text).empty());
    std::filesystem::remove(tmp.path() / "mcphealth");
  }
  const auto found = [](const std::vector<ops::ServiceProblem>& ps) {
    std::string all;
    for (const auto& p : ps) all += p.found + "\n";
    return all;
  };
  const std::string hand_made =
      "[Service]\nExecStart=mcphealth watch --probe\nEnvironment=ECC_MCP_HEALTH_FAIL_OPEN=1\n";
  const std::string problems = found(ops::check_service_file(ops::ServiceManager::systemd, hand_made));
  CHECK(problems.find("not an absolute path") != std::string::npos);
  CHECK(problems.find("fail-open") != std::string::npos);
  CHECK(problems.find("sets no PATH") != std::string::npos);
  CHECK(found(ops::check_service_file(ops::ServiceManager::systemd, "[Service]\nExecStart=/usr/bin/env x\n"))
            .find("starts no mcphealth") ==
        std::string::npos); // a program is named: whether it is there is what is checked
  CHECK(found(ops::check_service_file(ops::ServiceManager::launchd,
                                      "<key>ProgramArguments</key><array><string>~/bin/mcphealth</string></array>"))
            .find("~") != std::string::npos);
  CHECK_FALSE(ops::written_by_mcphealth(hand_made));
}

} // namespace test_service
