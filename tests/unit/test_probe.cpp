#include "fakes.hpp"

#include <mcphealth/probe/pacer.hpp>
#include <mcphealth/probe/probe.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/child.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_probe {
namespace {
/// Answers every request with one canned response, and remembers the last request.
class CannedHttp final : public http::Client {
public:
  http::Response response;
  http::Request last;
  http::Response perform(const http::Request& request) override {
    last = request;
    return response;
  }
  std::optional<std::string> resolve_reference(const std::string& base, const std::string& reference) override {
    return testing::resolve_with_libcurl(base, reference);
  }
};

probe::ProbeResult probe_with(long status, std::vector<std::pair<std::string, std::string>> headers = {}) {
  testing::FakeClock clock;
  CannedHttp client;
  client.response.status = status;
  client.response.headers = std::move(headers);
  return probe::probe_http_liveness({util::SecretUrl("http://h/mcp"), "http", {{"A", "b"}}}, 1000, client, clock);
}
} // namespace

TEST_CASE("reachable statuses are healthy and 401/403 need auth", "[probe]") {
  for (long s : {200L, 201L, 202L, 204L, 301L, 302L, 303L, 304L, 307L, 308L, 400L, 405L, 406L}) {
    auto r = probe_with(s);
    CHECK(r.ok);
    CHECK(r.kind == probe::Kind::reachable);
    CHECK(r.http_status == static_cast<int>(s));
  }
  for (long s : {401L, 403L}) {
    auto r = probe_with(s);
    CHECK(r.ok);
    CHECK(r.kind == probe::Kind::needs_auth);
  }
}

TEST_CASE("a 401 to the Authorization header the definition sets is down: the client does not fall back to OAuth",
          "[probe]") {
  testing::FakeClock clock;
  CannedHttp client;
  client.response.status = 401;
  for (const char* name : {"Authorization", "authorization", "AUTHORIZATION"}) {
    const auto r = probe::probe_http_liveness({util::SecretUrl("http://h/mcp"), "http", {{name, "Bearer old"}}}, 1000,
                                              client, clock);
    CHECK_FALSE(r.ok);
    CHECK(r.kind == probe::Kind::http_status);
    CHECK(r.code == state::FailureCode::http(401));
    CHECK(r.reason.find("refuses the Authorization header the definition sets") != std::string::npos);
    CHECK(r.reason.find("old") == std::string::npos);
  }
  // Another header is not a token of the definition's: the server waits for a login.
  CHECK(probe::probe_http_liveness({util::SecretUrl("http://h/mcp"), "http", {{"X-Authorization-Hint", "x"}}}, 1000,
                                   client, clock)
            .kind == probe::Kind::needs_auth);
}

TEST_CASE("other statuses are down with their code, and only 429 and 503 carry Retry-After", "[probe]") {
  auto not_found = probe_with(404, {{"retry-after", "60"}});
  CHECK_FALSE(not_found.ok);
  CHECK(not_found.reason == "HTTP 404");
  CHECK(not_found.code == state::FailureCode::http(404)); // recovery reads its row: a 404 takes the reconnect
  CHECK_FALSE(not_found.retry_after_ms);
  auto busy = probe_with(503, {{"retry-after", "60"}});
  CHECK(busy.code == state::FailureCode::http(503));
  CHECK(busy.retry_after_ms == 60'000);
  auto limited = probe_with(429);
  CHECK(limited.code == state::FailureCode::http(429));
  CHECK_FALSE(limited.retry_after_ms);
}

TEST_CASE("a failure to connect is a transport failure with curl's reason", "[probe]") {
  testing::FakeClock clock;
  CannedHttp client;
  client.response.error = "connect ECONNREFUSED 127.0.0.1:3001";
  auto r = probe::probe_http_liveness({util::SecretUrl("http://h/mcp"), "http", {}}, 1000, client, clock);
  CHECK_FALSE(r.ok);
  CHECK(r.kind == probe::Kind::transport);
  CHECK(r.code == state::FailureCode::transport());
  CHECK(r.reason == "connect ECONNREFUSED 127.0.0.1:3001");
  client.response.timed_out = true;
  client.response.error = "request timed out";
  CHECK(probe::probe_http_liveness({util::SecretUrl("http://h/mcp"), "http", {}}, 1000, client, clock).kind == probe::Kind::timeout);
}

TEST_CASE("the probe sends the configured headers and stops at the status", "[probe]") {
  testing::FakeClock clock;
  CannedHttp client;
  client.response.status = 200;
  probe::probe_http_liveness({util::SecretUrl("http://h/mcp"), "http", {{"Authorization", "Bearer x"}}}, 750, client, clock);
  CHECK(client.last.method == "GET");
  CHECK(client.last.timeout_ms == 750);
  CHECK(client.last.headers[0].second == "Bearer x");
  REQUIRE(client.last.on_body);
  CHECK_FALSE(client.last.on_body("data: {}\n", http::Response{}));
}

TEST_CASE("a stdio probe reports a missing command without spawning", "[probe]") {
  testing::FakeClock clock;
  config::StdioServer server;
  server.command = "nope";
  auto r = probe::probe_stdio_liveness(server, 100, {}, clock);
  CHECK(r.kind == probe::Kind::spawn_failed);
  CHECK(r.reason == "spawn nope ENOENT");
}

TEST_CASE("the start pacer lets as many start together as the budget holds once a start's cost is seen",
          "[probe][pacer]") {
  util::SystemClock clock;
  probe::StartPacer pacer(1);
  pacer.allow_backlog(2000, 2);
  CHECK(pacer.capacity() == 1); // no start seen yet: the slots alone
  {
    probe::StartPacer::Ticket first = pacer.enter();
    // A start that takes some CPU, then waits as a server does for its client.
    auto child = proc::spawn({"/bin/sh", {"-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; exec sleep 5"},
                              std::nullopt, {}});
    REQUIRE(child);
    first.started((*child)->pid());
    clock.sleep_ms(150);
    const auto cpu = platform::group_cpu((*child)->pid());
    first.answered();
    if (cpu) {
      const std::int64_t cost = std::max<std::int64_t>(cpu->on_cpu_ms, 20);
      // As many as 2 cores get through in 2 s at that cost (the CPU read a moment later may be a tick more).
      CHECK(pacer.capacity() > 1);
      CHECK(pacer.capacity() <= static_cast<std::size_t>(2000 / cost) * 2);
    } else {
      CHECK(pacer.capacity() == 1); // the portable build: no start's cost is known
    }
    CHECK(pacer.free_slots() == pacer.capacity()); // the answered start holds no slot
    (*child)->terminate_group(1000, clock);
  }
  probe::StartPacer no_budget(3);
  {
    probe::StartPacer::Ticket t = no_budget.enter();
    t.answered();
  }
  CHECK(no_budget.capacity() == 3);
}

TEST_CASE("the start pacer hands a waiting server's slot on, and keeps a busy one's", "[probe][pacer]") {
  util::SystemClock clock;
  auto start = [](std::vector<std::string> args) {
    auto child = proc::spawn({"/bin/sh", std::move(args), std::nullopt, {}});
    REQUIRE(child);
    return std::move(*child);
  };
  probe::StartPacer pacer(1);
  {
    probe::StartPacer::Ticket waiting = pacer.enter();
    CHECK(pacer.free_slots() == 0);
    auto sleeper = start({"-c", "exec sleep 5"});
    waiting.started(sleeper->pid());
    // It takes no CPU: within a few ticks its slot is free for the next server, though its probe goes on. Where a
    // group's CPU is not known (the portable build), the slot is held until the probe ends.
    const std::size_t freed = platform::group_cpu(sleeper->pid()) ? 1 : 0;
    for (int i = 0; i < 100 && pacer.free_slots() == 0; ++i) clock.sleep_ms(10);
    CHECK(pacer.free_slots() == freed);
    sleeper->terminate_group(1000, clock);
  }
  {
    probe::StartPacer::Ticket busy = pacer.enter();
    auto spinner = start({"-c", "while :; do :; done"});
    busy.started(spinner->pid());
    clock.sleep_ms(400);
    CHECK(pacer.free_slots() == 0); // busy in a loop of its own: it keeps its slot
    spinner->terminate_group(1000, clock);
  }
  CHECK(pacer.free_slots() == 1); // a ticket dropped gives its slot back
}

} // namespace test_probe
