#pragma once
// What the ring view's and the Jobs view's pictures of a machine share: a box's fill by kind, where a link meets
// its two boxes, the smaller font of captions and labels, the servers drawn as rounded boxes with their caption, and
// their tooltips.
#include <QColor>
#include <QFont>
#include <QPointF>
#include <QRectF>
#include <functional>
#include <utility>
#include <vector>

#include "models/topology_layout.h"
#include "models/topology_placement.h"

class QEvent;
class QPainter;
class QTransform;
class QWidget;

QColor topologyFill(TopologyBox::Kind kind);
// Where a link meets a box: on the side facing the other box, below or above the other box's centre as far as the
// box reaches (a GPU's link to the NVSwitch bar under the whole row drops straight down).
std::pair<QPointF, QPointF> linkEndpoints(const QRectF& a, const QRectF& b);
QFont smallFont(const QFont& f);
// The placement's boxes in view pixels (a box the placement hides stays a null rectangle), and its servers' caption
// rectangles in the layout's server order.
std::vector<QRectF> boxPixels(const TopologyLayout& layout, const TopologyPlacement& placement, const QTransform& map);
std::vector<QRectF> captionPixels(const TopologyLayout& layout, const TopologyPlacement& placement,
                                  const QTransform& map);
// Each server as a rounded box (`frame(h)`: its outline colour and width) with its caption inside `captions[h]`
// ("server 12", or "12" where that does not fit).
void paintServerBoxes(QPainter& p, const TopologyLayout& layout, const std::vector<QRectF>& px,
                      const std::vector<QRectF>& captions,
                      const std::function<std::pair<QColor, double>(std::size_t host)>& frame);
// A view's white canvas with black text, whatever the system palette.
void useWhiteCanvas(QWidget* widget);
// Answers a QEvent::ToolTip on `widget`: shows `text` at the event's place, or hides the tooltip when it is empty.
bool showToolTip(QWidget* widget, QEvent* event, const QString& text);
