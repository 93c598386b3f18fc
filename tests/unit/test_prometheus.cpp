#include <mcphealth/probe/prometheus.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;

TEST_CASE("Prometheus output has HELP, TYPE and escaped labels, without floating point", "[prometheus]") {
  std::string text = probe::render_prometheus({{"a\"b", "", state::Health::healthy, 1234, 7, 0, 1'796'000'000'123}, {"c", "", state::Health::unhealthy, 5, std::nullopt, 3, 1000}});
  CHECK(text.find("# HELP mcphealth_up ") != std::string::npos);
  CHECK(text.find("# TYPE mcphealth_up gauge\n") != std::string::npos);
  CHECK(text.find("mcphealth_up{server=\"a\\\"b\"} 1\n") != std::string::npos);
  CHECK(text.find("mcphealth_up{server=\"c\"} 0\n") != std::string::npos);
  CHECK(text.find("mcphealth_probe_duration_seconds{server=\"a\\\"b\"} 1.234\n") != std::string::npos);
  CHECK(text.find("mcphealth_tools{server=\"c\"}") == std::string::npos);
  CHECK(text.find("mcphealth_consecutive_failures{server=\"c\"} 3\n") != std::string::npos);
  CHECK(text.find("mcphealth_last_probe_timestamp_seconds{server=\"a\\\"b\"} 1796000000.123\n") != std::string::npos);
  CHECK(text.find("E+") == std::string::npos); // no exponent notation (Boost.JSON would write 1.5E0)
  CHECK(text.find("e+") == std::string::npos);
}

TEST_CASE("two definitions of one name are two series, told apart by their definition", "[prometheus]") {
  std::string text = probe::render_prometheus({{"dup", "aaaa", state::Health::healthy, 1, 1, 0, 1000}, {"dup", "bbbb", state::Health::unhealthy, 1, 1, 2, 1000}});
  CHECK(text.find("mcphealth_up{server=\"dup\",definition=\"aaaa\"} 1\n") != std::string::npos);
  CHECK(text.find("mcphealth_up{server=\"dup\",definition=\"bbbb\"} 0\n") != std::string::npos);
}

TEST_CASE("the status state set has one series per health word, 1 for the current one", "[prometheus]") {
  std::string text = probe::render_prometheus({{"hung", "", state::Health::alive_silent, 5000, std::nullopt, 0, 1000}});
  CHECK(text.find("# TYPE mcphealth_status gauge\n") != std::string::npos);
  CHECK(text.find("mcphealth_status{server=\"hung\",status=\"alive-silent\"} 1\n") != std::string::npos);
  CHECK(text.find("mcphealth_status{server=\"hung\",status=\"healthy\"} 0\n") != std::string::npos);
  CHECK(text.find("mcphealth_status{server=\"hung\",status=\"misconfigured\"} 0\n") != std::string::npos);
  CHECK(text.find("mcphealth_up{server=\"hung\"} 1\n") != std::string::npos); // alive-silent is up
  std::size_t series = 0;
  for (std::size_t at = text.find("\nmcphealth_status{"); at != std::string::npos; at = text.find("\nmcphealth_status{", at + 1)) {
    ++series;
  }
  CHECK(series == std::size(state::k_all_health));
}
