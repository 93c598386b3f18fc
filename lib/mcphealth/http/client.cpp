#include <mcphealth/http/client.hpp>

#include <cctype>
#include <charconv>
#include <ctime>
#include <sys/socket.h>

namespace mcphealth::http {

std::optional<std::string> Response::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return std::nullopt;
}

void Cancel::cancel() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_cancelled = true;
  if (m_fd >= 0) ::shutdown(m_fd, SHUT_RDWR);
}

bool Cancel::cancelled() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_cancelled;
}

void Cancel::attach(int fd) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_fd = fd;
  if (m_cancelled) ::shutdown(fd, SHUT_RDWR);
}

void Cancel::detach(int fd) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_fd == fd) m_fd = -1;
}

std::optional<std::int64_t> parse_retry_after(std::string_view value, std::int64_t now_ms) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  // Seconds: digits only. Anything past a century saturates there (the caller caps what it honours), so a huge
  // value never wraps into the past.
  constexpr std::int64_t k_saturated_ms = 100LL * 365 * 24 * 3600 * 1000;
  std::int64_t seconds = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ptr == value.data() + value.size() && value.front() != '-') {
    if (ec == std::errc::result_out_of_range || (ec == std::errc{} && seconds > k_saturated_ms / 1000)) return k_saturated_ms;
    if (ec == std::errc{}) return seconds * 1000;
  }
  // An HTTP date, IMF-fixdate form: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm tm{};
  const std::string text(value);
  const char* end = ::strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const std::int64_t at_ms = static_cast<std::int64_t>(::timegm(&tm)) * 1000;
  return at_ms > now_ms ? at_ms - now_ms : 0;
}

std::string no_proxy_list(const std::optional<std::string>& user_no_proxy) {
  std::string list = "localhost,127.0.0.0/8,::1";
  if (user_no_proxy && !user_no_proxy->empty()) {
    if (*user_no_proxy == "*") return "*";
    list = *user_no_proxy + "," + list;
  }
  return list;
}

std::optional<std::string> origin_of(std::string_view url, Userinfo userinfo) {
  const std::size_t colon = url.find("://");
  if (colon == std::string_view::npos) return std::nullopt;
  std::string scheme;
  for (char c : url.substr(0, colon)) scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "http" && scheme != "https") return std::nullopt;
  std::string_view authority = url.substr(colon + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    if (userinfo == Userinfo::refuse) return std::nullopt;
    authority.remove_prefix(at + 1);
  }
  if (authority.empty()) return std::nullopt;
  std::string_view host = authority;
  std::string_view port;
  if (host.front() == '[') { // an IPv6 literal
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    if (close + 1 < host.size()) {
      if (host[close + 1] != ':') return std::nullopt;
      port = host.substr(close + 2);
    }
    host = host.substr(0, close + 1);
  } else if (const std::size_t p = host.rfind(':'); p != std::string_view::npos) {
    port = host.substr(p + 1);
    host = host.substr(0, p);
  }
  if (host.empty() || port.find_first_not_of("0123456789") != std::string_view::npos || port.size() > 5) return std::nullopt;
  std::string out = scheme + "://";
  for (char c : host) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (port.empty()) return out + (scheme == "https" ? ":443" : ":80");
  return out + ":" + std::to_string(std::stoi(std::string(port)));
}

} // namespace mcphealth::http
