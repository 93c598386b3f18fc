#pragma once
// Probing one server: the result type every transport returns, and the seam the hook and `probe` call through,
// so their logic is tested with a fake prober and real probes are tested against real processes.
#include <mcphealth/config/server.hpp>
#include <mcphealth/config/settings.hpp>
#include <mcphealth/http/client.hpp>
#include <mcphealth/mcp/handshake.hpp>
#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/state/entry.hpp>
#include <mcphealth/state/health.hpp>
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::probe {

class StartPacer;

/// What a probe saw.
enum class Kind {
  answered,       // spoke MCP
  alive_silent,   // a stdio process still running at the timeout without an MCP answer
  reachable,      // an HTTP endpoint answered with a status that means "up"
  needs_auth,     // 401, or 403 with a Bearer challenge: up, but the token is the client's business
  exited,         // a stdio process exited first
  spawn_failed,   // could not start the command
  timeout,        // no answer in time
  http_status,    // an HTTP status that means "down"
  transport,      // connection refused, DNS or TLS failure
  protocol_error, // answered, but not with MCP (or with a JSON-RPC error)
  unsupported,    // the definition is neither stdio nor HTTP
  misconfigured,  // Claude Code refuses the definition (an unset ${VAR} without a default): not started, not probed
  not_probed,     // this machine cannot run such a probe (no libcurl): no verdict either way
  local_fault,    // this machine could not run this probe now (no descriptors, memory, processes or threads): our
                  // fault, never the server's verdict; nothing is recorded
  skipped,        // the policy says not to probe this server (`probe: skip`): no verdict either way
  check_failed,   // answered its own probe, but the check the user declares for it failed (config::CheckSpec)
};

/// Returns the kebab-case name of `kind`, as written to JSON: `alive-silent`, `spawn-failed`, ...
std::string kind_name(Kind kind);
/// The kind whose name is `name`, as read back from JSON; nothing for a name no kind has (another writer's).
std::optional<Kind> kind_from_name(std::string_view name);

/// True for an errno that says this machine is out of something (EMFILE, ENFILE, ENOMEM, EAGAIN, ENOSPC for
/// epoll): a probe that meets it learned nothing of the server.
bool is_local_fault(int error);

/// A result that says the probe could not run here (Kind::local_fault): `what` failed with `error`.
struct ProbeResult;
ProbeResult local_fault(std::string_view what, int error);

/// Whether a process group still silent at its deadline was denied the CPU for much of its window (a quarter of
/// it, and at least 100 ms, spent runnable but waiting): then its silence says nothing of the server, and the
/// result is a local fault ("a busy CPU"), not alive. Nothing when it had its share, when its own processes spent
/// half the window on a CPU (a server busy in a loop of its own: its silence is its verdict), or it cannot be known.
std::optional<ProbeResult> starved_of_cpu(pid_t group, std::int64_t window_ms);

/// True when `kind` gives no verdict to record: not probed, a local fault, or skipped by policy.
bool gives_no_verdict(Kind kind);

/// Whether a probe's PATH is the one the agent starts its servers with: inside a session, or outside one with the
/// PATH the agent's hook recorded (state::HookSeen); `unknown` outside a session before any hook recorded one.
enum class PathOrigin { agents, unknown };

/// With the agent's PATH unknown (a probe from cron, whose PATH is /usr/bin:/bin): a stdio server whose bare
/// command is not on this PATH is not the server's verdict (the agent's PATH may well hold it), so it is not
/// probed and nothing is recorded; this says why. Nothing for any other server, or with the agent's PATH.
std::optional<ProbeResult> not_on_this_path(const config::ResolvedServer& server, PathOrigin origin,
                                            const std::string& path);

struct ProbeResult;

/// How a result reads in the one vocabulary (state/health.hpp): healthy (answered), reachable, needs-auth,
/// alive-silent (all up), unhealthy, misconfigured (down), or not-probed (no verdict).
state::Health health_of(const ProbeResult& result);

/// The outcome of one probe.
struct ProbeResult {
  bool ok = false;
  Kind kind = Kind::unsupported;
  /// Why it failed (or a note on success): `HTTP 503`, `spawn foo ENOENT`, ...
  std::string reason;
  /// The failure code recorded as `lastFailureCode`.
  state::FailureCode code;
  std::optional<int> http_status;
  /// How a stdio server that exited ended: `3` (its exit code) or `SIGSEGV`.
  std::optional<std::string> exit_status;
  /// From `Retry-After`, in milliseconds from now.
  std::optional<std::int64_t> retry_after_ms;
  std::int64_t latency_ms = 0;
  /// For a stdio server: the CPU time its start used, from start to the probe's end (proc::Child::cpu_ms); nothing
  /// where it is not known. What a look at it costs the machine.
  std::optional<std::int64_t> cpu_ms;
  std::optional<std::string> protocol_version;
  std::optional<std::string> server_name;
  std::optional<std::string> server_version;
  std::optional<std::int64_t> tool_count;
  /// With a declared check: whether it passed (its words are in `reason` when it failed). Nothing: none ran.
  std::optional<bool> check_passed;
  /// With needs-auth: what the server said of the credentials (see mcp::CallOutcome::auth_error).
  std::optional<std::string> auth_error;
  /// How it answered: `stdio`, `streamable-http` or `sse` (set only with an MCP answer).
  std::optional<std::string> via;

  /// The `probe` object stored in a state entry: kind, latency and whichever details are known.
  state::ProbeDetails details() const;
};

/// How deep a probe goes: `liveness` (a process stays up, an endpoint answers HTTP), `handshake` (only an MCP answer
/// or needs-auth is healthy), `automatic` (a handshake that returns as soon as the server answers; a stdio process
/// alive but silent at the timeout is healthy as alive-silent; HTTP without an MCP answer falls back to status
/// classes).
enum class Depth { liveness, handshake, automatic };

/// The HTTP transports a probe can have answered over, as its details (`via`) name them.
inline constexpr std::string_view k_via_sse = "sse";
inline constexpr std::string_view k_via_streamable_http = "streamable-http";

/// What the last probe of a definition learned about how it answers: tried first next time, with the usual
/// fallback when it stops answering that way.
struct LearnedMethod {
  enum class Era { unknown, modern, legacy };
  enum class Http { unknown, streamable, sse };
  Era era = Era::unknown;
  Http http = Http::unknown;
};

/// Reads what the last MCP answer recorded in a state entry (`probe.protocolVersion`, `probe.via`) says.
LearnedMethod learned_from(const boost::json::object* entry);

/// A declared check's tool call (config::CheckSpec::Kind::tool), made after the handshake on the same connection.
struct ToolCheck {
  std::string name;
  boost::json::object arguments;
};

/// How to probe.
struct ProbeOptions {
  Depth depth = Depth::automatic;
  mcp::Protocol protocol = mcp::Protocol::automatic;
  /// Used only under `automatic`: a legacy era starts with initialize, an SSE server with its GET stream.
  LearnedMethod learned;
  /// Under `automatic`: a stdio server still running but silent at the timeout is a timeout (down), not
  /// alive-silent, because the timeout is the client's own (config::Settings::silence_fails).
  bool silence_fails = false;
  /// In a batch: what paces the starts of local servers (probe/pacer.hpp); nothing: start at once.
  class StartPacer* pacer = nullptr;
  /// The probe's place in that batch's order.
  std::size_t pace_order = 0;
  /// A tool check to make once the server answered (set by LiveProber from ProbeSpec::check).
  const ToolCheck* tool_check = nullptr;
};

/// How to probe one server, and for how long.
struct ProbeSpec {
  std::int64_t timeout_ms = 0;
  ProbeOptions options;
  /// How long its last probe took (its verdict's latency), when known: a batch starts the slowest first, so a
  /// server that waits out its timeout does not start last.
  std::int64_t expected_ms = 0;
  /// The check the user declares for the server (config::Settings::check): run after its own probe passes, and
  /// the look passes only when both do.
  std::optional<config::CheckSpec> check;
};

/// The probe a server's settings ask for: its timeout, depth and protocol (`probe: skip` is decided before any
/// probe, and probes as `auto` if asked), and what its last verdict `entry` learned, when the protocol is `auto`.
ProbeSpec spec_of(const config::Settings& settings, const boost::json::object* entry = nullptr);

/// Probes a resolved server. An interface so the hook's decisions are tested without processes or sockets.
class Prober {
public:
  virtual ~Prober() = default;
  /// Probes `server` as `spec` says, taking at most about `spec.timeout_ms`.
  virtual ProbeResult probe(const config::ResolvedServer& server, const ProbeSpec& spec) = 0;
};

/// Probes for real: processes for stdio servers, HTTP requests for remote ones.
class LiveProber final : public Prober {
public:
  /// `http` is the HTTP client to use; nothing = libcurl, loaded the first time an HTTP server is probed.
  explicit LiveProber(util::Clock& clock, http::Client* http = nullptr) : m_clock(clock), m_http(http) {}
  ProbeResult probe(const config::ResolvedServer& server, const ProbeSpec& spec) override;

private:
  ProbeResult probe_transport(const config::ResolvedServer& server, const ProbeSpec& spec);
  /// The HTTP client, loaded the first time; nothing when libcurl cannot be loaded.
  http::Client* http_client();
  util::Clock& m_clock;
  http::Client* m_http;
};

/// Probes a stdio server at the given depth. The process group is gone afterwards.
ProbeResult probe_stdio(const config::StdioServer& server, std::int64_t timeout_ms, const ProbeOptions& options,
                        util::Clock& clock);

/// Probes an HTTP server at the given depth: Streamable HTTP, then legacy HTTP+SSE when the POST is refused with
/// 400, 404 or 405.
ProbeResult probe_http(const config::HttpServer& server, std::int64_t timeout_ms, const ProbeOptions& options,
                       http::Client& client, util::Clock& clock);

/// Liveness of an HTTP server: a GET with the configured headers, its status read as the outage table says
/// (state::probe_reads_status): a success, a redirect or a refusal a live endpoint gives a bare GET is up; a status
/// that may want a token (401, 403) is `needs-auth`, without looking for a challenge; any other is down with its
/// code (and Retry-After where its row waits for one); failures to connect are transport failures.
ProbeResult probe_http_liveness(const config::HttpServer& server, std::int64_t timeout_ms, http::Client& client,
                                util::Clock& clock);

/// Liveness of a stdio server: healthy when the process is still running at the timeout; unhealthy when it exits
/// first (reason: its stderr, else the exit status) or cannot be started. The process group is gone afterwards.
ProbeResult probe_stdio_liveness(const config::StdioServer& server, std::int64_t timeout_ms,
                                 const ProbeOptions& options, util::Clock& clock);

/// Fills `r` as a healthy `answered` result from a handshake that got an answer `via` a transport.
void take_answer(const mcp::HandshakeResult& handshake, std::string via, ProbeResult& r);

/// The protocol a handshake starts with: the asked one, except that under `automatic` a definition whose last
/// answer was legacy starts with initialize (a legacy server never meets server/discover, which may stall it).
mcp::Protocol first_protocol(const ProbeOptions& options);

/// The reason for a JSON-RPC error answer: `initialize failed: <message> (<code>)`.
std::string protocol_error_reason(const mcp::CallOutcome& failure);

/// Runs `server`'s declared `check` (command or url; a tool check runs inside the probe), taking at most about
/// `timeout_ms`, and returns what it said when it failed, nothing when it passed. `{server}` in its words becomes
/// the definition's name. `http` is asked for a url check only (loading libcurl then).
struct CheckFailure {
  std::string why;
  /// A url check's status, when one came back.
  std::optional<int> http_status = std::nullopt;
  /// The check could not run here (its program not on this PATH, no libcurl, a name refused): this machine's fault,
  /// never the server's verdict, so nothing is recorded (Kind::not_probed).
  bool not_run = false;
};
std::optional<CheckFailure> run_check(const config::CheckSpec& check, const config::ResolvedServer& server,
                                      std::int64_t timeout_ms, const std::function<http::Client*()>& http,
                                      util::Clock& clock);

/// `r`, a passing probe, after its declared check: passed, or failed (Kind::check_failed, its code and words) when
/// `failure` says why.
void take_check(const config::CheckSpec& check, const std::optional<CheckFailure>& failure, ProbeResult& r);

/// The outcome of a tool check's `tools/call`: nothing when it passed, else why not (its text is never kept).
std::optional<std::string> tool_check_failure(const mcp::CallOutcome& called);

/// Notes a tool check's outcome on `r` (check_passed, and its words in `reason` when it failed); LiveProber then
/// reads it as take_check does.
void take_tool_check(const mcp::CallOutcome& called, ProbeResult& r);

/// The most of a server's stderr kept for a reason.
inline constexpr std::size_t k_max_stderr_bytes = 4000;

} // namespace mcphealth::probe
