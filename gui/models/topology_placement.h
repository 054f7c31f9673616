#pragma once
// TopologyPlacement: where the ring view draws a TopologyLayout's boxes in a drawing area of a given shape — each
// server either expanded (its NICs, GPUs and NVSwitch, as TopologyLayout arranges them) or collapsed to one box
// with its NICs as ports along its top edge and a cell per GPU; servers wrapped into the rows that fill the area
// best; the network's switch tiers above, one row per hop from the servers.
//
//   [s0] [s1] [s2] ... [s31]                         tier 2: spines
//   [leaf0] [leaf1] ...     [leaf31]                 tier 1: leaves, ordered by their neighbours' mean x
//   +-----------+ +-----------+ +-----------+
//   | | | | | | | | | | ...                          NIC ports: one per rail, each linked to its leaf
//   | [][][][]  | |           |                      a cell per GPU (the view fills it by the pieces reduced)
//   | server 0  | | server 1  |                      the caption inside the box, where no link label goes
//   +-----------+ +-----------+ ...
//   +-----------+ ...                                the next row of servers
//
// Servers under the same leaves (a pod of a large rail-optimized fabric) form a block; blocks stand side by side,
// each wrapped into rows, so that a pod's links rise to its own leaves (ordered above it by their neighbours' mean x)
// and its rows stay narrow: links from a lower row pass behind the servers above, within the pod's columns. Rows
// are as few as let every server read (a collapsed one kMinCollapsedPixels wide, a GPU kMinGpuPixels), else those
// that give the largest scale; spare height stretches the tier gaps, so that the drawing fills the area.
//
// Coordinates are abstract, as TopologyLayout's (a GPU box is 1 wide); the view scales bounds() into its area
// (transform()).
#include <QRectF>
#include <QSizeF>
#include <QTransform>
#include <map>
#include <set>
#include <vector>

class TopologyLayout;

class TopologyPlacement {
 public:
  struct HostMembers {  // a server's GPU and NIC boxes, in box order
    std::vector<int> gpus;
    std::vector<int> nics;
  };
  // Below this many pixels per GPU, a view collapses its servers (collapsedByDefault).
  static constexpr double kMinGpuPixels = 36;

  // `expanded`: the server boxes (TopologyLayout::hostBoxes() entries) shown with their GPUs; `area`: the shape of
  // the drawing area (only its aspect matters).
  TopologyPlacement(const TopologyLayout& layout, const std::set<int>& expanded, QSizeF area);

  // Whether servers should start collapsed in an area of `area` pixels: expanded, their GPUs would be narrower than
  // kMinGpuPixels.
  static bool collapsedByDefault(const TopologyLayout& layout, QSizeF area);
  // Layout coordinates to pixels of `area`: a uniform scale, centred, with `margin` pixels around.
  static QTransform transform(const QRectF& bounds, const QRectF& area, double margin);

  // Per layout box, its place; a null rect for a box not drawn (the NVSwitch of a collapsed server).
  const std::vector<QRectF>& rects() const { return m_rects; }
  const QRectF& rect(int box) const { return m_rects[static_cast<std::size_t>(box)]; }
  // Whether edge e is drawn: both ends shown and not both inside one collapsed server.
  bool edgeShown(int edge) const { return m_edgeShown[static_cast<std::size_t>(edge)]; }
  bool collapsed(int hostBox) const { return m_collapsedHosts.count(hostBox) > 0; }
  // For a server: the band inside its box that holds its caption.
  QRectF captionRect(int hostBox) const;
  int rows() const { return m_rows; }
  QRectF bounds() const { return m_bounds; }

 private:
  struct Unit {  // a server, or a GPU without one, as the rows place it
    int hostBox = -1;
    int gpuBox = -1;
    QRectF inner;  // its TopologyLayout rect (expanded) or its collapsed size
  };
  std::vector<std::vector<Unit>> blocksOf(const TopologyLayout& layout, const std::vector<Unit>& units);
  double placeRows(const TopologyLayout& layout, const std::vector<Unit>& units, double rowWidth, double left);
  void placeUnit(const TopologyLayout& layout, const Unit& unit, QPointF at);
  void placeTiers(const TopologyLayout& layout, double width);

  std::map<int, HostMembers> m_members;  // by server box
  std::vector<QRectF> m_rects;
  std::vector<bool> m_edgeShown;
  std::set<int> m_collapsedHosts;
  int m_rows = 1;
  QRectF m_bounds;
};
