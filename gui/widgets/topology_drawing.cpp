#include "widgets/topology_drawing.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QTransform>
#include <QWidget>
#include <algorithm>

QColor topologyFill(TopologyBox::Kind kind) {
  using Kind = TopologyBox::Kind;
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

std::pair<QPointF, QPointF> linkEndpoints(const QRectF& a, const QRectF& b) {
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

std::vector<QRectF> boxPixels(const TopologyLayout& layout, const TopologyPlacement& placement, const QTransform& map) {
  std::vector<QRectF> px(layout.boxes().size());
  for (std::size_t b = 0; b < px.size(); ++b) {
    const QRectF& r = placement.rects()[b];
    if (!r.isNull()) px[b] = map.mapRect(r);
  }
  return px;
}

std::vector<QRectF> captionPixels(const TopologyLayout& layout, const TopologyPlacement& placement,
                                  const QTransform& map) {
  std::vector<QRectF> captions;
  for (const int host : layout.hostBoxes()) captions.push_back(map.mapRect(placement.captionRect(host)));
  return captions;
}

QFont smallFont(const QFont& f) {
  QFont small = f;
  small.setPointSizeF(f.pointSizeF() * 0.85);
  return small;
}

void paintServerBoxes(QPainter& p, const TopologyLayout& layout, const std::vector<QRectF>& px,
                      const std::vector<QRectF>& captions,
                      const std::function<std::pair<QColor, double>(std::size_t host)>& frame) {
  const QFont normal = p.font();
  p.setFont(smallFont(normal));
  const QFontMetricsF metrics(p.font(), p.device());
  const auto& hosts = layout.hostBoxes();
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    const QRectF& r = px[static_cast<std::size_t>(hosts[h])];
    const auto [colour, width] = frame(h);
    p.setPen(QPen(colour, width));
    p.setBrush(topologyFill(TopologyBox::Kind::Host));
    p.drawRoundedRect(r, 5, 5);
    // The caption inside, in its own band: the one place no link label goes. Too narrow for "server 12": "12".
    const QRectF caption = captions[h].adjusted(2, 0, -2, 0);
    const QString& label = layout.boxes()[static_cast<std::size_t>(hosts[h])].label;
    const QString number = label.section(QLatin1Char(' '), -1);
    p.setPen(QColor(0x40, 0x40, 0x40));
    if (metrics.horizontalAdvance(label) <= caption.width()) {
      p.drawText(caption, Qt::AlignCenter, label);
    } else if (metrics.horizontalAdvance(number) <= caption.width()) {
      p.drawText(caption, Qt::AlignCenter, number);
    }
  }
  p.setFont(normal);
}

bool showToolTip(QWidget* widget, QEvent* event, const QString& text) {
  if (text.isEmpty()) {
    QToolTip::hideText();
    event->ignore();
  } else {
    QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), text, widget);
  }
  return true;
}

void useWhiteCanvas(QWidget* widget) {
  widget->setAutoFillBackground(true);
  QPalette pal = widget->palette();
  pal.setColor(QPalette::Window, Qt::white);
  pal.setColor(QPalette::WindowText, Qt::black);
  widget->setPalette(pal);
}
