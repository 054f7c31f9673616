#include "models/axis_labels.h"

#include <algorithm>
#include <cstddef>
#include <optional>

std::vector<AxisLabelPlace> placeAxisLabels(const std::vector<int>& tickX, const std::vector<int>& widths, int left,
                                            int right, int gap) {
  std::vector<AxisLabelPlace> out;
  std::optional<int> previousEnd;
  for (std::size_t i = 0; i < tickX.size() && i < widths.size(); ++i) {
    const int width = widths[i];
    if (width > right - left) continue;
    const int start = std::max(left, std::min(tickX[i] + gap, right - width));
    if (previousEnd && start < *previousEnd + gap) continue;
    out.push_back({static_cast<int>(i), start});
    previousEnd = start + width;
  }
  return out;
}
