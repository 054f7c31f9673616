#pragma once
// Where an axis's tick labels go along a line of pixels [left, right): label i starts `gap` pixels right of its
// tick; one that would run past the right edge ends at the edge instead, one that would start before the left edge
// starts at it; a label that would then come closer than `gap` to the label before it is dropped, as plotting
// libraries do (so the last label gives way when the edge pushes it onto its neighbour). A label wider than the
// whole line is dropped too. Nothing drawn from the result is ever clipped by the axis' edges.
#include <vector>

struct AxisLabelPlace {
  int tick = 0;  // the index of the label's tick
  int left = 0;  // the label's left edge; it spans [left, left + width)
};

std::vector<AxisLabelPlace> placeAxisLabels(const std::vector<int>& tickX, const std::vector<int>& widths, int left,
                                            int right, int gap);
