// SimTime's checked arithmetic: the int64-picosecond clock spans 2^63 ps (106.75 days). A time that fits is exact
// and unchanged; one that would leave the clock throws SimTimeOverflow (an InputError) instead of wrapping.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/core/units.hpp"

using namespace syncsim;

namespace {
constexpr std::int64_t kMaxPs = std::numeric_limits<std::int64_t>::max();
}

TEST_CASE("sim time: the clock's limit is 2^63 ps, 106 days", "[sim_time]") {
  CHECK(SimTime::kLimitPs == std::ldexp(1.0, 63));
  CHECK(std::floor(SimTime::kLimitDays) == 106);
}

TEST_CASE("sim time: conversions from seconds are exact inside the clock and refused outside", "[sim_time]") {
  CHECK(SimTime::from_seconds(2).ps() == 2'000'000'000'000);
  CHECK(SimTime::from_seconds(-1.5e-12).ps() == -2);  // rounds half away from zero
  CHECK(SimTime::from_seconds(9.2e6).ps() == 9'200'000'000'000'000'000);
  CHECK_THROWS_AS(SimTime::from_seconds(9.3e6), SimTimeOverflow);
  CHECK_THROWS_AS(SimTime::from_seconds(-9.3e6), SimTimeOverflow);
  CHECK_THROWS_AS(SimTime::from_seconds(std::numeric_limits<double>::infinity()), SimTimeOverflow);
  CHECK_THROWS_AS(SimTime::from_seconds(std::nan("")), SimTimeOverflow);
  CHECK_THROWS_AS(SimTime::from_us(1e300), SimTimeOverflow);
  CHECK_THROWS_WITH(SimTime::from_seconds(1e7),
                    "the simulated time passes 106 days (the int64-picosecond clock): a time of 1e+07 s (116 days)");
  CHECK_FALSE(SimTime::fits_seconds(std::nan("")));
  CHECK(SimTime::fits_seconds(9.2e6));
}

TEST_CASE("sim time: sums, differences and products are checked", "[sim_time]") {
  const SimTime max = SimTime::max();
  const SimTime one = SimTime::from_ps(1);
  CHECK((max - one + one) == max);
  CHECK_THROWS_AS(max + one, SimTimeOverflow);
  CHECK_THROWS_AS(SimTime::from_ps(-kMaxPs) - one - one, SimTimeOverflow);
  SimTime t = max;
  CHECK_THROWS_AS(t += one, SimTimeOverflow);
  CHECK(t == max);  // unchanged by the refused sum
  CHECK((SimTime::from_ps(kMaxPs / 2) * 2).ps() == kMaxPs - 1);
  CHECK_THROWS_AS(SimTime::from_ps(kMaxPs / 2 + 1) * 2, SimTimeOverflow);
  CHECK_THROWS_WITH(SimTime::from_seconds(60) * 1'000'000, Catch::Contains("60 s x 1000000"));
}

TEST_CASE("sim time: scaling by a factor is checked", "[sim_time]") {
  CHECK(SimTime::from_ps(10).scaled(1.5).ps() == 15);
  CHECK(SimTime::from_seconds(1).scaled(1e6).seconds() == Approx(1e6));
  CHECK_THROWS_AS(SimTime::from_seconds(1).scaled(1e7), SimTimeOverflow);
  CHECK_THROWS_AS(SimTime::from_seconds(1).scaled(std::numeric_limits<double>::infinity()), SimTimeOverflow);
}

TEST_CASE("sim time: a transfer that outlasts the clock names its bytes and bandwidth", "[sim_time]") {
  CHECK(transfer_time(Bytes{1'000'000}, Bandwidth{1e9}).ps() == 1'000'000'000);
  CHECK_THROWS_WITH(transfer_time(Bytes{std::int64_t{1} << 30}, parse_bandwidth("1bps")),
                    Catch::Contains("passes 106 days") && Catch::Contains("1 GiB at 0.125 B/s takes 8.59e+09 s"));
  // Still an InputError: whatever lets it through exits 2 with one line.
  CHECK_THROWS_AS(transfer_time(Bytes{1}, Bandwidth{1e-300}), InputError);
}
