#include <mcphealth/util/unique_fd.hpp>

#include <unistd.h>

namespace mcphealth::util {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    m_fd = other.release();
  }
  return *this;
}

void UniqueFd::reset() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

} // namespace mcphealth::util
