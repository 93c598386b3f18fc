#include <mcphealth/util/secret_url.hpp>

#include <mcphealth/util/text.hpp>

namespace mcphealth::util {

std::string SecretUrl::shown() const {
  if (m_text.find("://") != std::string::npos) return redact_url(m_text);
  // Not a URL (`deploy:pw@host/mcp`, a scheme typed wrong): whatever stands before an `@` may be a password.
  const std::size_t at = m_text.rfind('@');
  return at == std::string::npos ? m_text : "***@" + m_text.substr(at + 1);
}

} // namespace mcphealth::util
