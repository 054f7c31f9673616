#include "widgets/ring_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "models/collective_traffic.h"
#include "models/ring_step_model.h"
#include "models/ring_sync.h"
#include "models/topology_layout.h"
#include "models/topology_placement.h"
#include "widgets/topology_drawing.h"
#include "widgets/topology_painter.h"

namespace {

// Pixels around the machine's drawing inside the area between title and footer (ring_view_captions.cpp).
constexpr double kTopologyMargin = 12;
// Above this many ranks the piece strips would be thinner than a pixel: nodes show the reduced share instead.
constexpr int kMaxRanksWithStrips = 32;

QPointF unit(double angle) {
  return {std::cos(angle), std::sin(angle)};
}

void drawArrow(QPainter& p, QPointF from, QPointF to, const QColor& colour, double width) {
  const QPointF d = to - from;
  const double len = std::hypot(d.x(), d.y());
  if (len < 1) return;
  const QPointF u = d / len;
  const QPointF n(-u.y(), u.x());
  const double head = std::max(8.0, width * 3);
  p.setPen(QPen(colour, width, Qt::SolidLine, Qt::RoundCap));
  p.drawLine(from, to - u * head * 0.8);
  QPainterPath tip;
  tip.moveTo(to);
  tip.lineTo(to - u * head + n * head * 0.5);
  tip.lineTo(to - u * head - n * head * 0.5);
  tip.closeSubpath();
  p.fillPath(tip, colour);
}

}  // namespace

RingView::RingView(RingStepModel* model, QWidget* parent) : QWidget(parent), m_model(model) {
  setMinimumSize(300, 300);
  useWhiteCanvas(this);
  connect(m_model, &RingStepModel::stepChanged, this, qOverload<>(&QWidget::update));
  connect(m_model, &RingStepModel::modelReset, this, [this] {
    m_footerText.reset();  // the channel shown, and whether the machine holds the new ranks
    update();
  });
}

RingView::~RingView() = default;

void RingView::setBucket(std::optional<TimelineSpan> allReduce) {
  m_bucket = allReduce;
  updateRates();
  update();
}

void RingView::setTopology(std::shared_ptr<const TopologyLayout> topology) {
  if (topology != m_topology) m_expanded.reset();
  m_topology = std::move(topology);
  m_placement.reset();
  updateRates();
  update();
}

void RingView::setTraffic(std::shared_ptr<const CollectiveTraffic> traffic) {
  m_traffic = std::move(traffic);
  if (m_channel && (!m_traffic || *m_channel >= m_traffic->channelCount())) m_channel.reset();
  updateRates();
  update();
}

void RingView::setChannel(std::optional<int> channel) {
  m_channel = channel;
  updateRates();
  update();
}

void RingView::setNote(const QString& note) {
  m_note = note;
  update();
}

// The simulator's bytes per link over the AllReduce's duration (collective_traffic.h).
void RingView::updateRates() {
  m_rates.clear();
  m_footerText.reset();  // it names the busiest links
  if (!m_bucket || !m_traffic || !m_traffic->layout() || !m_bucket->has(TimelineSpan::HasBytes) ||
      m_bucket->durationPs <= 0) {
    return;
  }
  m_rates = m_traffic->edgeBytes(m_bucket->bytes, m_channel);
  const double seconds = static_cast<double>(m_bucket->durationPs) * 1e-12;
  for (double& r : m_rates) r /= seconds;
}

bool RingView::serverExpanded(int hostBox) const {
  if (!m_topology) return false;
  if (m_expanded) return m_expanded->count(hostBox) > 0;
  return !TopologyPlacement::collapsedByDefault(*m_topology, drawingArea().size());
}

void RingView::setServerExpanded(int hostBox, bool expanded) {
  if (!m_topology || serverExpanded(hostBox) == expanded) return;
  if (!m_expanded) {
    m_expanded.emplace();
    for (const int host : m_topology->hostBoxes()) {
      if (serverExpanded(host)) m_expanded->insert(host);
    }
  }
  if (expanded) {
    m_expanded->insert(hostBox);
  } else {
    m_expanded->erase(hostBox);
  }
  m_placement.reset();
  update();
  emit serverToggled(hostBox, expanded);
}

void RingView::setExpandedServers(std::set<int> hostBoxes) {
  m_expanded = std::move(hostBoxes);
  m_placement.reset();
  update();
}

const TopologyPlacement* RingView::placement() const {
  if (!drawsTopology()) return nullptr;
  const QRectF area = drawingArea().adjusted(kTopologyMargin, kTopologyMargin, -kTopologyMargin, -kTopologyMargin);
  if (!m_placement || m_placedFor != area.size()) {
    std::set<int> expanded;
    for (const int host : m_topology->hostBoxes()) {
      if (serverExpanded(host)) expanded.insert(host);
    }
    m_placement = std::make_unique<TopologyPlacement>(*m_topology, expanded, area.size());
    m_placedFor = area.size();
  }
  return m_placement.get();
}

QTransform RingView::topologyTransform() const {
  const TopologyPlacement* placed = placement();
  return placed ? TopologyPlacement::transform(placed->bounds(), drawingArea(), kTopologyMargin) : QTransform();
}

int RingView::serverAt(QPointF point) const {
  const TopologyPlacement* placed = placement();
  if (!placed) return -1;
  const QTransform map = topologyTransform();
  for (const int host : m_topology->hostBoxes()) {
    if (map.mapRect(placed->rect(host)).contains(point)) return host;
  }
  return -1;
}

void RingView::mousePressEvent(QMouseEvent* event) {
  const int host = serverAt(event->position());
  if (event->button() == Qt::LeftButton && host >= 0) {
    setServerExpanded(host, !serverExpanded(host));
    event->accept();
    return;
  }
  QWidget::mousePressEvent(event);
}

bool RingView::event(QEvent* event) {
  if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange) {
    m_measuredTitleWidth = -1;  // the captions' lines wrap anew
    m_footerText.reset();
  }
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const TopologyPlacement* placed = placement();
  QString text;
  if (placed) {
    const QTransform map = topologyTransform();
    const auto& boxes = m_topology->boxes();
    for (std::size_t b = 0; b < boxes.size() && text.isEmpty(); ++b) {
      if (boxes[b].kind == TopologyBox::Kind::Host || placed->rects()[b].isNull()) continue;
      if (map.mapRect(placed->rects()[b]).contains(help->pos())) text = boxes[b].label;
    }
    const int host = serverAt(help->pos());
    if (text.isEmpty() && host >= 0) {
      text = tr("%1: click to %2 its GPUs")
                 .arg(boxes[static_cast<std::size_t>(host)].label, serverExpanded(host) ? tr("hide") : tr("show"));
    }
  }
  return showToolTip(this, event, text);
}

bool RingView::drawsTopology() const {
  // The layout's GPUs must hold every rank of the schedule (a trace's ranks may not match the scenario's machine).
  if (!m_topology || m_topology->isCircle()) return false;
  for (int r = 0; r < m_model->schedule().rankCount(); ++r) {
    if (gpuOfRank(r) >= static_cast<int>(m_topology->gpuCount())) return false;
  }
  return true;
}

int RingView::gpuOfRank(int rank) const {
  const bool mapped = m_traffic && m_traffic->spec().ranks == m_model->schedule().rankCount();
  return mapped ? m_traffic->gpuOf(rank) : rank;
}

void RingView::setGroup(const QString& group) {
  m_group = group;
  update();
}

std::optional<double> RingView::transferRate(int chunks) const {
  if (!m_bucket) return std::nullopt;
  const CollectiveSchedule& s = m_model->schedule();
  const auto rate = collectiveTransferRate(*m_bucket, s.stepCount(), chunks, s.pieceCount());
  // Each of the simulator's channels moves its share of the buffer.
  const int channels = m_traffic ? m_traffic->channelCount() : 1;
  return rate ? std::optional(*rate / channels) : std::nullopt;
}

QColor RingView::chunkColor(int chunk, int chunks) {
  // Hues spread evenly, skipping none: neighbouring chunks differ most when n is small.
  return QColor::fromHsvF(static_cast<float>(chunk) / static_cast<float>(std::max(chunks, 1)), 0.75F, 0.85F);
}

QRectF RingView::drawingArea() const {
  const QRect title = titleRect();
  const int top = title.bottom() + 3;
  return QRectF(0, top, width(), std::max(1, footerBelow(title).top() - top));
}

double RingView::ringRadius() const {
  const QRectF a = drawingArea();
  return std::max(40.0, std::min(a.width(), a.height()) * 0.32);
}

double RingView::nodeRadius() const {
  const int n = m_model->schedule().rankCount();
  return std::clamp(ringRadius() * std::numbers::pi / n * 0.42, 3.0, 30.0);
}

QPointF RingView::rankCentre(int rank) const {
  if (const TopologyPlacement* placed = placement()) {
    return topologyTransform().mapRect(placed->rect(m_topology->gpuBox(gpuOfRank(rank)))).center();
  }
  const int n = m_model->schedule().rankCount();
  // Rank 0 at the top, then clockwise: the direction a ring's data moves.
  const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * rank / n;
  return drawingArea().center() + unit(angle) * ringRadius();
}

void RingView::drawStrip(QPainter& p, const QRectF& strip, int r) const {
  const CollectiveSchedule& s = m_model->schedule();
  const int pieces = s.pieceCount();
  const int n = s.fullCount();
  const double cell = strip.width() / pieces;
  for (int k = 0; k < pieces; ++k) {
    const int have = m_model->contributions(r, k);
    const QModelIndex index = m_model->index(r, k);
    const QRectF box(strip.left() + k * cell, strip.top(), std::max(1.0, cell - 1), strip.height());
    const QColor fill = chunkColor(k, pieces);
    // Fill height shows the share of ranks summed in: 1/n at the start, full once reduced.
    const double share = static_cast<double>(have) / n;
    p.setPen(Qt::NoPen);
    p.setBrush(fill.lighter(170));
    p.drawRect(box);
    p.setBrush(fill);
    p.drawRect(QRectF(box.left(), box.bottom() - box.height() * share, box.width(), box.height() * share));
    p.setBrush(Qt::NoBrush);
    if (have == n) {
      p.setPen(QPen(Qt::black, 1.5));
      p.drawRect(box);
    }
    const bool sending = m_model->data(index, RingStepModel::SendingRole).toBool();
    const bool receiving = m_model->data(index, RingStepModel::ReceivingRole).toBool();
    if (!sending && !receiving) continue;
    // A marker above the cell: ▲ leaves this rank, ▼ arrives.
    const QPointF top(box.center().x(), box.top() - 2);
    const double w = std::clamp(cell / 2, 2.0, 4.0);
    QPainterPath tri;
    if (sending) {
      tri.moveTo(top + QPointF(0, -5));
      tri.lineTo(top + QPointF(-w, 1));
      tri.lineTo(top + QPointF(w, 1));
    } else {
      tri.moveTo(top + QPointF(0, 1));
      tri.lineTo(top + QPointF(-w, -5));
      tri.lineTo(top + QPointF(w, -5));
    }
    tri.closeSubpath();
    p.fillPath(tri, sending ? QColor(0x20, 0x20, 0x20) : QColor(0x80, 0x80, 0x80));
  }
}

void RingView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setFont(titleFont());
  p.setPen(Qt::black);
  p.drawText(titleRect(), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, titleText());
  p.setFont(font());

  if (const TopologyPlacement* placed = placement()) {
    m_rateLabels = TopologyPainter(*this, *m_model, *m_topology, *placed).paint(p, topologyTransform());
  } else {
    m_rateLabels.clear();
    paintCircle(p);
  }

  p.setFont(footerFont());
  p.setPen(QColor(0x40, 0x40, 0x40));
  const QRect footer = footerRect();  // builds m_footerText
  p.drawText(footer, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, *m_footerText);
}

void RingView::paintCircle(QPainter& p) {
  const CollectiveSchedule& s = m_model->schedule();
  const int n = s.rankCount();
  const int pieces = s.pieceCount();
  const double rn = nodeRadius();
  const QPointF centre = drawingArea().center();

  // The ring's links, thin grey, even for a tree or halving-doubling: they are the ranks' order.
  for (int r = 0; r < n; ++r) {
    p.setPen(QPen(QColor(0xC8, 0xC8, 0xC8), 2));
    p.drawLine(rankCentre(r), rankCentre((r + 1) % n));
  }

  // This step's transfers: one arrow each, in the moving piece's colour.
  for (const CollectiveTransfer& t : m_model->currentTransfers()) {
    const QPointF a = rankCentre(t.src);
    const QPointF b = rankCentre(t.dst);
    const QPointF d = (b - a) / std::max(1.0, std::hypot((b - a).x(), (b - a).y()));
    const QColor colour = chunkColor(t.chunk, pieces);
    drawArrow(p, a + d * (rn + 3), b - d * (rn + 3), colour, std::clamp(rn / 5, 2.0, 5.0));
    if (n > kMaxRanksWithStrips) continue;
    // Label outside the ring, beside the transfer's middle.
    const QPointF mid = (a + b) / 2;
    const QPointF out = (mid - centre) / std::max(1.0, std::hypot((mid - centre).x(), (mid - centre).y()));
    QString label = pieces == 1     ? tr("buffer")
                    : t.chunks == 1 ? tr("chunk %1").arg(t.chunk)
                                    : tr("chunks %1-%2").arg(t.chunk).arg(t.chunk + t.chunks - 1);
    if (const auto rate = transferRate(t.chunks)) {
      label += QStringLiteral("\n") + tr("%1 GB/s").arg(formatRateGbps(*rate));
    }
    const QRectF box(mid + out * 26 - QPointF(50, 16), QSizeF(100, 32));
    p.setPen(colour.darker(150));
    p.drawText(box, Qt::AlignCenter, label);
  }

  // Ranks, and beside each one its piece strip.
  for (int r = 0; r < n; ++r) {
    const QPointF c = rankCentre(r);
    int reduced = 0;
    for (int k = 0; k < pieces; ++k) reduced += m_model->contributions(r, k) == n ? 1 : 0;
    p.setPen(QPen(Qt::black, 1.5));
    p.setBrush(n > kMaxRanksWithStrips
                   ? QColor::fromHsvF(0.33F, static_cast<float>(reduced) / static_cast<float>(pieces), 0.9F)
                   : QColor(0xF2, 0xF2, 0xF2));
    p.drawEllipse(c, rn, rn);
    if (n > kMaxRanksWithStrips) continue;
    p.drawText(QRectF(c - QPointF(rn, rn), QSizeF(2 * rn, 2 * rn)), Qt::AlignCenter, tr("GPU %1").arg(r));

    // The strip sits outside the circle, centred on the line from the centre through the node.
    const double cell = std::clamp(ringRadius() * 0.9 / std::max(n, pieces * 2), 6.0, 18.0);
    const double stripWidth = std::max(pieces * cell, 2 * cell);
    const QPointF out = (c - centre) / ringRadius();
    // Far enough out along `out` that the strip's box clears the node in any direction.
    const double halfExtent = std::abs(out.x()) * stripWidth / 2 + std::abs(out.y()) * cell / 2;
    const QPointF stripCentre = c + out * (rn + halfExtent + 12);
    drawStrip(p, QRectF(stripCentre - QPointF(stripWidth / 2, cell / 2), QSizeF(stripWidth, cell - 1)), r);
  }
}
