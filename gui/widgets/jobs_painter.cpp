#include "widgets/jobs_painter.h"

#include <QFontMetricsF>
#include <QPainter>
#include <map>
#include <tuple>

#include "models/job_machine.h"
#include "models/topology_placement.h"
#include "widgets/rect_index.h"
#include "widgets/topology_drawing.h"

namespace {

// Above this many links, lines are drawn without antialiasing: at that density it looks the same, paints faster
// and keeps a screenshot's colours few.
constexpr std::size_t kAntialiasedJobLinks = 200;
// A job's link, and a shared link's stripes (pixels); a stripe's dash is this many pen widths long.
constexpr double kJobLinkWidth = 2;
constexpr double kSharedLinkWidth = 3.5;
constexpr double kStripeDash = 2;
// Shared links labelled with their jobs' shares at most; more would crowd the picture (the tooltip has them all).
constexpr int kLabelledSharedLinks = 24;
// Where along a link its label may go, tried in order.
constexpr double kJobLabelPlaces[] = {0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78};

// Black text on light job colours (yellow, sky blue, orange), white on dark ones.
QColor textOn(const QColor& fill) {
  return fill.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace

QColor JobsPainter::backgroundColor() {
  return {0x55, 0x55, 0x55};
}

QColor JobsPainter::idleColor() {
  return {0xE6, 0xE6, 0xE6};
}

void JobsPainter::paint(QPainter& p, const QTransform& map) const {
  const TopologyLayout& layout = m_machine.layout();
  const std::vector<QRectF> px = boxPixels(layout, m_placement, map);
  const std::vector<QRectF> captions = captionPixels(layout, m_placement, map);
  // As the ring view: with several rows of servers, their links pass behind the servers above.
  const bool behind = m_placement.rows() > 1;
  if (behind) paintLinks(p, px, false);
  paintServerBoxes(p, layout, px, captions, [&](std::size_t h) {
    const int job = m_machine.jobOfBox(layout.hostBoxes()[h]);
    if (job < 0) return std::pair(QColor(0x90, 0x90, 0x90), 1.0);
    return std::pair(m_machine.jobs()[static_cast<std::size_t>(job)].color, 2.5);
  });
  if (!behind) paintLinks(p, px, false);
  paintLinks(p, px, true);
  paintBoxes(p, px);
  paintLabels(p, px);
}

void JobsPainter::paintLabels(QPainter& p, const std::vector<QRectF>& px) const {
  if (m_machine.sharedEdgeCount() > kLabelledSharedLinks) return;
  const TopologyLayout& layout = m_machine.layout();
  RectIndex taken;  // boxes and labels placed: a label covers neither
  for (std::size_t b = 0; b < px.size(); ++b) {
    if (!px[b].isNull()) taken.insert(px[b]);
  }
  const QFont normal = p.font();
  p.setFont(smallFont(normal));
  const QFontMetricsF metrics(p.font(), p.device());
  const QRectF canvas(p.window());
  const auto& edges = layout.edges();
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (!m_machine.sharedEdge(static_cast<int>(e)) || !m_placement.edgeShown(static_cast<int>(e))) continue;
    const auto [a, b] =
        linkEndpoints(px[static_cast<std::size_t>(edges[e].a)], px[static_cast<std::size_t>(edges[e].b)]);
    // As the ring view's rate labels: "up" is a -> b when b is higher on the screen (or level and to the left).
    const bool forwardUp = b.y() < a.y() || (b.y() == a.y() && b.x() < a.x());
    const QString text = m_machine.edgeLabel(static_cast<int>(e), forwardUp);
    const QSizeF size(metrics.horizontalAdvance(text) + 6, metrics.height() + 2);
    for (const double t : kJobLabelPlaces) {
      const QRectF where(a + (b - a) * t - QPointF(size.width() / 2, size.height() / 2), size);
      if (!canvas.contains(where) || taken.intersects(where)) continue;
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(255, 255, 255, 225));
      p.drawRoundedRect(where, 3, 3);
      p.setPen(QColor(0x20, 0x20, 0x20));
      p.drawText(where, Qt::AlignCenter, text);
      taken.insert(where);
      break;
    }
  }
  p.setFont(normal);
}

void JobsPainter::paintLinks(QPainter& p, const std::vector<QRectF>& px, bool insideServers) const {
  const TopologyLayout& layout = m_machine.layout();
  const auto& edges = layout.edges();
  // Lines of one pen together: (colour, stripes, stripe index); stripes 0 is a plain line.
  std::map<std::tuple<QRgb, int, int>, QVector<QLineF>> batches;
  QVector<QLineF> idle;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const int host = layout.hostOf(edges[e].a);
    const bool inside = host >= 0 && host == layout.hostOf(edges[e].b);
    if (inside != insideServers || !m_placement.edgeShown(static_cast<int>(e))) continue;
    const auto [a, b] =
        linkEndpoints(px[static_cast<std::size_t>(edges[e].a)], px[static_cast<std::size_t>(edges[e].b)]);
    const QLineF line(a, b);
    const int edge = static_cast<int>(e);
    const std::vector<int> jobs = m_machine.edgeJobs(edge);
    if (jobs.empty()) {
      idle.append(line);
      continue;
    }
    std::vector<QColor> colours;
    for (const int j : jobs) colours.push_back(m_machine.jobs()[static_cast<std::size_t>(j)].color);
    if (m_machine.backgroundEdge(edge)) colours.push_back(backgroundColor());
    if (!m_machine.sharedEdge(edge)) {
      batches[{colours.front().rgba(), 0, 0}].append(line);
      continue;
    }
    const int stripes = static_cast<int>(colours.size());
    for (int i = 0; i < stripes; ++i) batches[{colours[static_cast<std::size_t>(i)].rgba(), stripes, i}].append(line);
  }
  p.setRenderHint(QPainter::Antialiasing, edges.size() <= kAntialiasedJobLinks);
  p.setPen(QPen(edges.size() > kAntialiasedJobLinks ? QColor(0xE2, 0xE2, 0xE2) : QColor(0xD0, 0xD0, 0xD0), 1));
  p.drawLines(idle);
  for (const auto& [key, lines] : batches) {
    const auto [rgb, stripes, index] = key;
    QPen pen(QColor::fromRgba(rgb), stripes == 0 ? kJobLinkWidth : kSharedLinkWidth, Qt::SolidLine, Qt::FlatCap);
    if (stripes > 0) {
      // Stripes of equal length in turn: stripe i starts i dashes along.
      pen.setDashPattern({kStripeDash, kStripeDash * (stripes - 1)});
      pen.setDashOffset(kStripeDash * (stripes - index));
    }
    p.setPen(pen);
    p.drawLines(lines);
  }
  p.setRenderHint(QPainter::Antialiasing);
}

void JobsPainter::paintBoxes(QPainter& p, const std::vector<QRectF>& px) const {
  const TopologyLayout& layout = m_machine.layout();
  const auto& boxes = layout.boxes();
  const QFont normal = p.font();
  p.setFont(smallFont(normal));
  const QFontMetricsF metrics(p.font(), p.device());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const TopologyBox& box = boxes[i];
    const QRectF& r = px[i];
    if (box.kind == TopologyBox::Kind::Host || r.isNull()) continue;
    const int job = m_machine.jobOfBox(static_cast<int>(i));
    if (box.kind != TopologyBox::Kind::Gpu) {
      p.setPen(QPen(QColor(0x30, 0x30, 0x30), 1));
      p.setBrush(topologyFill(box.kind));
      p.drawRect(r);
      if (metrics.horizontalAdvance(box.label) < r.width()) p.drawText(r, Qt::AlignCenter, box.label);
      continue;
    }
    const QColor fill = job < 0 ? idleColor() : m_machine.jobs()[static_cast<std::size_t>(job)].color;
    const int host = layout.hostOf(static_cast<int>(i));
    if (host >= 0 && m_placement.collapsed(host)) {  // a collapsed server's cell
      p.setPen(Qt::NoPen);
      p.setBrush(fill);
      p.drawRect(r);
      continue;
    }
    p.setPen(QPen(job < 0 ? QColor(0xB0, 0xB0, 0xB0) : QColor(0x30, 0x30, 0x30), 1));
    p.setBrush(fill);
    p.drawRect(r);
    p.setPen(job < 0 ? QColor(0x90, 0x90, 0x90) : textOn(fill));
    if (metrics.horizontalAdvance(box.label) < r.width()) p.drawText(r, Qt::AlignCenter, box.label);
  }
  p.setFont(normal);
}
