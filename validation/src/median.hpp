#pragma once
// The median of a list of measurements (the mean of the middle two for an even count): what the Inspector readers
// take of a call's repeated records, so that one slow step does not move it.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace syncsim {

inline double median_of(std::vector<double> values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

}  // namespace syncsim
