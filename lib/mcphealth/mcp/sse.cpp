#include <mcphealth/mcp/sse.hpp>

namespace mcphealth::mcp {

std::vector<SseEvent> SseParser::feed(std::string_view chunk) {
  std::vector<SseEvent> out;
  if (m_overflowed) return out;
  m_pending.append(chunk);
  std::size_t start = 0;
  for (;;) {
    std::size_t end = m_pending.find('\n', start);
    if (end == std::string::npos) break;
    std::string_view text(m_pending.data() + start, end - start);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.size() > m_max) {
      overflow();
      return {};
    }
    line(text, out);
    if (m_overflowed) return {};
    start = end + 1;
  }
  m_pending.erase(0, start);
  if (m_pending.size() > m_max) { // a line that has not ended yet, already too long
    overflow();
    return {};
  }
  return out;
}

void SseParser::overflow() {
  m_overflowed = true;
  m_pending = std::string();
  m_current = SseEvent{};
  m_has_data = false;
}

void SseParser::line(std::string_view text, std::vector<SseEvent>& out) {
  if (text.empty()) {
    if (m_has_data) out.push_back(m_current);
    m_current = SseEvent{};
    m_has_data = false;
    return;
  }
  if (text.front() == ':') return; // a comment
  std::string_view field = text;
  std::string_view value;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    field = text.substr(0, colon);
    value = text.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "event") {
    m_current.event = std::string(value);
  } else if (field == "data") {
    if (m_current.data.size() + value.size() + 1 > m_max) { // an event of many lines, none ending it
      overflow();
      return;
    }
    if (m_has_data) m_current.data += '\n';
    m_current.data.append(value);
    m_has_data = true;
  }
}

} // namespace mcphealth::mcp
