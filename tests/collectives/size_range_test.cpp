#include <catch2/catch.hpp>

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
