#pragma once
// A URL from a server's definition: it may carry credentials (`http://deploy:S3CR3T@host/mcp`, `?token=...`), so it
// has no conversion to text but a redacted one. Only the transport reads it whole; every reason, message, record
// and listing gets `shown()`, so a password cannot reach the model, a log or the state file by an oversight: such
// code does not compile.
#include <string>
#include <string_view>

namespace mcphealth::util {

class SecretUrl {
public:
  SecretUrl() = default;
  explicit SecretUrl(std::string text) : m_text(std::move(text)) {}

  /// The URL fit to show: userinfo as `***@`, query values and the fragment as `***` (util::redact_url); a text
  /// that does not parse as a URL loses everything before an `@` too.
  std::string shown() const;
  /// The whole URL, for the one place that sends to it (the HTTP client) and for comparing origins.
  const std::string& for_transport() const { return m_text; }

  bool empty() const { return m_text.empty(); }
  friend bool operator==(const SecretUrl& a, const SecretUrl& b) { return a.m_text == b.m_text; }
  friend bool operator!=(const SecretUrl& a, const SecretUrl& b) { return a.m_text != b.m_text; }

private:
  std::string m_text;
};

} // namespace mcphealth::util
