#include <mcphealth/util/env.hpp>

#include <pwd.h>
#include <unistd.h>

namespace mcphealth::util {

std::optional<std::string> passwd_home() {
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) return std::string(pw->pw_dir);
  return std::nullopt;
}

} // namespace mcphealth::util
