#pragma once
// What each kind of outage means, one row per kind (ccache's Statistic table): the signs that recognise it in a
// client's failure text, the health a probe's status of it means, what the model is told happened and what to do,
// the operator's hint, whether the reconnect command runs after it, and how its retry is timed. A new kind is one
// enum value and one row here; the code that words, classifies, reconnects or backs off reads the row.
#include <mcphealth/state/entry.hpp>

#include <span>
#include <string_view>

namespace mcphealth::state {

/// The kinds of outage mcphealth tells apart.
enum class Outage {
  unauthorized, ///< HTTP 401: the server wants (another) token
  forbidden,    ///< HTTP 403: the token is not allowed
  rate_limited, ///< HTTP 429
  not_found,    ///< HTTP 404: nothing serves the URL's path
  unavailable,  ///< HTTP 503: overloaded or down for maintenance
  server_error, ///< another 5xx
  other_status, ///< any other HTTP status
  transport,    ///< no HTTP answer: refused, reset, closed, timed out
  none,         ///< no code recorded
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
  /// The status it is (0 for none, or for a range: server_error, other_status).
  int status;
  /// The status's reason phrase (`Unauthorized`), lower case: `401 unauthorized` in a failure text is this kind.
  std::string_view reason_phrase;
  /// Words that mean this kind in a client's failure text, lower case, matched as whole words.
  std::span<const std::string_view> signs;
  /// A probe that met this status found the server up but asking for a token (`needs-auth`), not down.
  bool means_auth;
  /// What happened, for the model: `rejected the call as unauthenticated`; empty = say the reason.
  std::string_view happened;
  Advice advice;
  /// What the operator does about it (`status`, `probe`); empty = nothing specific (for Advice::authenticate: the
  /// agent's own way, agent::Agent::authenticate, which this table cannot know).
  std::string_view hint;
  AfterFailure after_failure;
  RetryTiming retry;
};

/// Every kind's row, in the order failure texts are tested against their signs.
std::span<const OutageRow> outage_table();

/// The kind of a recorded code.
Outage outage_of(const FailureCode& code);
/// The row of a kind.
const OutageRow& row_of(Outage kind);
/// The row of a recorded code.
inline const OutageRow& row_of(const FailureCode& code) { return row_of(outage_of(code)); }

} // namespace mcphealth::state
