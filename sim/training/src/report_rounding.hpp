#pragma once
// How report.json rounds a ratio: to 9 decimals, so that the JSON stays short and stable across platforms.
#include <cmath>

namespace syncsim::training_detail {

inline double rounded_ratio(double x) {
  return std::round(x * 1e9) / 1e9;
}

}  // namespace syncsim::training_detail
