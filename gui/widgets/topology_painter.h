#pragma once
// TopologyPainter: the ring view's picture of a real machine at one step of an AllReduce — servers (expanded: their
// NICs, GPUs and NVSwitch; collapsed: NIC ports and a cell per GPU), network switches as boxes, links as thin lines,
// and this step's transfers lit on every link their route crosses, of one channel or all of them: one coloured line
// per direction, labelled with the link's rate against its capacity (collective_traffic.h).
//
// Labels never cover a box, a caption or another label: each link tries a few places along itself, busiest link
// first, and goes unlabelled when none is free; an NVLink's label sits in its NVSwitch bar, under its GPU.
#include <QRectF>
#include <QTransform>
#include <vector>

class QPainter;
class RectIndex;
class RingStepModel;
class RingView;
class TopologyLayout;
class TopologyPlacement;

class TopologyPainter {
 public:
  TopologyPainter(const RingView& view, const RingStepModel& model, const TopologyLayout& layout,
                  const TopologyPlacement& placement)
      : m_view(view), m_model(model), m_layout(layout), m_placement(placement) {}

  // `map`: the placement's coordinates to the widget's (TopologyPlacement::transform). Returns where the rate
  // labels went (for tests: they must stay clear of boxes and captions).
  std::vector<QRectF> paint(QPainter& p, const QTransform& map) const;

  // What a step lights on one direction of one link.
  struct Lit {
    int directed = 0;
    int transfers = 0;
    int chunk = 0;
    int channel = 0;
  };

 private:
  std::vector<Lit> litThisStep() const;
  void paintServers(QPainter& p, const std::vector<QRectF>& px, const std::vector<QRectF>& captions) const;
  void paintLinks(QPainter& p, const std::vector<QRectF>& px, const std::vector<Lit>& lit, bool insideServers) const;
  std::vector<QRectF> paintLabels(QPainter& p, const std::vector<QRectF>& px, const std::vector<Lit>& lit,
                                  RectIndex& taken) const;
  void paintBoxes(QPainter& p, const std::vector<QRectF>& px) const;
  QColor colourOf(const Lit& lit) const;

  const RingView& m_view;
  const RingStepModel& m_model;
  const TopologyLayout& m_layout;
  const TopologyPlacement& m_placement;
};
