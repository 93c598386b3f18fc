#pragma once
// An incremental Server-Sent Events parser: bytes in as they arrive, whole events out.
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::mcp {

/// One dispatched event.
struct SseEvent {
  std::string event = "message";
  std::string data;
};

/// Parses an event stream fed in arbitrary chunks.
class SseParser {
public:
  /// Feeds `chunk`; returns the events it completed (events without data are skipped).
  std::vector<SseEvent> feed(std::string_view chunk);

private:
  void line(std::string_view text, std::vector<SseEvent>& out);
  std::string m_pending;
  SseEvent m_current;
  bool m_has_data = false;
};

} // namespace mcphealth::mcp
