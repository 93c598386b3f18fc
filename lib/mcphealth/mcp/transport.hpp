#pragma once
// One MCP connection as the handshake sees it: send a request and wait for its answer until a deadline, send a
// notification, close. Stdio and HTTP implement it; unit tests script it.
#include <mcphealth/util/clock.hpp>

#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::mcp {

/// The outcome of one request.
struct CallOutcome {
  enum class Status {
    result,    // the server answered with a result
    rpc_error, // the server answered with a JSON-RPC error
    timeout,   // no answer before the deadline
    closed,    // the server went away (a stdio process exited)
    failed,    // the request itself failed (HTTP status, connection refused, ...)
  };
  Status status = Status::failed;
  boost::json::object result;
  std::int64_t error_code = 0;
  std::string error_message;
  /// The JSON-RPC error's `data`, when it had one (a -32022 lists the supported versions there).
  boost::json::value error_data;
  /// Why, for `closed` and `failed`: the process's stderr or exit status, `HTTP 503`, `connect ECONNREFUSED ...`.
  std::string reason;
  std::optional<int> http_status;
  std::optional<std::int64_t> retry_after_ms;
  /// A `WWW-Authenticate: Bearer` challenge came with the status.
  bool bearer_challenge = false;
  /// The challenge names where the server's OAuth metadata is (`resource_metadata="..."`).
  bool names_oauth_metadata = false;
  /// With a 401 or 403: what the server said of the credentials (an OAuth error body's `error_description`, else
  /// its `error`, else the challenge's `error_description`); empty when it said nothing.
  std::string auth_error;
  /// For `failed`: no connection was made or it broke (as opposed to an HTTP status).
  bool transport_failure = false;
  bool timed_out = false;
  /// For a timeout over HTTP: a connection was made first (the server is there, and slow).
  bool connected = false;
  /// For `failed`: the server broke the protocol (an event stream past its limits): not MCP, whatever its status.
  bool protocol_violation = false;
};

/// The outcome of a request that got no answer before its deadline.
CallOutcome no_answer_in_time(std::string_view method);

/// The outcome a response message (with `result` or `error`) carries.
CallOutcome outcome_of_response(const boost::json::object& response);

/// A connection to one MCP server.
class Transport {
public:
  virtual ~Transport() = default;
  /// Sends request `method` and waits until `deadline` for the response; requests from the server meanwhile are
  /// answered (`ping` with `{}`, anything else with -32601) and notifications skipped.
  virtual CallOutcome call(std::string_view method, const boost::json::object& params, util::EpochMs deadline) = 0;
  /// The answer to the last request of `method` that timed out, when it has arrived since (only a stream keeps
  /// such answers: stdio does, HTTP cannot). A server that starts slowly answers a first request after its
  /// deadline; this lets the handshake still hear that answer once a later one comes back.
  virtual std::optional<CallOutcome> late_answer(std::string_view method) {
    (void)method;
    return std::nullopt;
  }
  /// Sends a notification.
  virtual void notify(std::string_view method, const boost::json::object& params, util::EpochMs deadline) = 0;
  /// Records the negotiated protocol version (HTTP sends it as `MCP-Protocol-Version` from then on).
  virtual void set_protocol_version(const std::string& version) { (void)version; }
  /// Ends the connection (stdio: close stdin, wait briefly, end the process group; HTTP: DELETE the session).
  virtual void close() = 0;
};

} // namespace mcphealth::mcp
