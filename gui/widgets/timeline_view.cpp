#include "widgets/timeline_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <array>
#include <cmath>

#include "models/axis_labels.h"
#include "models/lane_model.h"

namespace {

constexpr int kScrollBarWidth = 14;
constexpr int kDragThresholdPx = 4;
// Pixels between a tick and its label, and the least between two labels.
constexpr int kTickLabelGap = 3;
// Wheel: one notch (120) zooms by about 20 %.
constexpr double kWheelZoomPerUnit = 1.0015;

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent), m_scroll(new QScrollBar(Qt::Vertical, this)) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(400, 200);
  connect(m_scroll, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
}

void TimelineView::setTimeline(std::shared_ptr<const TimelineData> timeline) {
  m_data = std::move(timeline);
  m_jobColors = m_data ? JobColors::of(*m_data) : JobColors();
  m_selected.reset();
  m_cursor.reset();
  rebuildLanes();
  m_needsFit = true;
  fit();
}

void TimelineView::rebuildLanes() {
  m_lanes.clear();
  if (m_data) {
    for (std::size_t i = 0; i < m_data->lanes().size(); ++i) {
      const LaneKind kind = m_data->lanes()[i].kind;
      if ((kind == LaneKind::Link && !m_showLinks) || (kind == LaneKind::Collective && !m_showCollectives)) continue;
      m_lanes.push_back(static_cast<int>(i));
    }
  }
  if (m_selected && std::find(m_lanes.begin(), m_lanes.end(), m_selected->lane) == m_lanes.end()) m_selected.reset();
  // The legend names what the shown lanes hold: the four kinds every run has, then any other that occurs. A job
  // timeline (job_timeline.json) has none of the four: its own kinds only.
  std::array<bool, kSpanKindCount> seen{};
  for (const int lane : m_lanes) {
    for (const TimelineRow& row : m_data->lanes()[static_cast<std::size_t>(lane)].rows) {
      for (const TimelineSpan& s : row.spans) seen[static_cast<std::size_t>(s.kind)] = true;
    }
  }
  m_legendKinds.clear();
  if (!seen[static_cast<std::size_t>(SpanKind::JobTraining)]) {
    m_legendKinds = {SpanKind::Forward, SpanKind::Backward, SpanKind::Communication, SpanKind::Idle};
  }
  for (int k = 0; k < kSpanKindCount; ++k) {
    const auto kind = static_cast<SpanKind>(k);
    if (seen[static_cast<std::size_t>(k)] &&
        std::find(m_legendKinds.begin(), m_legendKinds.end(), kind) == m_legendKinds.end()) {
      m_legendKinds.push_back(kind);
    }
  }
  updateScrollBar();
  update();
}

QRect TimelineView::axisArea() const {
  const QRect area = spanArea();
  return QRect(area.left(), kLegendHeight, area.width(), kAxisHeight);
}

QRect TimelineView::spanArea() const {
  const int top = kLegendHeight + kAxisHeight;
  return QRect(kHeaderWidth, top, std::max(1, width() - kHeaderWidth - kScrollBarWidth), std::max(1, height() - top));
}

TimelineFrame TimelineView::frame() const {
  TimelineFrame f;
  f.data = m_data.get();
  f.lanes = m_lanes;
  f.laneHeight = m_laneHeight;
  f.scrollPx = m_scroll->value();
  f.scale = m_scale;
  f.selected = m_selected;
  f.cursorPs = m_cursor;
  return f;
}

void TimelineView::updateScrollBar() {
  const QRect area = spanArea();
  m_scroll->setGeometry(width() - kScrollBarWidth, area.top(), kScrollBarWidth, area.height());
  const int total = static_cast<int>(m_lanes.size()) * m_laneHeight;
  m_scroll->setRange(0, std::max(0, total - area.height()));
  m_scroll->setPageStep(area.height());
  m_scroll->setSingleStep(std::max(1, m_laneHeight));
}

void TimelineView::fit() {
  if (!m_data) return;
  const QRect area = spanArea();
  m_scale = TimeScale::fit(m_data->beginPs(), m_data->endPs(), area.width());
  const int lanes = std::max<int>(1, static_cast<int>(m_lanes.size()));
  m_laneHeight = std::clamp(area.height() / lanes, 1, kDefaultLaneHeight);
  m_needsFit = !isVisible() && width() <= 1;
  updateScrollBar();
  m_scroll->setValue(0);
  update();
}

void TimelineView::setScale(const TimeScale& scale) {
  m_scale = scale;
  update();
}

void TimelineView::showTimeRange(qint64 fromPs, qint64 toPs) {
  m_needsFit = false;
  setScale(TimeScale::fit(std::min(fromPs, toPs), std::max(fromPs, toPs), spanArea().width()));
}

void TimelineView::zoomIn() {
  setScale(m_scale.zoomedAt(spanArea().width() / 2.0, 1.5));
}

void TimelineView::zoomOut() {
  setScale(m_scale.zoomedAt(spanArea().width() / 2.0, 1 / 1.5));
}

void TimelineView::setShowLinkLanes(bool show) {
  if (show == m_showLinks) return;
  m_showLinks = show;
  rebuildLanes();
}

void TimelineView::setShowCollectiveLanes(bool show) {
  if (show == m_showCollectives) return;
  m_showCollectives = show;
  rebuildLanes();
}

void TimelineView::setCursorTime(qint64 timePs) {
  if (m_cursor == timePs) return;
  m_cursor = timePs;
  // Keep the cursor on screen: centre it when it left the visible window.
  const double x = m_scale.toX(timePs);
  if (x < 0 || x > spanArea().width()) m_scale = m_scale.panned(spanArea().width() / 2.0 - x);
  update();
  emit cursorMoved(timePs);
}

void TimelineView::selectSpan(std::optional<SpanRef> span) {
  m_selected = span;
  update();
  if (span) emit spanSelected(*span);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (m_needsFit) {
    fit();
  } else {
    updateScrollBar();
  }
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect area = spanArea();
  const TimelineFrame f = frame();
  p.fillRect(rect(), palette().window());
  paintLegend(p, QRect(0, 0, width(), kLegendHeight));
  paintAxis(p, axisArea());
  TimelineRenderer::paint(p, area, f, m_scratch);
  paintLaneHeaders(p, QRect(0, area.top(), kHeaderWidth, area.height()), f);
  if (m_drag == Drag::Box && m_moved) {
    const int x0 = std::clamp(m_pressPos.x(), area.left(), area.right());
    const int x1 = std::clamp(m_lastPos.x(), area.left(), area.right());
    p.fillRect(QRect(QPoint(std::min(x0, x1), area.top()), QPoint(std::max(x0, x1), area.bottom())),
               QColor(0x30, 0x60, 0xC0, 50));
  }
  if (!m_data) {
    p.setPen(palette().text().color());
    p.drawText(area, Qt::AlignCenter, tr("Open a scenario (YAML) or a trace (trace.json) to see its timeline."));
  }
}

std::vector<std::pair<QColor, QString>> TimelineView::legendItems() const {
  std::vector<std::pair<QColor, QString>> items;
  for (SpanKind k : m_legendKinds) items.emplace_back(spanKindColor(k), spanKindName(k));
  if (m_data && m_showLinks && m_data->laneCount(LaneKind::Link) > 0) {
    items.emplace_back(TimelineRenderer::counterColor(), tr("Link utilization"));
  }
  for (const JobColors::Job& job : m_jobColors.jobs()) items.emplace_back(job.color, tr("job %1").arg(job.name));
  return items;
}

void TimelineView::paintLegend(QPainter& p, const QRect& r) const {
  const std::vector<std::pair<QColor, QString>> items = legendItems();
  const QFontMetrics fm(p.font());
  int x = r.left() + 8;
  p.setPen(palette().text().color());
  for (const auto& [colour, name] : items) {
    const QRect swatch(x, r.center().y() - 6, 14, 12);
    p.fillRect(swatch, colour);
    p.drawRect(swatch.adjusted(0, 0, -1, -1));
    x += 18;
    p.drawText(QRect(x, r.top(), fm.horizontalAdvance(name) + 2, r.height()), Qt::AlignVCenter, name);
    x += fm.horizontalAdvance(name) + 16;
  }
}

void TimelineView::paintAxis(QPainter& p, const QRect& r) const {
  p.save();
  p.setClipRect(r.adjusted(0, 0, 0, 1));
  p.setPen(palette().text().color());
  p.drawLine(r.bottomLeft(), r.bottomRight());
  if (m_data) {
    for (const TimeTick& tick : m_scale.ticks(r.width())) {
      const int x = r.left() + static_cast<int>(std::lround(tick.x));
      p.drawLine(x, r.bottom() - 5, x, r.bottom());
    }
    for (const auto& [box, label] : tickLabels()) p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, label);
  }
  p.restore();
}

std::vector<std::pair<QRect, QString>> TimelineView::tickLabels() const {
  if (!m_data) return {};
  const QRect r = axisArea();
  const QFontMetrics fm(font());
  const std::vector<TimeTick> ticks = m_scale.ticks(r.width());
  std::vector<int> xs;
  std::vector<int> widths;
  for (const TimeTick& tick : ticks) {
    xs.push_back(r.left() + static_cast<int>(std::lround(tick.x)));
    widths.push_back(fm.horizontalAdvance(tick.label));
  }
  std::vector<std::pair<QRect, QString>> out;
  for (const AxisLabelPlace& place : placeAxisLabels(xs, widths, r.left(), r.left() + r.width(), kTickLabelGap)) {
    const auto i = static_cast<std::size_t>(place.tick);
    out.emplace_back(QRect(place.left, r.top(), widths[i], r.height() - 4), ticks[i].label);
  }
  return out;
}

// A job's GPU lanes: a strip of its colour at the headers' left edge, at any lane height (the legend names the jobs).
void TimelineView::paintJobStrips(QPainter& p, const QRect& r, const TimelineFrame& f) const {
  if (m_jobColors.jobs().empty()) return;
  const int first = std::max(0, f.scrollPx / std::max(1, f.laneHeight));
  for (int i = first; i < static_cast<int>(f.lanes.size()); ++i) {
    const int y = r.top() + f.laneTop(i);
    if (y > r.bottom()) break;
    if (const std::optional<QColor> job = m_jobColors.laneColor(f.lanes[static_cast<std::size_t>(i)])) {
      p.fillRect(QRect(r.left(), y, 4, std::max(1, f.laneHeight - 1)), *job);
    }
  }
}

void TimelineView::paintLaneHeaders(QPainter& p, const QRect& r, const TimelineFrame& f) const {
  p.save();
  p.setClipRect(r);
  p.fillRect(r, palette().window());
  paintJobStrips(p, r, f);
  if (m_data && f.laneHeight >= 8) {
    const QFontMetrics fm(p.font());
    p.setPen(palette().text().color());
    const int first = std::max(0, f.scrollPx / f.laneHeight);
    for (int i = first; i < static_cast<int>(f.lanes.size()); ++i) {
      const int y = r.top() + f.laneTop(i);
      if (y > r.bottom()) break;
      const TimelineLane& lane = m_data->lanes()[static_cast<std::size_t>(f.lanes[static_cast<std::size_t>(i)])];
      const QString text = fm.elidedText(lane.name, Qt::ElideMiddle, r.width() - 10);
      p.drawText(QRect(r.left() + 6, y, r.width() - 10, f.laneHeight), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
  } else if (m_data) {
    // Lanes too thin to label: say how many there are instead.
    p.setPen(palette().text().color());
    p.drawText(r.adjusted(6, 4, -4, 0), Qt::AlignTop | Qt::AlignLeft | Qt::TextWordWrap,
               tr("%1 lanes").arg(f.lanes.size()));
  }
  p.setPen(palette().mid().color());
  p.drawLine(r.topRight(), r.bottomRight());
  p.restore();
}

QString TimelineView::toolTipFor(const SpanRef& ref) const {
  const TimelineSpan& s = m_data->span(ref);
  const QLocale locale;
  QStringList lines;
  lines << QStringLiteral("<b>%1</b>").arg(m_data->name(s.name).toHtmlEscaped());
  lines << tr("Kind: %1").arg(spanKindName(s.kind));
  lines << tr("Lane: %1").arg(m_data->lanes()[static_cast<std::size_t>(ref.lane)].name.toHtmlEscaped());
  if (s.has(TimelineSpan::HasIteration)) lines << tr("Iteration: %1").arg(s.iteration);
  if (s.has(TimelineSpan::HasBucket)) lines << tr("Bucket: %1").arg(s.bucket);
  if (s.has(TimelineSpan::HasBytes)) {
    lines << tr("Bytes: %1 (%2)")
                 .arg(locale.toString(s.bytes), locale.formattedDataSize(s.bytes, 2, QLocale::DataSizeSIFormat));
  }
  lines << tr("Start: %1").arg(TimeScale::formatTime(s.startPs, 1000));
  lines << tr("Duration: %1").arg(TimeScale::formatDuration(s.durationPs));
  if (s.has(TimelineSpan::HasPeers)) lines << tr("Peers: %1").arg(s.peers);
  return lines.join(QStringLiteral("<br>"));
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_data) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QRect area = spanArea();
    std::optional<SpanRef> ref;
    if (area.contains(help->pos())) ref = TimelineRenderer::spanAt(frame(), help->pos() - area.topLeft());
    if (ref) {
      QToolTip::showText(help->globalPos(), toolTipFor(*ref), this);
    } else {
      QToolTip::hideText();
      event->ignore();
    }
    return true;
  }
  return QWidget::event(event);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QRect area = spanArea();
  const int delta = event->angleDelta().y() != 0 ? event->angleDelta().y() : event->angleDelta().x();
  if (event->modifiers() & Qt::ShiftModifier) {
    m_scroll->setValue(m_scroll->value() - delta * m_laneHeight / 120);
  } else if (event->modifiers() & Qt::ControlModifier) {
    m_laneHeight = std::clamp(m_laneHeight + (delta > 0 ? 2 : -2), 1, 120);
    updateScrollBar();
    update();
  } else {
    const double x = event->position().x() - area.left();
    setScale(m_scale.zoomedAt(x, std::pow(kWheelZoomPerUnit, delta)));
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  m_pressPos = m_lastPos = event->pos();
  m_moved = false;
  const bool box = event->button() == Qt::RightButton ||
                   (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
  m_drag = box ? Drag::Box : event->button() == Qt::LeftButton ? Drag::Pan : Drag::None;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (m_drag == Drag::None) return;
  if ((event->pos() - m_pressPos).manhattanLength() >= kDragThresholdPx) m_moved = true;
  if (m_drag == Drag::Pan && m_moved) {
    const QPoint d = event->pos() - m_lastPos;
    m_scale = m_scale.panned(d.x());
    m_scroll->setValue(m_scroll->value() - d.y());
  }
  m_lastPos = event->pos();
  update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const QRect area = spanArea();
  if (m_drag == Drag::Box && m_moved) {
    setScale(m_scale.boxed(m_pressPos.x() - area.left(), event->pos().x() - area.left(), area.width()));
  } else if (m_drag == Drag::Pan && !m_moved && area.contains(event->pos())) {
    const QPoint pos = event->pos() - area.topLeft();
    selectSpan(TimelineRenderer::spanAt(frame(), pos));
    setCursorTime(m_scale.toTime(pos.x()));
  }
  m_drag = Drag::None;
  update();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
  fit();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const double page = spanArea().width() / 4.0;
  switch (event->key()) {
    case Qt::Key_F:
      fit();
      break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomIn();
      break;
    case Qt::Key_Minus:
      zoomOut();
      break;
    case Qt::Key_Left:
      setScale(m_scale.panned(page));
      break;
    case Qt::Key_Right:
      setScale(m_scale.panned(-page));
      break;
    default:
      QWidget::keyPressEvent(event);
  }
}
