#include <catch2/catch.hpp>

#include <limits>

#include "syncsim/collectives/size_range.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

TEST_CASE("size ranges expand like nccl-tests' -b/-e/-f", "[size_range]") {
  const auto sizes = expand(parse_size_range("8:128"));
  REQUIRE(sizes.size() == 5);
  CHECK(sizes.front().value == 8);
  CHECK(sizes.back().value == 128);
  CHECK(expand(parse_size_range("1M:1G:4")).size() == 6);  // 1M 4M 16M 64M 256M 1G
  CHECK(expand(parse_size_range("64MiB")).size() == 1);
  CHECK(expand(parse_size_range("10:100:3")).back().value == 100);  // MAX is always the last size
}

TEST_CASE("size ranges that do not advance are errors", "[size_range]") {
  CHECK_THROWS_WITH(parse_size_range("1G:8"), Catch::Contains("does not advance"));
  CHECK_THROWS_WITH(parse_size_range("8:1G:1"), Catch::Contains("does not advance"));
  CHECK_THROWS_WITH(parse_size_range("8:1G:0.5"), Catch::Contains("does not advance"));
  CHECK_THROWS_AS(parse_size_range("0:8"), InputError);
  CHECK_THROWS_AS(parse_size_range("8:1G:2:3"), InputError);
  CHECK_THROWS_AS(parse_size_range("8:lots"), InputError);
}

TEST_CASE("a factor far above 1 ends the range at MAX instead of overflowing int64", "[size_range]") {
  // 8 * 1e19 is beyond int64: llround of it used to come back negative, below MAX, forever.
  const auto sizes = expand(parse_size_range("8:64:1e19"));
  REQUIRE(sizes.size() == 2);
  CHECK(sizes[0].value == 8);
  CHECK(sizes[1].value == 64);
  CHECK(expand(parse_size_range("1:1T:1e300")).size() == 2);
}

TEST_CASE("a factor next to 1 gives each byte count once, or is refused when it takes too many steps", "[size_range]") {
  // 8:64:1.0001 takes 20,795 steps, most rounding to the same byte count: each size appears once, in order.
  const auto sizes = expand(parse_size_range("8:64:1.0001"));
  REQUIRE(sizes.size() == 57);
  for (std::size_t i = 0; i < sizes.size(); ++i) CHECK(sizes[i].value == static_cast<std::int64_t>(8 + i));
  CHECK_THROWS_WITH(parse_size_range("8:1G:1.00001"), Catch::Contains("too close to 1") &&
                                                          Catch::Contains("1871507 steps") &&
                                                          Catch::Contains("at most 100000"));
  CHECK_THROWS_WITH(parse_size_range("8:1G:1.0000000000000002"), Catch::Contains("too close to 1"));
}

TEST_CASE("a factor that is not a finite number is refused", "[size_range]") {
  SizeRange range{Bytes{8}, Bytes{64}, std::numeric_limits<double>::infinity()};
  CHECK_THROWS_WITH(check_size_range(range, "r"), Catch::Contains("finite"));
  range.factor = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(check_size_range(range, "r"), InputError);
  CHECK_THROWS_AS(parse_size_range("8:64:nan"), InputError);
  CHECK_THROWS_AS(parse_size_range("8:64:inf"), InputError);
  // A single size needs no factor: any (even 1) is fine when MIN == MAX.
  CHECK(expand(parse_size_range("64:64:1")).size() == 1);
}
