#include "widgets/timeline_renderer.h"

#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>

namespace {

// Kinds whose colour is too dark for black text.
bool darkKind(SpanKind kind) {
  return kind == SpanKind::Backward || kind == SpanKind::Fault || kind == SpanKind::Restart ||
         kind == SpanKind::RepairWait || kind == SpanKind::Restore;
}

constexpr QRgb kBackground = 0xFFFFFFFF;
constexpr QRgb kLaneStripe = 0xFFF4F6F8;  // every other lane, so adjacent lanes read apart
constexpr int kMinLabelWidthPx = 48;

QRgb faded(QColor c) {
  // Mix with white: unrelated spans stay visible as context while the related ones stand out.
  const auto mix = [](int v) { return 255 - (255 - v) * 30 / 100; };
  return qRgb(mix(c.red()), mix(c.green()), mix(c.blue()));
}

struct Palette {
  std::array<QRgb, kSpanKindCount> normal{};
  std::array<QRgb, kSpanKindCount> dim{};
  Palette() {
    for (int k = 0; k < kSpanKindCount; ++k) {
      const QColor c = spanKindColor(static_cast<SpanKind>(k));
      normal[static_cast<std::size_t>(k)] = c.rgb();
      dim[static_cast<std::size_t>(k)] = faded(c);
    }
  }
};

// The image's pixels, taken once per frame: QImage::scanLine() checks for a detach on every call.
struct Pixels {
  uchar* bits;
  qsizetype stride;
  int width;
  int height;

  void fill(int x0, int x1, int y0, int y1, QRgb colour) const {
    x0 = std::max(x0, 0);
    x1 = std::min(x1, width);
    y0 = std::max(y0, 0);
    y1 = std::min(y1, height);
    for (int y = y0; y < y1 && x0 < x1; ++y) {
      auto* line = reinterpret_cast<QRgb*>(bits + y * stride);
      std::fill(line + x0, line + x1, colour);
    }
  }
};

// Rows a lane is drawn in: its span rows, plus one for its counter — unless it has no spans at all (a link), then
// the counter has the lane to itself.
int drawnRows(const TimelineLane& lane) {
  if (lane.counter.empty()) return static_cast<int>(lane.rows.size());
  return lane.spanCount() == 0 ? 1 : static_cast<int>(lane.rows.size()) + 1;
}

QRgb darker(QRgb c) {
  return qRgb(qRed(c) * 3 / 4, qGreen(c) * 3 / 4, qBlue(c) * 3 / 4);
}

// The visible lane positions [first, last) for an area of `height`.
std::pair<int, int> visibleLanePositions(const TimelineFrame& f, int height) {
  const int h = std::max(f.laneHeight, 1);
  const int first = std::max(0, f.scrollPx / h);
  const int last = std::min(static_cast<int>(f.lanes.size()), (f.scrollPx + height + h - 1) / h);
  return {first, std::max(first, last)};
}

}  // namespace

QColor TimelineRenderer::counterColor() {
  return QColor(0x2A, 0x9D, 0x8F);
}

std::pair<int, int> TimelineRenderer::rowExtent(const TimelineFrame& f, int i, int row, int rowCount) {
  // A pixel of padding keeps lanes apart when there is room for it.
  const int pad = f.laneHeight >= 6 ? 1 : 0;
  const int inner = f.laneHeight - 2 * pad;
  const int rowHeight = std::max(1, inner / std::max(rowCount, 1));
  const int top = f.laneTop(i) + pad + row * rowHeight;
  const int bottom = row == rowCount - 1 ? f.laneTop(i) + f.laneHeight - pad : top + rowHeight;
  return {top, std::max(bottom, top + 1)};
}

void TimelineRenderer::rasterize(QImage& image, const TimelineFrame& f) {
  static const Palette palette;
  image.fill(kBackground);
  if (!f.data) return;
  const int width = image.width();
  const Pixels px{image.bits(), image.bytesPerLine(), image.width(), image.height()};
  // x = (t - origin) * perPs: one multiplication per edge instead of TimeScale::toX's division.
  const qint64 origin = f.scale.startPs();
  const double perPs = 1.0 / f.scale.psPerPixel();
  const qint64 t0 = f.scale.toTime(0);
  const qint64 t1 = f.scale.toTime(width) + 1;
  const std::optional<TimelineSpan> selected =
      f.selected ? std::optional<TimelineSpan>(f.data->span(*f.selected)) : std::nullopt;
  const auto [firstLane, lastLane] = visibleLanePositions(f, image.height());
  for (int i = firstLane; i < lastLane; ++i) {
    if (i % 2 == 1 && f.laneHeight >= 6) px.fill(0, width, f.laneTop(i), f.laneTop(i) + f.laneHeight, kLaneStripe);
    const TimelineLane& lane = f.data->lanes()[static_cast<std::size_t>(f.lanes[static_cast<std::size_t>(i)])];
    const int rowCount = drawnRows(lane);
    for (int r = 0; r < static_cast<int>(lane.rows.size()); ++r) {
      const TimelineRow& row = lane.rows[static_cast<std::size_t>(r)];
      const auto [y0, y1] = rowExtent(f, i, r, rowCount);
      const auto [first, last] = row.visibleRange(t0, t1);
      int painted = -1;  // columns [0, painted] of this row already hold a span
      for (std::size_t s = first; s < last; ++s) {
        const TimelineSpan& span = row.spans[s];
        const double x0 = static_cast<double>(span.startPs - origin) * perPs;
        const double x1 = static_cast<double>(span.endPs() - origin) * perPs;
        if (x1 < 0) continue;
        // Clamped before the cast: deep in a zoom a long span's far edge is beyond any int. Floor and ceil by
        // truncation (both values are >= -1 here): std::floor is a library call on baseline x86-64, and at 1 M
        // spans a frame that costs milliseconds.
        const int px0 = static_cast<int>(std::max(x0, -1.0) + 1.0) - 1;
        const double right = std::min(x1, width + 1.0);
        const int truncated = static_cast<int>(right);
        // At least one pixel wide: a span shorter than a pixel still shows, and neighbours coalesce.
        const int px1 = std::max(px0 + 1, truncated + (static_cast<double>(truncated) < right ? 1 : 0));
        // A failure is an instant: it takes its column even from the span before it, so weeks zoomed out show them.
        const bool instant = span.kind == SpanKind::Failure;
        if (px1 - 1 <= painted && !instant) continue;
        const auto k = static_cast<std::size_t>(span.kind);
        const QRgb colour = selected && !selected->relatedTo(span) ? palette.dim[k] : palette.normal[k];
        const int from = instant ? px0 : std::max(px0, painted + 1);
        px.fill(from, px1, y0, y1, colour);
        // Where a span is wide enough to see, its first column is darker: back-to-back spans of one kind (a
        // collective's steps) stay apart.
        if (px1 - from >= 4) px.fill(from, from + 1, y0, y1, darker(colour));
        painted = px1 - 1;
      }
    }
    if (!lane.counter.empty()) {
      // A step function: each value holds until the next point; drawn as a bar from the row's bottom.
      const auto [y0, y1] = rowExtent(f, i, rowCount - 1, rowCount);
      const QRgb colour = counterColor().rgb();
      const auto& pts = lane.counter;
      auto it =
          std::upper_bound(pts.begin(), pts.end(), t0, [](qint64 t, const CounterPoint& p) { return t < p.timePs; });
      if (it != pts.begin()) --it;
      for (; it != pts.end() && it->timePs < t1; ++it) {
        const auto column = [&](qint64 t) { return std::clamp(f.scale.toX(t), -1.0, width + 1.0); };
        const int c0 = static_cast<int>(std::floor(column(it->timePs)));
        const int c1 = std::next(it) == pts.end() ? c0 + 1 : static_cast<int>(std::ceil(column(std::next(it)->timePs)));
        const int h = static_cast<int>(std::lround(std::clamp(it->value, 0.0, 1.0) * (y1 - y0)));
        px.fill(c0, std::max(c1, c0 + 1), y1 - h, y1, colour);
      }
    }
  }
}

void TimelineRenderer::paint(QPainter& painter, const QRect& area, const TimelineFrame& f, QImage& scratch) {
  if (scratch.size() != area.size() || scratch.format() != QImage::Format_RGB32) {
    scratch = QImage(area.size(), QImage::Format_RGB32);
  }
  rasterize(scratch, f);
  painter.drawImage(area.topLeft(), scratch);
  if (!f.data) return;

  painter.save();
  painter.setClipRect(area);
  painter.translate(area.topLeft());
  const qint64 t0 = f.scale.toTime(0);
  const qint64 t1 = f.scale.toTime(area.width()) + 1;
  const std::optional<TimelineSpan> selected =
      f.selected ? std::optional<TimelineSpan>(f.data->span(*f.selected)) : std::nullopt;
  const auto [firstLane, lastLane] = visibleLanePositions(f, area.height());
  const QFontMetrics metrics(painter.font());
  const bool labels = f.laneHeight >= metrics.height() + 2;
  for (int i = firstLane; i < lastLane; ++i) {
    const TimelineLane& lane = f.data->lanes()[static_cast<std::size_t>(f.lanes[static_cast<std::size_t>(i)])];
    const int rowCount = drawnRows(lane);
    for (int r = 0; r < static_cast<int>(lane.rows.size()); ++r) {
      const TimelineRow& row = lane.rows[static_cast<std::size_t>(r)];
      const auto [y0, y1] = rowExtent(f, i, r, rowCount);
      const bool rowLabels = labels && (y1 - y0) >= metrics.height();
      if (!rowLabels && !selected) continue;
      const auto [first, last] = row.visibleRange(t0, t1);
      for (std::size_t s = first; s < last; ++s) {
        const TimelineSpan& span = row.spans[s];
        const double x0 = std::max(f.scale.toX(span.startPs), -1.0);
        const double x1 = std::min(f.scale.toX(span.endPs()), area.width() + 1.0);
        if (x1 - x0 < 3) continue;
        const QRectF box(x0, y0, x1 - x0, y1 - y0);
        if (selected && selected->relatedTo(span)) {
          painter.setPen(QPen(Qt::black, 1.5));
          painter.setBrush(Qt::NoBrush);
          painter.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
        }
        if (rowLabels && box.width() >= kMinLabelWidthPx) {
          painter.setPen(darkKind(span.kind) ? Qt::white : Qt::black);
          const QString text = metrics.elidedText(f.data->name(span.name), Qt::ElideRight, int(box.width()) - 6);
          painter.drawText(box.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
        }
      }
    }
  }
  if (f.cursorPs) {
    const double x = f.scale.toX(*f.cursorPs);
    painter.setPen(QPen(QColor(0xC0, 0x00, 0x30), 1.5));
    painter.drawLine(QPointF(x, 0), QPointF(x, area.height()));
  }
  painter.restore();
}

std::optional<SpanRef> TimelineRenderer::spanAt(const TimelineFrame& f, QPoint pos) {
  if (!f.data || f.laneHeight <= 0) return std::nullopt;
  const int i = (pos.y() + f.scrollPx) / f.laneHeight;
  if (pos.y() + f.scrollPx < 0 || i >= static_cast<int>(f.lanes.size())) return std::nullopt;
  const int laneIndex = f.lanes[static_cast<std::size_t>(i)];
  const TimelineLane& lane = f.data->lanes()[static_cast<std::size_t>(laneIndex)];
  const int rowCount = drawnRows(lane);
  // Half a pixel either side, so a span narrower than a pixel can still be hovered.
  const qint64 t = f.scale.toTime(pos.x());
  const auto slack = static_cast<qint64>(std::ceil(f.scale.psPerPixel()));
  for (int r = 0; r < static_cast<int>(lane.rows.size()); ++r) {
    const auto [y0, y1] = rowExtent(f, i, r, rowCount);
    if (pos.y() < y0 || pos.y() >= y1) continue;
    const TimelineRow& row = lane.rows[static_cast<std::size_t>(r)];
    const auto [first, last] = row.visibleRange(t - slack, t + slack + 1);
    std::optional<SpanRef> nearest;
    for (std::size_t s = first; s < last; ++s) {
      const TimelineSpan& span = row.spans[s];
      if (span.startPs <= t && t < span.endPs()) return SpanRef{laneIndex, r, s};
      if (span.endPs() + slack > t && span.startPs - slack <= t) nearest = SpanRef{laneIndex, r, s};
    }
    return nearest;
  }
  return std::nullopt;
}
