// Codex CLI fires no hook for a failed call; its rollout file (the session's record, which every payload names as
// `transcript_path`) does say. Read from its end, a bounded amount, on each PreToolUse of a Codex session.
#include <mcphealth/agent/codex.hpp>

#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/unique_fd.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mcphealth::agent {

namespace json = boost::json;

namespace {

/// What the last `window` bytes of a rollout say of `server`'s last call.
enum class Found { failed, succeeded, nothing };

Found scan(std::string_view tail, bool cut, std::string_view server, hook::MissedFailure& missed) {
  // Only lines that name an MCP call are parsed: found with memmem (most lines are other events), last first.
  constexpr std::string_view k_marker = "\"McpToolCall\"";
  std::vector<std::size_t> at;
  for (const char* p = tail.data();
       const void* hit =
           ::memmem(p, static_cast<std::size_t>(tail.data() + tail.size() - p), k_marker.data(), k_marker.size());) {
    at.push_back(static_cast<std::size_t>(static_cast<const char*>(hit) - tail.data()));
    p = static_cast<const char*>(hit) + k_marker.size();
  }
  for (auto it = at.rbegin(); it != at.rend(); ++it) {
    const std::size_t nl = tail.rfind('\n', *it);
    if (nl == std::string_view::npos && cut) break; // the line began before the window
    const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    const std::size_t end = std::min(tail.find('\n', *it), tail.size());
    const std::string_view line = tail.substr(begin, end - begin);
    util::JsonParse parsed = util::parse_json(line);
    if (!parsed || !parsed->is_object()) continue;
    const json::object& record = parsed->get_object();
    const json::object* payload = util::get_object(record, "payload");
    const json::object* item = payload ? util::get_object(*payload, "item") : nullptr;
    if (item == nullptr || util::get_string(*payload, "type") != std::optional<std::string>("item_completed") ||
        util::get_string(*item, "type") != std::optional<std::string>("McpToolCall")) {
      continue;
    }
    if (codex_tool_server(util::get_string(*item, "server").value_or("")) != server) continue;
    // The last call to that server decides: a success after a failure means it is back.
    if (util::get_string(*item, "status") != std::optional<std::string>("failed")) return Found::succeeded;
    if (const json::object* error = util::get_object(*item, "error")) missed.text = util::get_string(*error, "message").value_or("");
    const std::optional<util::EpochMs> at = util::parse_iso8601_ms(util::get_string(record, "timestamp").value_or(""));
    if (!at) return Found::succeeded; // no time: it cannot be told from a failure already counted
    missed.ended_at_ms = *at;
    if (const json::object* d = util::get_object(*item, "duration")) {
      missed.duration_ms = util::get_int(*d, "secs").value_or(0) * 1000 + util::get_int(*d, "nanos").value_or(0) / 1'000'000;
    }
    return Found::failed;
  }
  return Found::nothing;
}

} // namespace

std::optional<hook::MissedFailure> last_failure_in_rollout(const std::filesystem::path& file, std::string_view server,
                                                           std::size_t max_bytes) {
  const util::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return std::nullopt;
  const auto size = static_cast<std::size_t>(st.st_size);
  // The last call is usually near the end: a small window first, four times larger each time it says nothing.
  for (std::size_t window = std::min<std::size_t>(16 * 1024, max_bytes);; window = std::min(window * 4, max_bytes)) {
    const std::size_t from = size > window ? size - window : 0;
    const std::size_t want = size - from;
    const std::unique_ptr<char[]> buffer(new char[want]); // not zeroed: every byte used is read
    std::size_t got = 0;
    while (got < want) {
      const ssize_t n = ::pread(fd.get(), buffer.get() + got, want - got, static_cast<off_t>(from + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    hook::MissedFailure missed;
    switch (scan(std::string_view(buffer.get(), got), from > 0, server, missed)) {
    case Found::failed: return missed;
    case Found::succeeded: return std::nullopt;
    case Found::nothing: break;
    }
    if (from == 0 || window >= max_bytes) return std::nullopt;
  }
}

} // namespace mcphealth::agent
