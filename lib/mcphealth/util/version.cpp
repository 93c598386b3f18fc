#include <mcphealth/util/version.hpp>

namespace mcphealth::util {

std::string_view version() { return MCPHEALTH_VERSION; }
std::string_view commit() { return MCPHEALTH_COMMIT; }

} // namespace mcphealth::util
