#include "widgets/topology_painter.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "models/collective_traffic.h"
#include "models/ring_step_model.h"
#include "models/topology_layout.h"
#include "models/topology_placement.h"
#include "widgets/rect_index.h"
#include "widgets/ring_view.h"
#include "widgets/topology_drawing.h"

namespace {

// Directions of one link are drawn this far apart (pixels), so both can light up.
constexpr double kLaneOffset = 3;
// A link shorter than this (pixels) carries no label.
constexpr double kMinLabelledLength = 28;
// Where along a link its label may go, tried in order.
constexpr double kLabelPlaces[] = {0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78};
// Two directions whose rates differ by less than this share print as one number.
constexpr double kSameRate = 0.005;
// A label saying what another one already says this close by (pixels) is left out: on a large machine every rail
// carries the same rate, and one label per neighbourhood says it.
constexpr double kRepeatRadius = 150;
constexpr std::size_t kCrowdedLinks = 32;  // lit links from which repeats are left out
constexpr std::size_t kManyLinks = 1000;
constexpr std::size_t kManyArrows = 400;
constexpr std::size_t kAntialiasedLinks = 200;

using Kind = TopologyBox::Kind;

}  // namespace

std::vector<TopologyPainter::Lit> TopologyPainter::litThisStep() const {
  std::vector<Lit> lit;
  if (const CollectiveTraffic* traffic = m_view.traffic(); traffic && traffic->layout() == &m_layout) {
    for (const auto& use : traffic->stepUses(m_model.step(), m_view.channel())) {
      lit.push_back({use.directed, use.transfers, use.chunk, use.channel});
    }
    return lit;
  }
  // No traffic for this machine: the model's own schedule.
  std::map<int, Lit> byEdge;
  for (const CollectiveTransfer& t : m_model.currentTransfers()) {
    for (const EdgeUse& use : m_layout.route(t.src, t.dst)) {
      ++byEdge.try_emplace(use.directed(), Lit{use.directed(), 0, t.chunk, 0}).first->second.transfers;
    }
  }
  for (const auto& [directed, l] : byEdge) lit.push_back(l);
  return lit;
}

QColor TopologyPainter::colourOf(const Lit& lit) const {
  if (m_view.channel() || !m_view.traffic() || m_view.traffic()->channelCount() == 1) {
    return RingView::chunkColor(lit.chunk, m_model.schedule().pieceCount());
  }
  // All channels at once: the piece means little; the share of the link's capacity in use does (blue to red).
  const auto& rates = m_view.linkRates();
  const double capacity = m_layout.edges()[static_cast<std::size_t>(lit.directed / 2)].bytesPerSecond;
  if (rates.empty() || capacity <= 0) return RingView::chunkColor(lit.channel, m_view.traffic()->channelCount());
  const double use = std::clamp(rates[static_cast<std::size_t>(lit.directed)] / capacity, 0.0, 1.0);
  return QColor::fromHsvF(static_cast<float>(0.62 * (1 - use)), 0.8F, 0.85F);
}

std::vector<QRectF> TopologyPainter::paint(QPainter& p, const QTransform& map) const {
  const std::vector<QRectF> px = boxPixels(m_layout, m_placement, map);
  const std::vector<QRectF> captions = captionPixels(m_layout, m_placement, map);
  const std::vector<Lit> lit = litThisStep();
  // With several rows of servers, the links between servers and switches pass behind the servers (a lower row's
  // links behind the rows above); in one row they stay in front, down to each NIC. Links inside an expanded server
  // lie over it.
  const bool behind = m_placement.rows() > 1;
  if (behind) paintLinks(p, px, lit, false);
  paintServers(p, px, captions);
  if (!behind) paintLinks(p, px, lit, false);
  paintLinks(p, px, lit, true);
  paintBoxes(p, px);
  // Labels last, on top, clear of every box and caption drawn (an NVSwitch bar takes its GPUs' labels).
  RectIndex taken;
  for (const QRectF& c : captions) taken.insert(c);
  for (std::size_t b = 0; b < px.size(); ++b) {
    if (!px[b].isNull() && m_layout.boxes()[b].kind != Kind::Host && m_layout.boxes()[b].kind != Kind::NvSwitch) {
      taken.insert(px[b]);
    }
  }
  return paintLabels(p, px, lit, taken);
}

void TopologyPainter::paintServers(QPainter& p, const std::vector<QRectF>& px,
                                   const std::vector<QRectF>& captions) const {
  paintServerBoxes(p, m_layout, px, captions, [](std::size_t) { return std::pair(QColor(0x90, 0x90, 0x90), 1.0); });
}

void TopologyPainter::paintLinks(QPainter& p, const std::vector<QRectF>& px, const std::vector<Lit>& lit,
                                 bool insideServers) const {
  const auto& edges = m_layout.edges();
  const auto drawn = [&](std::size_t e) {
    const int host = m_layout.hostOf(edges[e].a);
    const bool inside = host >= 0 && host == m_layout.hostOf(edges[e].b);
    return inside == insideServers && m_placement.edgeShown(static_cast<int>(e));
  };
  // Every link, thin and grey: the machine (lighter when there are so many that they would grey the picture).
  const QColor grey = edges.size() > kManyLinks ? QColor(0xE2, 0xE2, 0xE2) : QColor(0xD0, 0xD0, 0xD0);
  QVector<QLineF> nvlinks;
  QVector<QLineF> others;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (!drawn(e)) continue;
    const auto [a, b] =
        linkEndpoints(px[static_cast<std::size_t>(edges[e].a)], px[static_cast<std::size_t>(edges[e].b)]);
    (edges[e].nvlink ? nvlinks : others).append(QLineF(a, b));
  }
  // A mesh of hundreds of links reads as well without antialiasing, paints faster and keeps the picture's colours
  // (and a screenshot's bytes) few.
  p.setRenderHint(QPainter::Antialiasing, edges.size() <= kAntialiasedLinks);
  p.setPen(QPen(QColor(0x9F, 0xC0, 0xDD), 1));
  p.drawLines(nvlinks);
  p.setPen(QPen(grey, 1));
  p.drawLines(others);
  p.setRenderHint(QPainter::Antialiasing);
  // This step's transfers, per link direction, offset to the right of their direction of travel. Lines of one
  // colour and width are drawn together, their arrowheads in one path: a large machine lights thousands.
  const bool summed = !m_view.channel() && m_view.traffic() && m_view.traffic()->channelCount() > 1;
  const auto& rates = m_view.linkRates();
  struct Stroke {
    QVector<QLineF> lines;
    QPainterPath heads;
  };
  std::map<std::pair<QRgb, int>, Stroke> strokes;  // by colour and width in quarter pixels
  for (const Lit& l : lit) {
    const auto edge = static_cast<std::size_t>(l.directed / 2);
    if (!drawn(edge)) continue;
    auto [a, b] =
        linkEndpoints(px[static_cast<std::size_t>(edges[edge].a)], px[static_cast<std::size_t>(edges[edge].b)]);
    if (l.directed % 2 == 1) std::swap(a, b);
    const QPointF d = b - a;
    const double length = std::hypot(d.x(), d.y());
    if (length < 1) continue;
    const QPointF u = d / length;
    const QPointF normal(-u.y(), u.x());
    const QPointF side = normal * kLaneOffset;
    double width = std::min(2.0 + l.transfers, 6.0);
    if (summed && !rates.empty() && edges[edge].bytesPerSecond > 0) {
      width =
          1.5 + 3.5 * std::clamp(rates[static_cast<std::size_t>(l.directed)] / edges[edge].bytesPerSecond, 0.0, 1.0);
    }
    Stroke& stroke = strokes[{colourOf(l).rgba(), static_cast<int>(std::lround(width * 4))}];
    stroke.lines.append(QLineF(a + side, b + side));
    // The arrowhead at the far end says which way it flows.
    const QPointF tip = b + side - u * 2;
    const double head = std::min(8.0, length / 3);
    stroke.heads.moveTo(tip);
    stroke.heads.lineTo(tip - u * head + normal * head / 2);
    stroke.heads.lineTo(tip - u * head - normal * head / 2);
    stroke.heads.closeSubpath();
  }
  // Thousands of antialiased lines and arrowheads (a large machine, every rail lit) cost most of a frame: above
  // kManyArrows they are drawn aliased, which at that density looks the same.
  std::size_t arrows = 0;
  for (const auto& [key, stroke] : strokes) arrows += static_cast<std::size_t>(stroke.lines.size());
  p.setRenderHint(QPainter::Antialiasing, arrows <= kManyArrows);
  for (const auto& [key, stroke] : strokes) {
    const QColor colour = QColor::fromRgba(key.first);
    p.setPen(QPen(colour, key.second / 4.0, Qt::SolidLine, Qt::FlatCap));
    p.drawLines(stroke.lines);
    p.fillPath(stroke.heads, colour);
  }
  p.setRenderHint(QPainter::Antialiasing);
}

std::vector<QRectF> TopologyPainter::paintLabels(QPainter& p, const std::vector<QRectF>& px,
                                                 const std::vector<Lit>& lit, RectIndex& taken) const {
  std::vector<QRectF> labelled;
  const auto& rates = m_view.linkRates();
  if (rates.empty()) return labelled;
  // Per link: its two directions' rates, where lit this step; busiest first, so that they get the free places.
  std::map<int, std::pair<double, double>> byEdge;  // edge -> (forward, backward), -1 when not lit
  for (const Lit& l : lit) {
    auto& both = byEdge.try_emplace(l.directed / 2, std::pair(-1.0, -1.0)).first->second;
    (l.directed % 2 == 0 ? both.first : both.second) = rates[static_cast<std::size_t>(l.directed)];
  }
  std::vector<std::pair<double, int>> order;
  for (const auto& [edge, both] : byEdge) order.emplace_back(-std::max(both.first, both.second), edge);
  std::sort(order.begin(), order.end());

  std::vector<std::pair<QString, QPointF>> said;  // the labels drawn, and where
  const bool crowded = order.size() > kCrowdedLinks;
  const QRectF canvas(p.window());
  RectIndex hosts;  // a link's label stays off the servers (their insides are theirs)
  for (const int host : m_layout.hostBoxes()) hosts.insert(px[static_cast<std::size_t>(host)]);
  const QFont normal = p.font();
  p.setFont(smallFont(normal));
  const QFontMetricsF metrics(p.font(), p.device());
  const auto& edges = m_layout.edges();
  for (const auto& [negRate, edgeIndex] : order) {
    const TopologyEdge& e = edges[static_cast<std::size_t>(edgeIndex)];
    if (!m_placement.edgeShown(edgeIndex) || -negRate <= 0) continue;
    const auto [a, b] = linkEndpoints(px[static_cast<std::size_t>(e.a)], px[static_cast<std::size_t>(e.b)]);
    const auto [forward, backward] = byEdge[edgeIndex];
    // Arrows as the directions run on screen: forward goes a -> b.
    const bool forwardUp = b.y() < a.y() || (b.y() == a.y() && b.x() < a.x());
    const QString up = QStringLiteral("↑");
    const QString down = QStringLiteral("↓");
    QString text;
    if (forward >= 0 && backward >= 0 && std::abs(forward - backward) <= kSameRate * std::max(forward, backward)) {
      text = formatRateGbps(forward);
    } else {
      if (forward >= 0) text += (forwardUp ? up : down) + formatRateGbps(forward);
      if (backward >= 0)
        text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + (forwardUp ? down : up) + formatRateGbps(backward);
    }
    text = QCoreApplication::translate("TopologyPainter", "%1 / %2").arg(text, formatRateGbps(e.bytesPerSecond));
    const QSizeF size(metrics.horizontalAdvance(text) + 6, metrics.height() + 2);
    std::vector<QRectF> places;
    const Kind kindA = m_layout.boxes()[static_cast<std::size_t>(e.a)].kind;
    const Kind kindB = m_layout.boxes()[static_cast<std::size_t>(e.b)].kind;
    if (kindA == Kind::NvSwitch || kindB == Kind::NvSwitch) {
      // In the NVSwitch bar, under the GPU (the bar's upper half holds its name).
      const QRectF& bar = px[static_cast<std::size_t>(kindA == Kind::NvSwitch ? e.a : e.b)];
      const QRectF& gpu = px[static_cast<std::size_t>(kindA == Kind::NvSwitch ? e.b : e.a)];
      places.emplace_back(QPointF(gpu.center().x() - size.width() / 2, bar.bottom() - size.height()), size);
      if (!bar.contains(places.back())) places.clear();
    } else if (std::hypot(b.x() - a.x(), b.y() - a.y()) >= kMinLabelledLength) {
      for (const double t : kLabelPlaces) {
        const QPointF at = a + (b - a) * t;
        places.emplace_back(at - QPointF(size.width() / 2, size.height() / 2), size);
      }
    }
    const bool inBar = kindA == Kind::NvSwitch || kindB == Kind::NvSwitch;
    for (const QRectF& where : places) {
      const bool repeats = crowded && !inBar && std::any_of(said.begin(), said.end(), [&](const auto& s) {
                             const QPointF d = s.second - where.center();
                             return s.first == text && std::hypot(d.x(), d.y()) < kRepeatRadius;
                           });
      if (repeats) break;
      if (!canvas.contains(where) || taken.intersects(where) || (!inBar && hosts.intersects(where))) continue;
      said.emplace_back(text, where.center());
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(255, 255, 255, 225));
      p.drawRoundedRect(where, 3, 3);
      p.setPen(e.nvlink ? QColor(0x1F, 0x4E, 0x79) : QColor(0x40, 0x20, 0x50));
      p.drawText(where, Qt::AlignCenter, text);
      taken.insert(where);
      labelled.push_back(where);
      break;
    }
  }
  p.setFont(normal);
  return labelled;
}

void TopologyPainter::paintBoxes(QPainter& p, const std::vector<QRectF>& px) const {
  const auto& boxes = m_layout.boxes();
  const CollectiveSchedule& schedule = m_model.schedule();
  const int ranks = schedule.rankCount();
  const int full = schedule.fullCount();
  const int pieces = schedule.pieceCount();
  std::vector<int> rankOfBox(boxes.size(), -1);
  for (int r = 0; r < ranks; ++r) rankOfBox[static_cast<std::size_t>(m_layout.gpuBox(m_view.gpuOfRank(r)))] = r;
  const QFont normal = p.font();
  p.setFont(smallFont(normal));
  const QFontMetricsF metrics(p.font(), p.device());
  std::set<int> numbered;  // tiers too narrow for their switches' names
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (boxes[i].tier > 0 && !px[i].isNull() && metrics.horizontalAdvance(boxes[i].label) >= px[i].width()) {
      numbered.insert(boxes[i].tier);
    }
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const TopologyBox& box = boxes[i];
    const QRectF& r = px[i];
    if (box.kind == Kind::Host || r.isNull()) continue;
    const int rank = rankOfBox[i];
    const int host = m_layout.hostOf(static_cast<int>(i));
    const bool cell = box.kind == Kind::Gpu && host >= 0 && m_placement.collapsed(host);
    const bool idleGpu = box.kind == Kind::Gpu && rank < 0;  // a GPU the scenario does not train on
    if (cell) {
      // A collapsed server's GPU: a cell filled by the share of its pieces' contributions summed in so far, framed
      // black once it holds every piece fully reduced.
      double summed = 0;
      bool reduced = rank >= 0;
      for (int k = 0; k < pieces && rank >= 0; ++k) {
        const int c = m_model.contributions(rank, k);
        summed += static_cast<double>(c) / full;
        reduced = reduced && c == full;
      }
      const double share = rank >= 0 ? summed / pieces : 0;
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(0xE0, 0xE0, 0xE0));
      p.drawRect(r);
      p.setBrush(QColor(0x3C, 0x9A, 0x5F));
      p.drawRect(QRectF(r.left(), r.bottom() - r.height() * share, r.width(), r.height() * share));
      if (reduced) {
        p.setPen(QPen(Qt::black, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r);
      }
      continue;
    }
    p.setPen(QPen(idleGpu ? QColor(0xB0, 0xB0, 0xB0) : QColor(0x30, 0x30, 0x30), 1));
    p.setBrush(topologyFill(box.kind));
    p.drawRect(r);
    if (box.kind == Kind::NvSwitch) {
      // The name in the bar's upper half: the lower half holds the NVLink rates, under each GPU.
      p.setPen(QColor(0x30, 0x30, 0x30));
      const QRectF top(r.left(), r.top(), r.width(), r.height() / 2);
      if (metrics.horizontalAdvance(box.label) < r.width()) p.drawText(top, Qt::AlignCenter, box.label);
      continue;
    }
    if (box.kind != Kind::Gpu) {
      // A tier where some name does not fit ("spine12") shows every switch's number, as narrow servers do.
      p.setPen(QColor(0x30, 0x30, 0x30));
      QString label = box.label;
      if (numbered.count(box.tier) > 0) {
        const auto lastLetter = std::find_if(label.rbegin(), label.rend(), [](QChar c) { return !c.isDigit(); });
        label = label.mid(std::distance(lastLetter, label.rend()));
      }
      if (metrics.horizontalAdvance(label) < r.width()) p.drawText(r, Qt::AlignCenter, label);
      continue;
    }
    const QRectF labelBox(r.left(), r.top(), r.width(), r.height() * 0.5);
    p.setPen(idleGpu ? QColor(0xB0, 0xB0, 0xB0) : QColor(Qt::black));
    if (metrics.horizontalAdvance(box.label) < r.width()) p.drawText(labelBox, Qt::AlignCenter, box.label);
    if (rank < 0) continue;
    const double pad = std::max(1.0, r.width() * 0.08);
    m_view.drawStrip(p, QRectF(r.left() + pad, r.top() + r.height() * 0.55, r.width() - 2 * pad, r.height() * 0.35),
                     rank);
  }
  p.setFont(normal);
}
