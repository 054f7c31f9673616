// The slowest chip's pace (chip_spread.hpp): E[max of n standard normals] against its closed forms and published
// tables, and the factor a spread makes of it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <numbers>

#include "syncsim/compute/chip_spread.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

TEST_CASE("the expected maximum of n standard normals: closed forms for 1 to 3, tables beyond") {
  CHECK(expected_max_standard_normal(1) == 0);
  // E[max(Z1, Z2)] = 1 / sqrt(pi); E[max of 3] = 3 / (2 sqrt(pi)).
  CHECK(expected_max_standard_normal(2) == Approx(1 / std::sqrt(std::numbers::pi)).epsilon(1e-9));
  CHECK(expected_max_standard_normal(3) == Approx(3 / (2 * std::sqrt(std::numbers::pi))).epsilon(1e-9));
  // Harter (1961), "Expected values of normal order statistics", Biometrika 48, to five places.
  CHECK(expected_max_standard_normal(5) == Approx(1.16296).margin(1e-5));
  CHECK(expected_max_standard_normal(10) == Approx(1.53875).margin(1e-5));
  CHECK(expected_max_standard_normal(100) == Approx(2.50759).margin(1e-5));
  CHECK(expected_max_standard_normal(400) == Approx(2.96818).margin(1e-5));
}

TEST_CASE("the expected maximum grows with n, ever more slowly, and stays finite up to 2^63 GPUs") {
  double previous = 0;
  double previous_step = 1;
  for (std::int64_t n = 2; n <= (std::int64_t{1} << 40); n *= 2) {
    const double e = expected_max_standard_normal(n);
    CHECK(e > previous);
    CHECK(e - previous < previous_step);  // each doubling adds less than the one before
    previous_step = e - previous;
    previous = e;
  }
  // Past 10^9 the maximum approaches sqrt(2 ln n) from below.
  const std::int64_t huge = std::int64_t{9'000'000'000'000'000'000};
  const double e = expected_max_standard_normal(huge);
  CHECK(std::isfinite(e));
  CHECK(e < std::sqrt(2 * std::log(static_cast<double>(huge))));
  CHECK(e > 0.95 * std::sqrt(2 * std::log(static_cast<double>(huge))));
}

TEST_CASE("the slowest chip's factor is 1 + spread x the expected maximum, and 1 for one GPU or no spread") {
  CHECK(slowest_chip_factor(0.01, 1) == 1);
  CHECK(slowest_chip_factor(0, 16'384) == 1);
  CHECK(slowest_chip_factor(0.01, 128) == 1 + 0.01 * expected_max_standard_normal(128));
  CHECK(slowest_chip_factor(0.02, 128) - 1 == Approx(2 * (slowest_chip_factor(0.01, 128) - 1)));
  // The default's calibration: over Summit's 27,648 GPUs the expected range is Sinha et al.'s 8%, to a tenth.
  CHECK(2 * kDefaultSpeedSpread * expected_max_standard_normal(27'648) == Approx(0.08).margin(0.004));
}

TEST_CASE("a spread outside [0, 0.2] or no GPU is refused") {
  CHECK_THROWS_AS(slowest_chip_factor(-0.01, 8), InputError);
  CHECK_THROWS_AS(slowest_chip_factor(0.25, 8), InputError);
  CHECK_THROWS_AS(slowest_chip_factor(std::nan(""), 8), InputError);
  CHECK_THROWS_AS(expected_max_standard_normal(0), InputError);
}
