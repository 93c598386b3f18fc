#include <mcphealth/util/clock.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth::util;

TEST_CASE("timestamps format as ISO-8601 UTC with milliseconds", "[clock]") {
  CHECK(format_iso8601_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK(format_iso8601_ms(1796062528209) == "2026-11-30T18:15:28.209Z");
}

TEST_CASE("durations format short", "[clock]") {
  CHECK(format_duration_short(850) == "850ms");
  CHECK(format_duration_short(42'000) == "42s");
  CHECK(format_duration_short(492'000) == "8m12s");
  CHECK(format_duration_short(3 * 3'600'000 + 5 * 60'000) == "3h5m");
  CHECK(format_duration_short(-5) == "0ms");
}
