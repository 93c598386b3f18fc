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

} // namespace mcphealth::http
