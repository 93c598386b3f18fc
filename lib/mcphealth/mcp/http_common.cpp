#include <mcphealth/mcp/http_common.hpp>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace mcphealth::mcp {

namespace {

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

} // namespace

bool is_event_stream(const http::Response& r) {
  auto type = r.header("content-type");
  return type && starts_with_ci(*type, "text/event-stream");
}

std::int64_t time_left(util::EpochMs deadline, util::Clock& clock) {
  return std::max<std::int64_t>(1, deadline - clock.now_ms());
}

CallOutcome http_failure(const http::Response& response, util::EpochMs now) {
  CallOutcome out;
  out.status = CallOutcome::Status::failed;
  if (!response.has_status()) {
    out.transport_failure = true;
    out.timed_out = response.timed_out;
    out.reason = response.error;
    return out;
  }
  out.http_status = static_cast<int>(response.status);
  out.reason = "HTTP " + std::to_string(response.status);
  if (auto v = response.header("retry-after")) out.retry_after_ms = http::parse_retry_after(*v, now);
  if (auto v = response.header("www-authenticate")) out.bearer_challenge = starts_with_ci(*v, "bearer");
  return out;
}

} // namespace mcphealth::mcp
