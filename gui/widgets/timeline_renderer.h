#pragma once
// TimelineRenderer: paints one frame of the timeline's span area — the delegate that culls what is off screen and
// coalesces what is smaller than a pixel, shared by the widget, the screenshot mode and the paint benchmark.
//
// Culling: only lanes that intersect the area are visited, and in each row only the spans that intersect the
// visible time window (TimelineRow::visibleRange, two binary searches).
// Level of detail: spans are rasterized straight into a QImage, one 32-bit store per pixel, never as QPainter
// rectangles; a span that falls entirely on pixels already painted in its row is skipped, so a frame costs about
// (visible spans + visible pixels), whatever the zoom. QPainter then only draws the few things that need it:
// labels of spans wide enough to read, the outline of highlighted spans, the cursor.
#include <QImage>
#include <QRect>
#include <optional>
#include <vector>

#include "models/time_scale.h"
#include "models/timeline_data.h"

class QPainter;

struct TimelineFrame {
  const TimelineData* data = nullptr;
  std::vector<int> lanes;  // the lanes shown, top to bottom (indices into data->lanes())
  int laneHeight = 24;
  int scrollPx = 0;  // pixels of lanes scrolled off the top
  TimeScale scale;
  std::optional<SpanRef> selected;  // its related spans stay bright, the others fade
  std::optional<qint64> cursorPs;

  // Lane position `i` (index into `lanes`) in area coordinates.
  int laneTop(int i) const { return i * laneHeight - scrollPx; }
};

class TimelineRenderer {
 public:
  // Paints the frame into `area` of `painter`. `scratch` is reused between frames to avoid an allocation each time.
  static void paint(QPainter& painter, const QRect& area, const TimelineFrame& frame, QImage& scratch);
  // Rasterizes span fills and counters only (no labels), into `image` (which sets the size).
  static void rasterize(QImage& image, const TimelineFrame& frame);
  // The span under `pos` (area coordinates), if any.
  static std::optional<SpanRef> spanAt(const TimelineFrame& frame, QPoint pos);
  // The vertical extent of row `row` of the lane shown at position `i`.
  static std::pair<int, int> rowExtent(const TimelineFrame& frame, int i, int row, int rowCount);

  static QColor counterColor();
};
