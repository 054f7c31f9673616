#include "widgets/ring_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "models/ring_step_model.h"
#include "models/ring_sync.h"
#include "models/topology_layout.h"
#include "widgets/topology_painter.h"

namespace {

constexpr int kHeaderHeight = 48;
constexpr int kFooterHeight = 40;
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
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  pal.setColor(QPalette::WindowText, Qt::black);
  setPalette(pal);
  connect(m_model, &RingStepModel::stepChanged, this, qOverload<>(&QWidget::update));
  connect(m_model, &RingStepModel::modelReset, this, qOverload<>(&QWidget::update));
}

void RingView::setBucket(std::optional<TimelineSpan> allReduce) {
  m_bucket = allReduce;
  update();
}

void RingView::setTopology(std::shared_ptr<const TopologyLayout> topology) {
  m_topology = std::move(topology);
  update();
}

bool RingView::drawsTopology() const {
  // The layout's GPUs must hold every rank of the schedule (a trace's ranks may not match the scenario's machine).
  return m_topology && !m_topology->isCircle() &&
         static_cast<int>(m_topology->gpuCount()) >= m_model->schedule().rankCount();
}

std::optional<double> RingView::transferRate(int chunks) const {
  if (!m_bucket) return std::nullopt;
  const CollectiveSchedule& s = m_model->schedule();
  return collectiveTransferRate(*m_bucket, s.stepCount(), chunks, s.pieceCount());
}

QColor RingView::chunkColor(int chunk, int chunks) {
  // Hues spread evenly, skipping none: neighbouring chunks differ most when n is small.
  return QColor::fromHsvF(static_cast<float>(chunk) / static_cast<float>(std::max(chunks, 1)), 0.75F, 0.85F);
}

QRectF RingView::drawingArea() const {
  return QRectF(0, kHeaderHeight, width(), height() - kHeaderHeight - kFooterHeight);
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
  if (drawsTopology()) {
    return TopologyPainter::transform(*m_topology, drawingArea())
        .mapRect(m_topology->boxes()[static_cast<std::size_t>(m_topology->gpuBox(rank))].rect)
        .center();
  }
  const int n = m_model->schedule().rankCount();
  // Rank 0 at the top, then clockwise: the direction a ring's data moves.
  const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * rank / n;
  return drawingArea().center() + unit(angle) * ringRadius();
}

QString RingView::titleText() const {
  const CollectiveSchedule& s = m_model->schedule();
  const int step = m_model->step();
  QString head = tr("%1 on %2 ranks").arg(collectiveAlgorithmName(s.algorithm())).arg(s.rankCount());
  if (drawsTopology() && !m_topology->description().isEmpty()) head += tr(" (%1)").arg(m_topology->description());
  if (step >= s.stepCount()) {
    return head + tr(": done after %1 steps, every rank holds every piece fully reduced").arg(s.stepCount());
  }
  head += tr(": step %1 of %2, %3").arg(step + 1).arg(s.stepCount()).arg(s.phaseText(step));
  // The step's transfers all move the same share of the buffer (a fold aside): one rate says it.
  if (const auto rate = transferRate(s.transfers(step).front().chunks)) {
    head += tr("; %1 GB/s per transfer").arg(*rate / 1e9, 0, 'f', 1);
  }
  return head;
}

void RingView::drawStrip(QPainter& p, const QRectF& strip, int r) const {
  const CollectiveSchedule& s = m_model->schedule();
  const int pieces = s.pieceCount();
  const int n = s.rankCount();
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
  QFont titleFont = font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
  titleFont.setBold(true);
  p.setFont(titleFont);
  p.setPen(Qt::black);
  p.drawText(QRect(12, 4, width() - 24, kHeaderHeight - 6), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
             titleText());
  p.setFont(font());

  if (drawsTopology()) {
    TopologyPainter(*this, *m_model, *m_topology).paint(p, drawingArea());
  } else {
    paintCircle(p);
  }

  p.setPen(QColor(0x40, 0x40, 0x40));
  p.drawText(QRect(12, height() - kFooterHeight, width() - 24, kFooterHeight - 4),
             Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
             tr("Each strip: a rank's pieces of the buffer, coloured per piece, filled by the share of ranks summed "
                "in; black frame: fully reduced. ▲ sends, ▼ receives this step; coloured arrows and links: this "
                "step's transfers, with their rate."));
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
      label += QStringLiteral("\n") + tr("%1 GB/s").arg(*rate / 1e9, 0, 'f', 1);
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
