// What the model reads: one case per message of hook/messages.hpp, each checking the four things every message
// must carry (what is wrong, since when, until when in relative terms, what to do instead) where they apply.
#include <mcphealth/hook/messages.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;
namespace m = hook::messages;
using state::FailureCode;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_messages {
namespace {
bool has(const std::string& text, std::string_view part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}
} // namespace

TEST_CASE("durations read as words, rounded up, never zero", "[messages]") {
  CHECK(m::in_words(0) == "1 second");
  CHECK(m::in_words(1) == "1 second");
  CHECK(m::in_words(29'400) == "30 seconds");
  CHECK(m::in_words(89'000) == "89 seconds");
  CHECK(m::in_words(240'000) == "4 minutes");
  CHECK(m::in_words(600'000) == "10 minutes");
  CHECK(m::in_words(3'600'000) == "60 minutes");
  CHECK(m::in_words(7'200'000) == "2 hours");
  CHECK(m::in_words(180'400, m::Round::down) == "3 minutes");
  CHECK(m::in_words(180'400, m::Round::up) == "4 minutes");
  // A block from the cache never claims a second that has not passed.
  m::Down d{"svc", "echo", "Connection closed", state::FailureCode::transport(), 30'000};
  d.down_for_ms = 200;
  CHECK(m::blocked_from_cache(d).find("has been down for less than a second") != std::string::npos);
  d.down_for_ms = 1'900;
  CHECK(m::blocked_from_cache(d).find("has been down for 1 second ") != std::string::npos);
  CHECK(m::in_words(59'999, m::Round::down) == "59 seconds");
}

TEST_CASE("a probe that finds a server down says why, for how long, and what to do", "[messages]") {
  const std::string text = m::blocked_after_probe({"everything", "echo", "Connection closed", FailureCode::transport(), 30'000});
  CHECK(has(text, "\"everything\""));
  CHECK(has(text, "Connection closed"));
  CHECK(has(text, "echo was not called"));
  CHECK(has(text, "for the next 30 seconds"));
  CHECK(has(text, "Use other tools"));
  CHECK_FALSE(has(text, "until 2")); // no ISO instant the model cannot place
}

TEST_CASE("a traceback is cut to its last meaningful line", "[messages]") {
  const std::string text = m::blocked_after_probe({"py", "run",
      "Traceback (most recent call last):\n  File \"s.py\", line 1\nModuleNotFoundError: No module named 'x'",
      FailureCode::transport(), 30'000});
  CHECK(has(text, "ModuleNotFoundError: No module named 'x'"));
  CHECK_FALSE(has(text, "Traceback"));
}

TEST_CASE("a repeat block keeps the reason and says since when", "[messages]") {
  const std::string text = m::blocked_from_cache(
      {"ghost", "search", "spawn ghost-server ENOENT", FailureCode::transport(), 240'000, 180'000, 3});
  CHECK(has(text, "has been down for 3 minutes"));
  CHECK(has(text, "last error: spawn ghost-server ENOENT; 3 failures in a row"));
  CHECK(has(text, "search was not called"));
  CHECK(has(text, "for the next 4 minutes"));
  CHECK(has(text, "do not call \"ghost\" again before then"));
}

TEST_CASE("an unauthenticated server asks the user to run /mcp", "[messages]") {
  const std::string text = m::failed_and_marked_down({"github", "", "HTTP 401", FailureCode::http(401), 30'000});
  CHECK(has(text, "unauthenticated (HTTP 401)"));
  CHECK(has(text, "Ask the user to run /mcp"));
}

TEST_CASE("a rate limit says wait, and never mentions a reconnect", "[messages]") {
  const std::string text = m::failed_and_marked_down({"search", "", "HTTP 429", FailureCode::http(429), 60'000});
  CHECK(has(text, "rate limiting"));
  CHECK(has(text, "for the next 60 seconds"));
  CHECK(has(text, "retry after that"));
  CHECK_FALSE(has(text, "reconnect"));
}

TEST_CASE("a call the client gave up waiting for reads as a slow server, not a lost connection", "[messages]") {
  const std::string text = m::failed_and_marked_down(
      {"svc", "", "MCP server \"svc\" tool \"echo\" timed out after 1s", FailureCode::timeout(), 30'000});
  CHECK(has(text, "The MCP server \"svc\" answers slower than the client waits for a call: MCP server \"svc\" tool "
                  "\"echo\" timed out after 1s."));
  CHECK_FALSE(has(text, "not answering"));
  CHECK(has(m::failed_then_restored("svc", FailureCode::timeout()), "failed (timed out)"));
  CHECK(has(m::failed_then_restored("svc", FailureCode::transport()), "failed (connection lost)"));
}

TEST_CASE("a failure that could not be recorded promises no block", "[messages]") {
  const std::string text = m::failed_not_recorded({"svc", "", "HTTP 503", FailureCode::http(503)});
  CHECK(has(text, "failing on its side (HTTP 503)"));
  CHECK(has(text, "a few minutes"));
  CHECK_FALSE(has(text, "blocked"));
}

TEST_CASE("a server the reconnect command restored may be retried", "[messages]") {
  const std::string text = m::failed_then_restored("svc", FailureCode::http(503));
  CHECK(has(text, "restarted it"));
  CHECK(has(text, "can be retried now"));
}

TEST_CASE("a misconfigured server names the variable and who must set it", "[messages]") {
  const std::string text = m::blocked_misconfigured("api", "query", "API_KEY");
  CHECK(has(text, "${API_KEY}"));
  CHECK(has(text, "not set where Claude Code runs"));
  CHECK(has(text, "tell the user to set API_KEY"));
}

TEST_CASE("an input too large to check says what to do", "[messages]") {
  const std::string text = m::blocked_input_too_large("svc", "upload", "1048576");
  CHECK(has(text, "over 1048576 bytes"));
  CHECK(has(text, "smaller input"));
}

TEST_CASE("the session start note names each server with why and for how long", "[messages]") {
  using Note = m::SessionNote;
  const std::string text = m::session_start({{"bad", Note::Kind::down, "HTTP 503", 120'000},
                                             {"api", Note::Kind::misconfigured, "API_KEY", std::nullopt},
                                             {"gh", Note::Kind::needs_auth, "", std::nullopt}});
  CHECK(has(text, "\"bad\" is down (HTTP 503), next checked in 2 minutes"));
  CHECK(has(text, "\"api\" cannot start (${API_KEY} is not set"));
  CHECK(has(text, "\"gh\" needs authentication (ask the user to run /mcp)"));
  CHECK(has(text, "plan the work with other tools"));
}


TEST_CASE("under Claude Code, a server down as the session began is said to be gone for the session, not back soon",
          "[messages]") {
  using hook::messages::Client;
  using hook::messages::SessionNote;
  const std::vector<SessionNote> notes{{"wiki", SessionNote::Kind::rechecking, "connection refused", std::nullopt},
                                       {"db", SessionNote::Kind::down, "boom", 20'000}};
  Client claude_code;
  claude_code.down_at_start = Client::AtStart::drops_for_the_session;
  const std::string told = hook::messages::session_start(notes, claude_code);
  CHECK(told.find("unavailable for this session even once they are back") != std::string::npos);
  CHECK(told.find("run /mcp to reconnect them") != std::string::npos);
  CHECK(told.find("Claude Code does not start their tools for this session") != std::string::npos);
  CHECK(told.find("may work again in a moment") == std::string::npos);
  Client other;
  other.name = "Gemini CLI";
  CHECK(hook::messages::session_start(notes, other).find("may work again in a moment") != std::string::npos);
}

} // namespace test_messages
