#include <mcphealth/util/version.hpp>

namespace mcphealth::util {

std::string_view version() { return MCPHEALTH_VERSION; }

} // namespace mcphealth::util
