#pragma once
// How far predictions are from measurements: per point the relative error, per log a summary.
//
//   rel_error = (predicted - measured) / measured          (+0.10: predicted 10% slower than measured)
//
//   geomean |error| = exp( mean_i log(max(|rel_error_i|, 1e-6)) )
//
// The geometric mean is the typical error on a log scale: a size predicted within 1% and one within 20% average to
// 4.5%, not 10.5%, so a few bad sizes do not hide that most are good — which is why the max is always reported
// beside it. The 1e-6 floor keeps an exactly-hit point (error 0, log -inf) from zeroing the mean; it counts as a
// one-in-a-million error. Both are also given over the sizes of at least 1 MiB, where bandwidth, not latency,
// sets the time.
#include <cstdint>
#include <optional>
#include <vector>

namespace syncsim {

inline constexpr std::int64_t kBandwidthBoundBytes = 1 << 20;  // 1 MiB
inline constexpr double kErrorFloor = 1e-6;

double relative_error(double predicted, double measured);

struct ErrorSummary {
  std::size_t points = 0;
  double geomean_abs_error = 0;
  double max_abs_error = 0;
  std::size_t points_1mib = 0;                   // sizes >= 1 MiB
  std::optional<double> geomean_abs_error_1mib;  // nullopt when no size reaches 1 MiB
  std::optional<double> max_abs_error_1mib;
};

// `sizes_bytes` and `rel_errors` are parallel; throws std::invalid_argument when they differ in length or are empty.
ErrorSummary summarize_errors(const std::vector<std::int64_t>& sizes_bytes, const std::vector<double>& rel_errors);

}  // namespace syncsim
