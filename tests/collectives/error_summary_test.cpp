// Relative errors and their summary (error_summary.hpp): the definitions, worked by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "syncsim/collectives/error_summary.hpp"

using namespace syncsim;

TEST_CASE("the relative error is signed and measured against the measurement", "[error-summary]") {
  CHECK(relative_error(110, 100) == Approx(0.10));
  CHECK(relative_error(90, 100) == Approx(-0.10));
  CHECK(relative_error(100, 100) == 0.0);
}

TEST_CASE("the geomean is exp of the mean log |error|, split at 1 MiB", "[error-summary]") {
  // Errors 1%, -4% below 1 MiB and 16%, -25% at and above: geomean over all = (0.01 * 0.04 * 0.16 * 0.25)^(1/4)
  // = (1.6e-5)^(1/4) = 0.0632...; over >= 1 MiB = sqrt(0.16 * 0.25) = 0.2; max 0.25 both.
  const ErrorSummary s = summarize_errors({1024, 4096, 1 << 20, 1 << 30}, {0.01, -0.04, 0.16, -0.25});
  CHECK(s.points == 4);
  CHECK(s.geomean_abs_error == Approx(std::pow(1.6e-5, 0.25)));
  CHECK(s.max_abs_error == Approx(0.25));
  CHECK(s.points_1mib == 2);
  REQUIRE(s.geomean_abs_error_1mib);
  CHECK(*s.geomean_abs_error_1mib == Approx(0.2));
  CHECK(*s.max_abs_error_1mib == Approx(0.25));
}

TEST_CASE("an exact hit counts as a one-in-a-million error, not as zero", "[error-summary]") {
  // log(0) would make the mean -inf; the floor 1e-6 keeps it finite: sqrt(1e-6 * 0.01) = 1e-4.
  const ErrorSummary s = summarize_errors({8, 16}, {0.0, 0.01});
  CHECK(s.geomean_abs_error == Approx(1e-4));
}

TEST_CASE("a log without sizes of 1 MiB has no large-size summary", "[error-summary]") {
  const ErrorSummary s = summarize_errors({8, 1024}, {0.1, 0.2});
  CHECK(s.points_1mib == 0);
  CHECK_FALSE(s.geomean_abs_error_1mib);
  CHECK_FALSE(s.max_abs_error_1mib);
}

TEST_CASE("mismatched or empty inputs are a programming error", "[error-summary]") {
  CHECK_THROWS_AS(summarize_errors({8}, {}), std::invalid_argument);
  CHECK_THROWS_AS(summarize_errors({}, {}), std::invalid_argument);
}
