#include <mcphealth/ops/hints.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
using state::Health;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_hints {
namespace {
bool says(const ops::Seen& seen, std::string_view part) {
  const std::string hint = ops::hint_for(seen);
  INFO(hint);
  return hint.find(part) != std::string::npos;
}
} // namespace

TEST_CASE("a hint says what to do about each way of being down", "[hints]") {
  CHECK(says({Health::unhealthy, probe::Kind::spawn_failed, "spawn uvx ENOENT", {}}, "install uvx"));
  CHECK(says({Health::unhealthy, probe::Kind::spawn_failed, "spawn /srv/run.sh EACCES", {}},
             "make /srv/run.sh executable"));
  CHECK(says({Health::misconfigured, probe::Kind::misconfigured, "misconfigured: ${API_KEY} is not set", {}},
             "set API_KEY"));
  CHECK(says({Health::needs_auth, probe::Kind::needs_auth, "HTTP 401", 401}, "/mcp"));
  CHECK(says({Health::unhealthy, probe::Kind::http_status, "HTTP 401", 401},
             "renew the credentials the definition sends"));
  CHECK(says({Health::unhealthy,
              probe::Kind::transport,
              "Failed to connect to 127.0.0.1 port 8931 after 0 ms: Couldn't connect to server",
              {}},
             "start the service on port 8931"));
  CHECK(says({Health::unhealthy,
              probe::Kind::exited,
              "Traceback (most recent call last):\n  File \"s.py\", line 1\nModuleNotFoundError: No module named 'x'",
              {}},
             "Python module"));
  CHECK(says({Health::unhealthy, probe::Kind::exited, "Error: listen EADDRINUSE: address already in use :::3000", {}},
             "second copy"));
  CHECK(says({Health::unhealthy, probe::Kind::http_status, "HTTP 404", 404}, "path"));
  CHECK(says({Health::unhealthy, probe::Kind::http_status, "HTTP 503", 503}, "logs"));
  CHECK(says({Health::alive_silent, probe::Kind::alive_silent, "", {}}, "MCPHEALTH_TIMEOUT_MS"));
}

TEST_CASE("a timeout's hint names the wait it outlasted and the setting of each path", "[hints]") {
  const ops::Seen off_call{Health::unhealthy, probe::Kind::timeout, "no MCP answer within 30000 ms; its stderr: loading", {}};
  CHECK(says(off_call, "did not answer within 30000 ms"));
  CHECK(says(off_call, "a call's hook waits MCPHEALTH_TIMEOUT_MS, 5000 ms unless set"));
  CHECK(says(off_call, "MCP_TIMEOUT, 30000 ms unless set"));
  CHECK(says({Health::unhealthy, probe::Kind::timeout, "no MCP answer within 5000 ms", {}}, "within 5000 ms:"));
  CHECK(says({Health::unhealthy, probe::Kind::timeout, "timed out", {}}, "did not answer in time:"));
}

TEST_CASE("a server that is fine gets no hint", "[hints]") {
  CHECK(ops::hint_for({Health::healthy, probe::Kind::answered, "", {}}).empty());
  CHECK(ops::hint_for({Health::reachable, probe::Kind::reachable, "HTTP 200", 200}).empty());
  CHECK(ops::hint_for({Health::unknown, std::nullopt, "", {}}).empty());
}

TEST_CASE("a hint speaks the words of the agent that starts the server", "[hints]") {
  const agent::Agent* codex = agent::find_agent("codex");
  const agent::Agent* gemini = agent::find_agent("gemini");
  REQUIRE(codex);
  REQUIRE(gemini);
  CHECK(ops::hint_for({Health::needs_auth, probe::Kind::needs_auth, "HTTP 401", 401, codex}).find("codex mcp login") !=
        std::string::npos);
  // A 403 the client reported (no probe kind): its login. One a probe recorded as down: the definition's own key.
  CHECK(ops::hint_for({Health::unhealthy, std::nullopt, "HTTP 403", 403, gemini}).find("/mcp auth in Gemini CLI") !=
        std::string::npos);
  CHECK(ops::hint_for({Health::unhealthy, probe::Kind::http_status, "HTTP 403", 403, gemini})
            .find("its Authorization header or key): Gemini CLI's own login cannot replace them") != std::string::npos);
  CHECK(ops::hint_for({Health::unhealthy, probe::Kind::spawn_failed, "spawn uvx ENOENT", {}, gemini})
            .find("Gemini CLI's PATH") != std::string::npos);
  // Without an agent, Claude Code's.
  CHECK(ops::hint_for({Health::needs_auth, probe::Kind::needs_auth, "HTTP 401", 401}).find("/mcp in Claude Code") !=
        std::string::npos);
}

} // namespace test_hints
