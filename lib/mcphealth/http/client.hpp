#pragma once
// HTTP behind a seam. The real client is libcurl, loaded with dlopen the first time an HTTP request is made: a
// linked libcurl (37 shared libraries) would cost every hook run ~20 ms of start-up, HTTP server or not.
#include <mcphealth/util/secret_url.hpp>

#include <mcphealth/util/result.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcphealth::http {

struct Response;

/// Lets another thread end a transfer at once: it shuts down the transfer's socket, which libcurl then sees as the
/// end of the stream. Without it a quiet SSE stream would hold its thread until the timeout.
class Cancel {
public:
  /// Ends the transfer now (and any later one using this token).
  void cancel();
  /// True once cancel() was called.
  bool cancelled() const;
  /// Called by the client when it opens and closes the transfer's socket.
  void attach(int fd);
  void detach(int fd);

private:
  mutable std::mutex m_mutex;
  int m_fd = -1;
  bool m_cancelled = false;
};

/// One request.
struct Request {
  std::string method = "GET";
  util::SecretUrl url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::int64_t timeout_ms = 5000;
  /// Receives body bytes as they arrive, with the status and headers so far; returning false stops the transfer,
  /// which then counts as complete. Without it the body is collected into `Response::body` (up to 1 MiB).
  std::function<bool(std::string_view chunk, const Response& so_far)> on_body;
  /// Optional: lets another thread end the transfer.
  std::shared_ptr<Cancel> cancel;
};

/// What came back: a status (and headers, body), or why there is none.
struct Response {
  /// The HTTP status, 0 when the request failed before one arrived.
  long status = 0;
  /// Header names lower-cased, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// Why the request failed: `connect ECONNREFUSED 127.0.0.1:3001`, `request timed out`, `TLS: ...`.
  std::string error;
  bool timed_out = false;
  /// True when a connection to the server was made (a timeout after it is a slow server, not an absent one).
  bool connected = false;

  /// True when a status arrived.
  bool has_status() const { return status > 0; }
  /// True for a 2xx status.
  bool succeeded() const { return status >= 200 && status < 300; }
  /// The status line's code as it arrived (set before the body is delivered).
  long status_so_far = 0;

  /// Returns the first header called `name` (lower-case), if any.
  std::optional<std::string> header(std::string_view name) const;
};

/// Performs HTTP requests. An interface so probe logic is tested without sockets.
class Client {
public:
  virtual ~Client() = default;
  /// Performs `request`, blocking until it completes, fails, is stopped by `on_body` or times out.
  virtual Response perform(const Request& request) = 0;
  /// Resolves URL `reference` (absolute, `//host/path`, `/path`, `path`, `?query`) against `base` as RFC 3986
  /// says, with the same URL parser that performs the requests; nothing when either does not parse.
  virtual std::optional<std::string> resolve_reference(const std::string& base, const std::string& reference) = 0;
};

/// The origin of an absolute http(s) URL, as a browser compares them: `scheme://host:port`, lower-case, with the
/// scheme's default port filled in; nothing for another scheme, a URL without a host, or one with userinfo
/// (`http://user@host/`: a credential, or a trick to make one host read as another) unless `userinfo` is `ignore`
/// (for a URL the user configured, whose userinfo is theirs).
enum class Userinfo { refuse, ignore };
std::optional<std::string> origin_of(std::string_view url, Userinfo userinfo = Userinfo::refuse);

/// Returns the process-wide libcurl client, loading libcurl on first use; why not when it cannot be loaded.
util::Result<Client*> curl_client();

/// Parses a `Retry-After` value (delay seconds or an HTTP date) into milliseconds from `now_ms`; nothing when it is
/// neither. A date in the past gives 0; a delay past a century (or past what 64 bits hold) saturates at a century,
/// never wraps.
std::optional<std::int64_t> parse_retry_after(std::string_view value, std::int64_t now_ms);

/// The `no_proxy` list libcurl is given: the user's own (`no_proxy`/`NO_PROXY`) plus every loopback address, so a
/// probe of a local server never goes through a proxy.
std::string no_proxy_list(const std::optional<std::string>& user_no_proxy);

} // namespace mcphealth::http
