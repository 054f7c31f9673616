#include "syncsim/collectives/error_summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace syncsim {

namespace {

struct Accumulator {
  std::size_t count = 0;
  double log_sum = 0;
  double max = 0;
  void add(double error) {
    const double magnitude = std::abs(error);
    ++count;
    log_sum += std::log(std::max(magnitude, kErrorFloor));
    max = std::max(max, magnitude);
  }
  double geomean() const { return std::exp(log_sum / static_cast<double>(count)); }
};

}  // namespace

double relative_error(double predicted, double measured) {
  return (predicted - measured) / measured;
}

ErrorSummary summarize_errors(const std::vector<std::int64_t>& sizes_bytes, const std::vector<double>& rel_errors) {
  if (sizes_bytes.size() != rel_errors.size() || sizes_bytes.empty()) {
    throw std::invalid_argument("summarize_errors: sizes and errors must be non-empty and of the same length");
  }
  Accumulator all;
  Accumulator large;
  for (std::size_t i = 0; i < sizes_bytes.size(); ++i) {
    all.add(rel_errors[i]);
    if (sizes_bytes[i] >= kBandwidthBoundBytes) large.add(rel_errors[i]);
  }
  ErrorSummary summary;
  summary.points = all.count;
  summary.geomean_abs_error = all.geomean();
  summary.max_abs_error = all.max;
  summary.points_1mib = large.count;
  if (large.count > 0) {
    summary.geomean_abs_error_1mib = large.geomean();
    summary.max_abs_error_1mib = large.max;
  }
  return summary;
}

}  // namespace syncsim
