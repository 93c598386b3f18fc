#pragma once
// What each kind of outage means, one row per kind (ccache's Statistic table): the statuses it is, the signs that
// recognise it in a client's failure text, what a probe meeting it says of the server, what the model is told
// happened and what to do, the operator's hint, whether the reconnect command runs after it (and why not), and how
// its retry is timed. A new kind is one enum value and one row here: the probe, the classifier, the gate's plan,
// recovery and the wording all read the row, and a kind without a row does not compile.
#include <mcphealth/state/entry.hpp>

#include <cstddef>
#include <span>
#include <string_view>

namespace mcphealth::state {

/// The kinds of outage mcphealth tells apart, in the order of their rows (failure texts are tested in this order).
enum class Outage {
  unauthorized,    ///< HTTP 401: the server wants (another) token
  forbidden,       ///< HTTP 403: the token is not allowed
  rate_limited,    ///< HTTP 429
  unavailable,     ///< HTTP 503: overloaded or down for maintenance
  transport,       ///< no HTTP answer: refused, reset, closed, timed out
  timed_out,       ///< the client gave up waiting for a call (a server slower than it waits, or stuck)
  not_found,       ///< HTTP 404: nothing serves the URL's path
  refused_request, ///< HTTP 400, 405, 406: a live endpoint refusing a request it does not take
  server_error,    ///< another 5xx
  other_status,    ///< any other HTTP status
  none,            ///< no code recorded
};

/// How many kinds there are: the table's size, checked against the enum when it compiles.
inline constexpr std::size_t k_outage_kinds = static_cast<std::size_t>(Outage::none) + 1;

/// What a probe's request that met a kind's status says of the server.
enum class ProbeReads {
  down,       ///< down, or refusing everyone: recorded with the status as its code
  up,         ///< the endpoint lives: it refused a bare request, as a live MCP endpoint does
  token,      ///< up but wanting a token when the answer carries a Bearer challenge; without one, nothing a login
              ///< could use: down, the definition's own credentials refused
  token_or_up ///< up but wanting a token with a Bearer challenge; without one, up (a bare request refused)
};

/// What the model is advised to do.
enum class Advice {
  authenticate, ///< ask the user to authenticate the server in the agent
  wait,         ///< do other work and retry after the time given
  other_tools,  ///< use other tools and do not call the server again before then
};

/// Whether the reconnect command runs after a failure of this kind.
enum class AfterFailure { reconnect, no_reconnect };

/// How the retry of a failure of this kind is timed: the backoff alone, or at least the server's Retry-After.
enum class RetryTiming { backoff, retry_after };

/// One kind's meanings.
struct OutageRow {
  Outage kind;
  /// The kind in words, for stderr and traces: `rate limited`.
  std::string_view name;
  /// The statuses it is (none for a range, server_error and other_status, or no status at all); the first is the
  /// one its reason phrase and signs stand for.
  std::span<const int> statuses;
  /// The status's reason phrase (`Unauthorized`), lower case: `401 unauthorized` in a failure text is this kind.
  std::string_view reason_phrase;
  /// Words that mean this kind in a client's failure text, lower case, matched as whole words.
  std::span<const std::string_view> signs;
  /// What a probe that met this status says of the server.
  ProbeReads probe_reads;
  /// What happened, for the model: `rejected the call as unauthenticated`; empty = say the reason.
  std::string_view happened;
  Advice advice;
  /// What the operator does about it (`status`, `probe`); empty = nothing specific (for Advice::authenticate: the
  /// agent's own way, agent::Agent::authenticate, which this table cannot know).
  std::string_view hint;
  AfterFailure after_failure;
  /// Why no reconnect follows it (AfterFailure::no_reconnect), for `probe` and stderr: `a restart would burn the
  /// rate limit`.
  std::string_view why_no_reconnect;
  RetryTiming retry;

  /// The status its reason phrase and signs stand for; 0 for a range or no status.
  constexpr int status() const { return statuses.empty() ? 0 : statuses.front(); }
  /// True when a probe meeting it may find the server up but asking for a token (`needs-auth`).
  constexpr bool means_auth() const { return probe_reads == ProbeReads::token || probe_reads == ProbeReads::token_or_up; }
};

/// Every kind's row, in the order failure texts are tested against their signs.
std::span<const OutageRow> outage_table();

/// The kind of a recorded code.
Outage outage_of(const FailureCode& code);
/// The row of a kind.
const OutageRow& row_of(Outage kind);
/// The row of a recorded code.
inline const OutageRow& row_of(const FailureCode& code) { return row_of(outage_of(code)); }
/// The row of an HTTP status.
inline const OutageRow& row_of_status(int status) { return row_of(FailureCode::http(status)); }
/// The code recorded for a kind: its first status, transport, timeout, or none.
FailureCode code_of(Outage kind);

/// What a probe's request that met HTTP `status` says of the server: a success or a redirect is up, any other
/// status reads as its row says.
ProbeReads probe_reads_status(int status);

/// True for an outage a new token of the agent's can end: a 401 (unauthorized). A 403 is left out: whether a new
/// login changes what the server allows was not seen in a real agent.
bool refuses_the_agents_token(const FailureCode& code);

/// True when `e` is down for refusing the agent's token (refuses_the_agents_token) and its failed calls recorded
/// where the agent keeps its tokens: only a change there (a login, a token refresh) can make the
/// next call pass, since a probe carries no token.
bool waits_for_credentials(const ServerEntry& e);

/// True when `e` waits_for_credentials and one of its credential files changed at `changed_at`, after its last
/// check: the call is let through, to try the new token, whether its retry is due or not.
bool credentials_changed(const ServerEntry& e, const std::optional<FilesSeen>& seen);

} // namespace mcphealth::state
