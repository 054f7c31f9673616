#include "widgets/jobs_view.h"

#include <QFontDatabase>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <cmath>

#include "models/job_machine.h"
#include "models/topology_placement.h"
#include "widgets/jobs_painter.h"
#include "widgets/topology_drawing.h"

namespace {

constexpr int kLegendHeight = 30;
constexpr double kJobsMargin = 12;  // pixels around the machine
constexpr double kSwatch = 12;
constexpr double kLinkHit = 4;  // a tooltip finds a link this close (pixels)

double distanceToSegment(QPointF p, QPointF a, QPointF b) {
  const QPointF d = b - a;
  const double length2 = d.x() * d.x() + d.y() * d.y();
  const double t = length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / length2, 0.0, 1.0) : 0.0;
  const QPointF q = a + d * t - p;
  return std::hypot(q.x(), q.y());
}

}  // namespace

JobsView::JobsView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(300, 300);
  useWhiteCanvas(this);
}

JobsView::~JobsView() = default;

void JobsView::setJobs(std::shared_ptr<const JobMachine> jobs) {
  if (jobs != m_jobs) m_expanded.reset();
  m_jobs = std::move(jobs);
  m_placement.reset();
  update();
}

void JobsView::setExpandedServers(std::set<int> hostBoxes) {
  m_expanded = std::move(hostBoxes);
  m_placement.reset();
  update();
}

bool JobsView::serverExpanded(int hostBox) const {
  if (!m_jobs) return false;
  if (m_expanded) return m_expanded->count(hostBox) > 0;
  return !TopologyPlacement::collapsedByDefault(m_jobs->layout(), drawingArea().size());
}

int JobsView::footerHeight() const {
  if (!m_jobs) return 0;
  const QFontMetricsF metrics(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return static_cast<int>(std::ceil(metrics.lineSpacing() * static_cast<double>(m_jobs->summary().size()) + 12));
}

QRectF JobsView::drawingArea() const {
  return QRectF(0, kLegendHeight, width(), height() - kLegendHeight - footerHeight());
}

const TopologyPlacement* JobsView::placement() const {
  if (!m_jobs || m_jobs->layout().isCircle()) return nullptr;
  const QRectF area = drawingArea().adjusted(kJobsMargin, kJobsMargin, -kJobsMargin, -kJobsMargin);
  if (!m_placement || m_placedFor != area.size()) {
    std::set<int> expanded;
    for (const int host : m_jobs->layout().hostBoxes()) {
      if (serverExpanded(host)) expanded.insert(host);
    }
    m_placement = std::make_unique<TopologyPlacement>(m_jobs->layout(), expanded, area.size());
    m_placedFor = area.size();
  }
  return m_placement.get();
}

QTransform JobsView::topologyTransform() const {
  const TopologyPlacement* placed = placement();
  return placed ? TopologyPlacement::transform(placed->bounds(), drawingArea(), kJobsMargin) : QTransform();
}

std::vector<std::pair<QColor, QString>> JobsView::legendItems() const {
  std::vector<std::pair<QColor, QString>> items;
  if (!m_jobs) return items;
  for (const JobMachine::Job& j : m_jobs->jobs()) {
    items.emplace_back(j.color,
                       tr("%1: %2 ms, %3x").arg(j.name).arg(j.iterationMs, 0, 'f', 3).arg(j.slowdown, 0, 'f', 3));
  }
  items.emplace_back(JobsPainter::idleColor(), tr("idle"));
  bool background = false;
  for (std::size_t e = 0; e < m_jobs->layout().edges().size(); ++e) {
    background = background || m_jobs->backgroundEdge(static_cast<int>(e));
  }
  if (background) items.emplace_back(JobsPainter::backgroundColor(), tr("background"));
  return items;
}

void JobsView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  if (!m_jobs) {
    p.drawText(rect(), Qt::AlignCenter, tr("Open a scenario with jobs: to see its jobs on the machine."));
    return;
  }
  // The legend: each job, idle, background; then a striped sample for shared links.
  double x = 8;
  const QFontMetricsF metrics(p.font(), p.device());
  for (const auto& [colour, text] : legendItems()) {
    p.setPen(QPen(QColor(0x60, 0x60, 0x60), 1));
    p.setBrush(colour);
    p.drawRect(QRectF(x, (kLegendHeight - kSwatch) / 2, kSwatch, kSwatch));
    x += kSwatch + 4;
    p.setPen(Qt::black);
    p.drawText(QRectF(x, 0, metrics.horizontalAdvance(text) + 2, kLegendHeight), Qt::AlignVCenter, text);
    x += metrics.horizontalAdvance(text) + 16;
  }
  const QString shared = tr("shared link (stripes: its jobs)");
  for (int i = 0; i < 2 && i < static_cast<int>(m_jobs->jobs().size()); ++i) {
    QPen pen(m_jobs->jobs()[static_cast<std::size_t>(i)].color, 3.5, Qt::SolidLine, Qt::FlatCap);
    pen.setDashPattern({2, 2});
    pen.setDashOffset(2 * i);
    p.setPen(pen);
    p.drawLine(QPointF(x, kLegendHeight / 2.0), QPointF(x + 28, kLegendHeight / 2.0));
  }
  p.setPen(Qt::black);
  p.drawText(QRectF(x + 34, 0, metrics.horizontalAdvance(shared) + 2, kLegendHeight), Qt::AlignVCenter, shared);

  if (const TopologyPlacement* placed = placement()) {
    JobsPainter(*m_jobs, *placed).paint(p, topologyTransform());
  } else {
    p.drawText(drawingArea(), Qt::AlignCenter,
               tr("%1: no servers or switches to draw the jobs on").arg(m_jobs->layout().description()));
  }
  // What `syncsim run` prints for the same file.
  p.setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  p.setPen(QColor(0x20, 0x20, 0x20));
  const QRectF footer(8, height() - footerHeight() + 6, width() - 16, footerHeight() - 6);
  p.drawText(footer, Qt::AlignLeft | Qt::AlignTop, m_jobs->summary().join(QLatin1Char('\n')));
}

int JobsView::serverAt(QPointF point) const {
  const TopologyPlacement* placed = placement();
  if (!placed) return -1;
  const QTransform map = topologyTransform();
  for (const int host : m_jobs->layout().hostBoxes()) {
    if (map.mapRect(placed->rect(host)).contains(point)) return host;
  }
  return -1;
}

void JobsView::mousePressEvent(QMouseEvent* event) {
  const int host = serverAt(event->position());
  if (event->button() != Qt::LeftButton || host < 0) return QWidget::mousePressEvent(event);
  if (!m_expanded) {
    m_expanded.emplace();
    for (const int h : m_jobs->layout().hostBoxes()) {
      if (serverExpanded(h)) m_expanded->insert(h);
    }
  }
  if (!m_expanded->erase(host)) m_expanded->insert(host);
  m_placement.reset();
  update();
  event->accept();
}

QString JobsView::tipAt(QPointF pos) const {
  const TopologyPlacement* placed = placement();
  if (!placed) return {};
  const QTransform map = topologyTransform();
  const TopologyLayout& layout = m_jobs->layout();
  const auto& boxes = layout.boxes();
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    if (boxes[b].kind == TopologyBox::Kind::Host || placed->rects()[b].isNull()) continue;
    if (!map.mapRect(placed->rects()[b]).contains(pos)) continue;
    const int job = m_jobs->jobOfBox(static_cast<int>(b));
    if (boxes[b].kind != TopologyBox::Kind::Gpu) return boxes[b].label;
    return job < 0 ? tr("%1: idle").arg(boxes[b].label)
                   : tr("%1: job %2").arg(boxes[b].label, m_jobs->jobs()[static_cast<std::size_t>(job)].name);
  }
  const auto& edges = layout.edges();
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (!placed->edgeShown(static_cast<int>(e)) || m_jobs->edgeJobs(static_cast<int>(e)).empty()) continue;
    const auto [a, b] = linkEndpoints(map.mapRect(placed->rect(edges[e].a)), map.mapRect(placed->rect(edges[e].b)));
    if (distanceToSegment(pos, a, b) <= kLinkHit) return m_jobs->edgeTip(static_cast<int>(e));
  }
  const int host = serverAt(pos);
  if (host < 0) return {};
  const int job = m_jobs->jobOfBox(host);
  return job < 0 ? boxes[static_cast<std::size_t>(host)].label
                 : tr("%1: job %2")
                       .arg(boxes[static_cast<std::size_t>(host)].label,
                            m_jobs->jobs()[static_cast<std::size_t>(job)].name);
}

bool JobsView::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const QString text = m_jobs ? tipAt(help->pos()) : QString();
  return showToolTip(this, event, text);
}
