#pragma once
// How report.json rounds a ratio: to 9 decimals, so that the JSON stays short and stable across platforms.
#include <cmath>

#include "syncsim/core/sim_time.hpp"

namespace syncsim::training_detail {

// A time in exact decimal microseconds: a correctly rounded division prints as the shortest decimal that round-trips.
inline double report_us(SimTime t) {
  return static_cast<double>(t.ps()) / 1e6;
}

inline double rounded_ratio(double x) {
  return std::round(x * 1e9) / 1e9;
}

}  // namespace syncsim::training_detail
