#include <mcphealth/mcp/http_common.hpp>

#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

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

/// The value of `key="..."` in a WWW-Authenticate challenge, if there.
std::string challenge_param(std::string_view challenge, std::string_view key) {
  const std::string needle = std::string(key) + "=\"";
  const std::size_t at = challenge.find(needle);
  if (at == std::string_view::npos) return {};
  const std::size_t from = at + needle.size();
  const std::size_t to = challenge.find('"', from);
  return std::string(challenge.substr(from, to == std::string_view::npos ? std::string_view::npos : to - from));
}

/// What a 401 or 403 says of the credentials (see CallOutcome::auth_error).
std::string auth_error_of(const http::Response& response, std::string_view body_text) {
  if (auto body = util::parse_json(body_text); body && body->is_object()) {
    for (const char* key : {"error_description", "error"}) {
      if (auto v = util::get_string(body->as_object(), key); v && !v->empty()) return util::cap_utf8(*v, 1000);
    }
  }
  if (auto v = response.header("www-authenticate")) return util::cap_utf8(challenge_param(*v, "error_description"), 1000);
  return {};
}

} // namespace

bool is_event_stream(const http::Response& r) {
  auto type = r.header("content-type");
  return type && starts_with_ci(*type, "text/event-stream");
}

std::int64_t time_left(util::EpochMs deadline, util::Clock& clock) {
  return std::max<std::int64_t>(1, deadline - clock.now_ms());
}

CallOutcome http_failure(const http::Response& response, util::EpochMs now, std::optional<std::string_view> body) {
  CallOutcome out;
  out.status = CallOutcome::Status::failed;
  if (!response.has_status()) {
    out.transport_failure = true;
    out.timed_out = response.timed_out;
    out.connected = response.connected;
    out.reason = response.error;
    return out;
  }
  out.http_status = static_cast<int>(response.status);
  out.reason = "HTTP " + std::to_string(response.status);
  if (auto v = response.header("retry-after")) out.retry_after_ms = http::parse_retry_after(*v, now);
  if (auto v = response.header("www-authenticate")) {
    out.bearer_challenge = starts_with_ci(*v, "bearer");
    out.names_oauth_metadata = v->find("resource_metadata") != std::string::npos;
  }
  if (response.status == 401 || response.status == 403) out.auth_error = auth_error_of(response, body.value_or(response.body));
  return out;
}

} // namespace mcphealth::mcp
