#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <mcphealth/platform/platform.hpp>

#include <csignal>

int main(int argc, char** argv) {
  // As the front end does: a probed child that closes its stdin must not kill the test run.
  std::signal(SIGPIPE, SIG_IGN);
  mcphealth::platform::set_program_name(argv[0]); // as both binaries do
  return Catch::Session().run(argc, argv);
}
