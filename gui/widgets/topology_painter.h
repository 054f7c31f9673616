#pragma once
// TopologyPainter: the ring view's picture of a real machine (topology_layout.h) at one step of an AllReduce —
// servers, NVSwitches, NICs and network switches as boxes, links as thin lines, and this step's transfers lit on
// every link their route crosses: one coloured line per direction, thicker when several transfers share it,
// labelled with the total rate and, where known, the share of the link's capacity it takes.
#include <QRectF>
#include <QTransform>

class QPainter;
class RingStepModel;
class RingView;
class TopologyLayout;

class TopologyPainter {
 public:
  TopologyPainter(const RingView& view, const RingStepModel& model, const TopologyLayout& layout)
      : m_view(view), m_model(model), m_layout(layout) {}

  // Layout coordinates to `area`: uniform scale, centred, with a margin.
  static QTransform transform(const TopologyLayout& layout, const QRectF& area);
  void paint(QPainter& p, const QRectF& area) const;

 private:
  const RingView& m_view;
  const RingStepModel& m_model;
  const TopologyLayout& m_layout;
};
