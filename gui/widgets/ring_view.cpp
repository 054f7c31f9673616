#include "widgets/ring_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "models/ring_step_model.h"

namespace {

constexpr int kHeaderHeight = 48;
constexpr int kFooterHeight = 40;
// Above this many ranks the chunk strips would be thinner than a pixel: nodes show the reduced share instead.
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

void RingView::setLinkRate(std::optional<double> bytesPerSecond) {
  m_rate = bytesPerSecond;
  update();
}

QColor RingView::chunkColor(int chunk, int chunks) {
  // Hues spread evenly, skipping none: neighbouring chunks differ most when n is small.
  return QColor::fromHsvF(static_cast<float>(chunk) / static_cast<float>(std::max(chunks, 1)), 0.75F, 0.85F);
}

double RingView::ringRadius() const {
  const double h = height() - kHeaderHeight - kFooterHeight;
  return std::max(40.0, std::min<double>(width(), h) * 0.32);
}

double RingView::nodeRadius() const {
  const int n = m_model->schedule().rankCount();
  return std::clamp(ringRadius() * std::numbers::pi / n * 0.42, 3.0, 30.0);
}

QPointF RingView::rankCentre(int rank) const {
  const int n = m_model->schedule().rankCount();
  const QPointF centre(width() / 2.0, kHeaderHeight + (height() - kHeaderHeight - kFooterHeight) / 2.0);
  // Rank 0 at the top, then clockwise: the direction data moves.
  const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * rank / n;
  return centre + unit(angle) * ringRadius();
}

QString RingView::phaseText() const {
  const RingSchedule& s = m_model->schedule();
  const int step = m_model->step();
  if (step >= s.stepCount()) {
    return tr("Done: after %1 steps every rank holds every chunk fully reduced").arg(s.stepCount());
  }
  if (s.isReduceScatter(step)) {
    return tr("Reduce-scatter, step %1 of %2 (overall %3 of %4)")
        .arg(step + 1)
        .arg(s.reduceScatterSteps())
        .arg(step + 1)
        .arg(s.stepCount());
  }
  return tr("All-gather, step %1 of %2 (overall %3 of %4)")
      .arg(step - s.reduceScatterSteps() + 1)
      .arg(s.stepCount() - s.reduceScatterSteps())
      .arg(step + 1)
      .arg(s.stepCount());
}

void RingView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const RingSchedule& s = m_model->schedule();
  const int n = s.rankCount();
  const double rn = nodeRadius();

  QFont titleFont = font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
  titleFont.setBold(true);
  p.setFont(titleFont);
  p.setPen(Qt::black);
  p.drawText(QRect(12, 6, width() - 24, kHeaderHeight - 8), Qt::AlignLeft | Qt::AlignVCenter,
             tr("Ring AllReduce on %1 ranks: ").arg(n) + phaseText());
  p.setFont(font());

  // Ring links: thin grey, the direction data moves.
  for (int r = 0; r < n; ++r) {
    p.setPen(QPen(QColor(0xC8, 0xC8, 0xC8), 2));
    p.drawLine(rankCentre(r), rankCentre((r + 1) % n));
  }

  // This step's transfers: one arrow per link, in the moving chunk's colour.
  for (const RingTransfer& t : m_model->currentTransfers()) {
    const QPointF a = rankCentre(t.src);
    const QPointF b = rankCentre(t.dst);
    const QPointF d = (b - a) / std::max(1.0, std::hypot((b - a).x(), (b - a).y()));
    const QColor colour = chunkColor(t.chunk, n);
    drawArrow(p, a + d * (rn + 3), b - d * (rn + 3), colour, std::clamp(rn / 5, 2.0, 5.0));
    if (n <= kMaxRanksWithStrips) {
      // Label outside the ring, beside the link's middle.
      const QPointF mid = (a + b) / 2;
      const QPointF centre(width() / 2.0, kHeaderHeight + (height() - kHeaderHeight - kFooterHeight) / 2.0);
      const QPointF out = (mid - centre) / std::max(1.0, std::hypot((mid - centre).x(), (mid - centre).y()));
      QString label = tr("chunk %1").arg(t.chunk);
      if (m_rate) label += QStringLiteral("\n") + tr("%1 GB/s").arg(*m_rate / 1e9, 0, 'f', 1);
      const QRectF box(mid + out * 26 - QPointF(50, 16), QSizeF(100, 32));
      p.setPen(colour.darker(150));
      p.drawText(box, Qt::AlignCenter, label);
    }
  }

  // Ranks, and beside each one its chunk strip.
  const std::vector<RingTransfer>& transfers = m_model->currentTransfers();
  for (int r = 0; r < n; ++r) {
    const QPointF c = rankCentre(r);
    int reduced = 0;
    for (int k = 0; k < n; ++k) reduced += m_model->contributions(r, k) == n ? 1 : 0;
    p.setPen(QPen(Qt::black, 1.5));
    p.setBrush(n > kMaxRanksWithStrips
                   ? QColor::fromHsvF(0.33F, static_cast<float>(reduced) / static_cast<float>(n), 0.9F)
                   : QColor(0xF2, 0xF2, 0xF2));
    p.drawEllipse(c, rn, rn);
    if (n > kMaxRanksWithStrips) continue;
    p.drawText(QRectF(c - QPointF(rn, rn), QSizeF(2 * rn, 2 * rn)), Qt::AlignCenter, tr("GPU %1").arg(r));

    // The strip sits outside the ring, centred on the line from the ring's centre through the node.
    const double cell = std::clamp(ringRadius() * 0.9 / n, 6.0, 18.0);
    const QPointF centre(width() / 2.0, kHeaderHeight + (height() - kHeaderHeight - kFooterHeight) / 2.0);
    const QPointF out = (c - centre) / ringRadius();
    // Far enough out along `out` that the strip's box (n cells wide, one high) clears the node in any direction.
    const double halfExtent = std::abs(out.x()) * n * cell / 2 + std::abs(out.y()) * cell / 2;
    const QPointF stripCentre = c + out * (rn + halfExtent + 12);
    const QPointF origin = stripCentre - QPointF(n * cell / 2, cell / 2);
    for (int k = 0; k < n; ++k) {
      const int have = m_model->contributions(r, k);
      const QRectF box(origin + QPointF(k * cell, 0), QSizeF(cell - 1, cell - 1));
      QColor fill = chunkColor(k, n);
      // Fill height shows the share of ranks summed in: 1/n at the start, full once reduced.
      const double share = static_cast<double>(have) / n;
      p.setPen(Qt::NoPen);
      p.setBrush(fill.lighter(170));
      p.drawRect(box);
      p.setBrush(fill);
      p.drawRect(QRectF(box.left(), box.bottom() - box.height() * share, box.width(), box.height() * share));
      const bool sending = std::any_of(transfers.begin(), transfers.end(),
                                       [r, k](const RingTransfer& t) { return t.src == r && t.chunk == k; });
      const bool receiving = std::any_of(transfers.begin(), transfers.end(),
                                         [r, k](const RingTransfer& t) { return t.dst == r && t.chunk == k; });
      p.setBrush(Qt::NoBrush);
      if (have == n) {
        p.setPen(QPen(Qt::black, 1.5));
        p.drawRect(box);
      }
      if (sending || receiving) {
        // A marker above the cell: ▲ leaves this rank, ▼ arrives.
        const QPointF top(box.center().x(), box.top() - 2);
        QPainterPath tri;
        if (sending) {
          tri.moveTo(top + QPointF(0, -5));
          tri.lineTo(top + QPointF(-4, 1));
          tri.lineTo(top + QPointF(4, 1));
        } else {
          tri.moveTo(top + QPointF(0, 1));
          tri.lineTo(top + QPointF(-4, -5));
          tri.lineTo(top + QPointF(4, -5));
        }
        tri.closeSubpath();
        p.fillPath(tri, sending ? QColor(0x20, 0x20, 0x20) : QColor(0x80, 0x80, 0x80));
      }
    }
  }

  p.setPen(QColor(0x40, 0x40, 0x40));
  p.drawText(QRect(12, height() - kFooterHeight, width() - 24, kFooterHeight - 4),
             Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
             tr("Each strip: a rank's chunks, coloured per chunk, filled by the share of ranks summed in; black frame: "
                "fully reduced. ▲ sends, ▼ receives this step; arrows: this step's transfers."));
}
