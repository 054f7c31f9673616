// A calibrated prediction's error band from the fit's residuals (calibration.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "syncsim/collectives/calibration.hpp"

namespace syncsim {

ErrorBand error_band(const Calibration& calibration, Bytes size) {
  // Residuals by distance in log2(size); those within log2(kBandSizeFactor), else the nearest.
  const double reach = std::log2(kBandSizeFactor);
  const double at = std::log2(static_cast<double>(std::max<std::int64_t>(size.value, 1)));
  double nearest = std::numeric_limits<double>::infinity();
  for (const CalibrationMeasurement& m : calibration.measurements) {
    for (const std::int64_t s : m.sizes_bytes)
      nearest = std::min(nearest, std::abs(std::log2(static_cast<double>(s)) - at));
  }
  ErrorBand band{-kBandFloor, kBandFloor};
  for (const CalibrationMeasurement& m : calibration.measurements) {
    for (std::size_t i = 0; i < m.sizes_bytes.size(); ++i) {
      const double distance = std::abs(std::log2(static_cast<double>(m.sizes_bytes[i])) - at);
      if (distance > std::max(reach, nearest) || !(m.predicted_us[i] > 0)) continue;
      const double residual = m.measured_us[i] / m.predicted_us[i] - 1;
      band.low = std::min(band.low, residual);
      band.high = std::max(band.high, residual);
    }
  }
  return band;
}

}  // namespace syncsim
