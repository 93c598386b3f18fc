#include <mcphealth/util/result.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace mcphealth;

// Its own namespace: the unit tests are built as one unit per batch where unity builds are on (the macOS cross-build).
namespace test_result {
namespace {

enum class Why { missing, broken };

util::Result<int> half(int n) {
  if (n % 2 != 0) return util::fail(std::to_string(n) + " is odd");
  return n / 2;
}

util::Result<std::unique_ptr<int>, util::KindedError<Why>> open_box(bool there) {
  if (!there) return util::fail(util::KindedError<Why>{Why::missing, {}});
  return std::make_unique<int>(7);
}

util::Result<void> check(bool good) {
  if (!good) return util::fail("not good");
  return util::ok();
}

} // namespace

TEST_CASE("a result holds a value or the reason there is none", "[result]") {
  const auto four = half(8);
  REQUIRE(four.ok());
  CHECK(*four == 4);
  const auto odd = half(3);
  REQUIRE_FALSE(odd);
  CHECK(odd.error().message == "3 is odd");
}

TEST_CASE("a move-only value moves out, and a kinded error names its kind", "[result]") {
  auto box = open_box(true);
  REQUIRE(box);
  std::unique_ptr<int> taken = std::move(*box);
  CHECK(*taken == 7);
  const auto none = open_box(false);
  REQUIRE_FALSE(none);
  CHECK(none.error().is(Why::missing));
  CHECK_FALSE(none.error().is(Why::broken));
}

TEST_CASE("a result of nothing is success or a reason", "[result]") {
  CHECK(check(true).ok());
  const auto bad = check(false);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "not good");
}

} // namespace test_result
