#include <mcphealth/util/log.hpp>

#include <mcphealth/util/text.hpp>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>

namespace mcphealth::util::log {

namespace {
int g_verbosity = 0;

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> instance = [] {
    auto l = std::make_shared<spdlog::logger>("mcphealth", std::make_shared<spdlog::sinks::stderr_sink_st>());
    if (g_verbosity >= 1) {
      l->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    } else {
      l->set_pattern("mcphealth: %v");
    }
    l->set_level(g_verbosity >= 2 ? spdlog::level::debug : g_verbosity == 1 ? spdlog::level::info : spdlog::level::warn);
    return l;
  }();
  return *instance;
}
} // namespace

void configure(int verbosity) { g_verbosity = verbosity; }

void debug(std::string_view message) {
  if (g_verbosity >= 2) logger().debug("{}", escape_control(message));
}
void info(std::string_view message) {
  if (g_verbosity >= 1) logger().info("{}", escape_control(message));
}
void warn(std::string_view message) { logger().warn("{}", escape_control(message)); }
void error(std::string_view message) { logger().error("{}", escape_control(message)); }

} // namespace mcphealth::util::log
