#include "widgets/topology_painter.h"

#include <QCoreApplication>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "models/ring_step_model.h"
#include "models/topology_layout.h"
#include "widgets/ring_view.h"

namespace {

constexpr double kMargin = 16;
// Directions of one link are drawn this far apart (pixels), so both can light up.
constexpr double kLaneOffset = 3;
// Rate labels only where the link is long enough to carry one.
constexpr double kMinLabelledLength = 46;

using Kind = TopologyBox::Kind;

QColor fillOf(Kind kind) {
  switch (kind) {
    case Kind::Host:
      return {0xF4, 0xF4, 0xF4};
    case Kind::Gpu:
      return Qt::white;
    case Kind::NvSwitch:
      return {0xCF, 0xE2, 0xF3};
    case Kind::NetworkSwitch:
      return {0xE4, 0xD7, 0xF0};
    case Kind::Nic:
      return {0xD9, 0xD9, 0xD9};
    case Kind::Other:
      return {0xE8, 0xE8, 0xE8};
  }
  return Qt::white;
}

// Where a link meets a box: on the side facing the other box, below or above the other box's centre as far as the
// box reaches (a GPU's link to the NVSwitch bar under the whole row drops straight down).
std::pair<QPointF, QPointF> endpoints(const QRectF& a, const QRectF& b) {
  // The wider box meets the link under the narrower one's centre; the narrower one at its own centre.
  const auto along = [](const QRectF& box, const QRectF& other) {
    if (box.width() <= other.width()) return box.center().x();
    return std::clamp(other.center().x(), box.left() + 2, box.right() - 2);
  };
  const double ax = along(a, b);
  const double bx = along(b, a);
  if (a.bottom() <= b.top()) return {{ax, a.bottom()}, {bx, b.top()}};
  if (b.bottom() <= a.top()) return {{ax, a.top()}, {bx, b.bottom()}};
  return {a.center(), b.center()};
}

// What crosses one direction of one link this step.
struct Load {
  int transfers = 0;
  double rate = 0;  // bytes per second, summed over its transfers
  bool rateKnown = true;
  int chunk = 0;  // the first transfer's piece, for the colour
};

}  // namespace

QTransform TopologyPainter::transform(const TopologyLayout& layout, const QRectF& area) {
  const QRectF b = layout.bounds();
  const QRectF inner = area.adjusted(kMargin, kMargin + 8, -kMargin, -kMargin);
  if (b.width() <= 0 || b.height() <= 0) return {};
  const double s = std::min(inner.width() / b.width(), inner.height() / b.height());
  const QPointF offset = inner.center() - QPointF(b.center().x() * s, b.center().y() * s);
  return QTransform(s, 0, 0, s, offset.x(), offset.y());
}

void TopologyPainter::paint(QPainter& p, const QRectF& area) const {
  const QTransform map = transform(m_layout, area);
  const auto& boxes = m_layout.boxes();
  const auto rectOf = [&](int box) { return map.mapRect(boxes[static_cast<std::size_t>(box)].rect); };
  const CollectiveSchedule& schedule = m_model.schedule();
  const int pieces = schedule.pieceCount();

  // Servers first (they hold the rest), then every link, thin and grey.
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (boxes[i].kind != Kind::Host) continue;
    const QRectF r = rectOf(static_cast<int>(i));
    p.setPen(QPen(QColor(0x90, 0x90, 0x90), 1));
    p.setBrush(fillOf(Kind::Host));
    p.drawRoundedRect(r, 6, 6);
    p.setPen(QColor(0x50, 0x50, 0x50));
    p.drawText(r.adjusted(4, -16, 0, 0).topLeft() + QPointF(0, 12), boxes[i].label);
  }
  for (const TopologyEdge& e : m_layout.edges()) {
    const auto [a, b] = endpoints(rectOf(e.a), rectOf(e.b));
    p.setPen(QPen(e.nvlink ? QColor(0x9F, 0xC0, 0xDD) : QColor(0xC8, 0xC8, 0xC8), 1));
    p.drawLine(a, b);
  }

  // This step's transfers, summed per link direction along their routes.
  std::map<std::pair<int, bool>, Load> loads;
  for (const CollectiveTransfer& t : m_model.currentTransfers()) {
    const std::optional<double> rate = m_view.transferRate(t.chunks);
    for (const EdgeUse& use : m_layout.route(t.src, t.dst)) {
      Load& load = loads[{use.edge, use.forward}];
      if (load.transfers == 0) load.chunk = t.chunk;
      ++load.transfers;
      load.rate += rate.value_or(0);
      load.rateKnown = load.rateKnown && rate.has_value();
    }
  }
  const QFont normal = p.font();
  QFont small = normal;
  small.setPointSizeF(small.pointSizeF() * 0.85);
  std::vector<QRectF> labels;  // drawn so far: a label that would overlap one is left out
  for (const auto& [key, load] : loads) {
    const TopologyEdge& e = m_layout.edges()[static_cast<std::size_t>(key.first)];
    auto [a, b] = endpoints(rectOf(e.a), rectOf(e.b));
    if (!key.second) std::swap(a, b);
    const QPointF d = b - a;
    const double length = std::hypot(d.x(), d.y());
    if (length < 1) continue;
    // Offset to the right of the direction of travel: a -> b and b -> a end up side by side.
    const QPointF side = QPointF(-d.y(), d.x()) / length * kLaneOffset;
    const QColor colour = RingView::chunkColor(load.chunk, pieces);
    p.setPen(QPen(colour, std::min(2.0 + load.transfers, 6.0), Qt::SolidLine, Qt::RoundCap));
    p.drawLine(a + side, b + side);
    // The arrowhead at the far end says which way it flows.
    const QPointF u = d / length;
    const QPointF tip = b + side - u * 2;
    QPolygonF head;
    head << tip << tip - u * 8 + QPointF(-u.y(), u.x()) * 4 << tip - u * 8 - QPointF(-u.y(), u.x()) * 4;
    p.setBrush(colour);
    p.setPen(Qt::NoPen);
    p.drawPolygon(head);
    if (!load.rateKnown || length < kMinLabelledLength) continue;
    // Demand over capacity: above it, the run spread this traffic differently (channels over several rails).
    const QString label =
        e.bytesPerSecond > 0
            ? QCoreApplication::translate("TopologyPainter", "%1 / %2 GB/s")
                  .arg(load.rate / 1e9, 0, 'f', 1)
                  .arg(e.bytesPerSecond / 1e9, 0, 'f', 0)
            : QCoreApplication::translate("TopologyPainter", "%1 GB/s").arg(load.rate / 1e9, 0, 'f', 1);
    p.setFont(small);
    const QPointF at = (a + b) / 2 + side * 4;
    const double w = p.fontMetrics().horizontalAdvance(label) + 4;
    const QRectF where(at - QPointF(w / 2, 8), QSizeF(w, 16));
    if (std::none_of(labels.begin(), labels.end(), [&](const QRectF& r) { return r.intersects(where); })) {
      p.setPen(colour.darker(160));
      p.drawText(where, Qt::AlignCenter, label);
      labels.push_back(where);
    }
    p.setFont(normal);
  }

  // Switches, NICs and GPUs on top; each GPU holds its rank's piece strip.
  const int ranks = schedule.rankCount();
  std::vector<int> rankOfBox(boxes.size(), -1);
  for (int r = 0; r < ranks; ++r) rankOfBox[static_cast<std::size_t>(m_layout.gpuBox(r))] = r;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const TopologyBox& box = boxes[i];
    if (box.kind == Kind::Host) continue;
    const QRectF r = rectOf(static_cast<int>(i));
    const int rank = rankOfBox[i];
    const bool idleGpu = box.kind == Kind::Gpu && rank < 0;  // a GPU the scenario does not train on
    p.setPen(QPen(idleGpu ? QColor(0xB0, 0xB0, 0xB0) : QColor(0x30, 0x30, 0x30), 1));
    p.setBrush(fillOf(box.kind));
    p.drawRect(r);
    if (box.kind != Kind::Gpu) {
      p.setFont(small);
      p.setPen(QColor(0x30, 0x30, 0x30));
      if (p.fontMetrics().horizontalAdvance(box.label) < r.width()) p.drawText(r, Qt::AlignCenter, box.label);
      p.setFont(normal);
      continue;
    }
    const QRectF labelBox(r.left(), r.top(), r.width(), r.height() * 0.5);
    p.setFont(small);
    p.setPen(idleGpu ? QColor(0xB0, 0xB0, 0xB0) : QColor(Qt::black));
    if (p.fontMetrics().horizontalAdvance(box.label) < r.width()) p.drawText(labelBox, Qt::AlignCenter, box.label);
    p.setFont(normal);
    if (rank < 0) continue;
    const double pad = std::max(1.0, r.width() * 0.08);
    m_view.drawStrip(p, QRectF(r.left() + pad, r.top() + r.height() * 0.55, r.width() - 2 * pad, r.height() * 0.35),
                     rank);
  }
}
