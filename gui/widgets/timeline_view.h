#pragma once
// TimelineView: the timeline widget — lane names on the left, legend and time axis on top, the span area painted
// by TimelineRenderer, a vertical scroll bar on the right.
//
// Mouse: wheel zooms at the pointer (Shift+wheel scrolls lanes, Ctrl+wheel changes lane height); left-drag pans;
// right-drag (or Shift+left-drag) draws a box and zooms to its time range; a click selects the span under the
// pointer — its related spans are highlighted on every lane — and moves the cursor there; double-click fits.
// Keys: F fit, + / - zoom, arrows pan. Hovering a span shows its kind, bucket, bytes, start, duration and peers.
#include <QImage>
#include <QWidget>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "models/job_colors.h"
#include "widgets/timeline_renderer.h"

class QScrollBar;

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kHeaderWidth = 150;
  static constexpr int kLegendHeight = 24;
  static constexpr int kAxisHeight = 24;
  static constexpr int kDefaultLaneHeight = 32;

  explicit TimelineView(QWidget* parent = nullptr);

  void setTimeline(std::shared_ptr<const TimelineData> timeline);
  const std::shared_ptr<const TimelineData>& timeline() const { return m_data; }

  // The frame as it would be painted now (for tests and the benchmark).
  TimelineFrame frame() const;
  QRect spanArea() const;
  // The time axis above the span area, and its tick labels as painted now: each label's box lies inside the axis,
  // moved in from an edge it would run past, or left out where it would then overlap its neighbour (axis_labels.h).
  QRect axisArea() const;
  std::vector<std::pair<QRect, QString>> tickLabels() const;
  int shownLaneCount() const { return static_cast<int>(m_lanes.size()); }
  int laneHeight() const { return m_laneHeight; }
  const TimeScale& scale() const { return m_scale; }
  std::optional<qint64> cursorTime() const { return m_cursor; }
  std::optional<SpanRef> selectedSpan() const { return m_selected; }
  bool showLinkLanes() const { return m_showLinks; }
  bool showCollectiveLanes() const { return m_showCollectives; }
  // The legend's entries, left to right: the span kinds shown, link utilization, then a multi-job trace's jobs.
  std::vector<std::pair<QColor, QString>> legendItems() const;
  // A multi-job trace's job colours (the lane headers' strips and the legend); empty otherwise.
  const JobColors& jobColors() const { return m_jobColors; }

  QSize sizeHint() const override { return {1200, 600}; }

 public slots:
  // Whole time range across the width; lanes shrink (down to a pixel) so that all fit the height.
  void fit();
  void zoomIn();
  // Shows [fromPs, toPs] across the width (lane heights unchanged).
  void showTimeRange(qint64 fromPs, qint64 toPs);
  void zoomOut();
  void setShowLinkLanes(bool show);
  void setShowCollectiveLanes(bool show);
  void setCursorTime(qint64 timePs);
  void selectSpan(std::optional<SpanRef> span);

 signals:
  void cursorMoved(qint64 timePs);
  void spanSelected(SpanRef span);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void rebuildLanes();
  void updateScrollBar();
  void setScale(const TimeScale& scale);
  void paintLegend(QPainter& p, const QRect& r) const;
  void paintAxis(QPainter& p, const QRect& r) const;
  void paintLaneHeaders(QPainter& p, const QRect& r, const TimelineFrame& f) const;
  void paintJobStrips(QPainter& p, const QRect& r, const TimelineFrame& f) const;
  QString toolTipFor(const SpanRef& ref) const;

  std::shared_ptr<const TimelineData> m_data;
  std::vector<int> m_lanes;
  std::vector<SpanKind> m_legendKinds;
  JobColors m_jobColors;
  TimeScale m_scale;
  int m_laneHeight = kDefaultLaneHeight;
  bool m_showLinks = true;
  bool m_showCollectives = true;
  bool m_needsFit = true;
  std::optional<SpanRef> m_selected;
  std::optional<qint64> m_cursor;
  QScrollBar* m_scroll = nullptr;
  mutable QImage m_scratch;

  enum class Drag { None, Pan, Box };
  Drag m_drag = Drag::None;
  QPoint m_pressPos;
  QPoint m_lastPos;
  bool m_moved = false;
};
