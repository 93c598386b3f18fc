#pragma once
// An incremental Server-Sent Events parser: bytes in as they arrive, whole events out.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::mcp {

/// One dispatched event.
struct SseEvent {
  std::string event = "message";
  std::string data;
};

/// The longest line, and the most data one event may hold, like a body's cap: past it the stream is cut off.
inline constexpr std::size_t k_max_sse_bytes = 1024 * 1024;

/// What a stream cut off for its size reads as, in a probe's reason.
inline constexpr std::string_view k_sse_overflow_reason =
    "protocol error: the server's event stream sent a line or an event over 1 MiB; it was cut off there";

/// Parses an event stream fed in arbitrary chunks, in bounded memory.
class SseParser {
public:
  explicit SseParser(std::size_t max_bytes = k_max_sse_bytes) : m_max(max_bytes) {}
  /// Feeds `chunk`; returns the events it completed (events without data are skipped). Once a line or an event
  /// grows past the limit, the parser is overflowed() and returns nothing more.
  std::vector<SseEvent> feed(std::string_view chunk);
  /// A line or an event outgrew the limit: the stream is not one to read on.
  bool overflowed() const { return m_overflowed; }

private:
  void line(std::string_view text, std::vector<SseEvent>& out);
  void overflow();
  std::size_t m_max;
  std::string m_pending;
  SseEvent m_current;
  bool m_has_data = false;
  bool m_overflowed = false;
};

} // namespace mcphealth::mcp
