#pragma once
// RingView: an AllReduce (ring, tree or halving-doubling) at one step of its schedule (RingStepModel), drawn on the
// topology it ran on. A scenario's dgx, fat-tree or switch machine is drawn as servers holding their GPUs,
// NVSwitches and NICs under the network switches (TopologyPainter, topology_placement.h); each transfer lights up
// the links its route crosses, labelled with the rate the simulator's traffic puts on them (collective_traffic.h):
// of all the channels the simulator ran, or of one. Servers too many to show their GPUs are collapsed to a box
// with their NIC ports and a cell per GPU; a click expands or collapses one. A plain ring, mesh or torus — or a
// trace, which does not record its machine — puts the ranks on a circle with one arrow per transfer. Beside (or
// inside) each rank a strip of its pieces of the buffer (of the channel shown), coloured per piece and filled by how
// many ranks' gradients that copy already sums (a black frame once fully reduced); ▲ marks what it sends this step,
// ▼ what it receives.
#include <QWidget>
#include <memory>
#include <optional>
#include <set>

#include "models/timeline_data.h"

class CollectiveTraffic;
class RingStepModel;
class TopologyLayout;
class TopologyPlacement;

class RingView : public QWidget {
  Q_OBJECT
 public:
  explicit RingView(RingStepModel* model, QWidget* parent = nullptr);
  ~RingView() override;

  // The AllReduce the view follows: its bytes and duration give the links' rates; none hides the rates.
  void setBucket(std::optional<TimelineSpan> allReduce);
  // The machine; null or a circle-shaped topology draws the circle.
  void setTopology(std::shared_ptr<const TopologyLayout> topology);
  // The channels of the schedule shown (the model holds one of them); null: one channel, no link traffic.
  void setTraffic(std::shared_ptr<const CollectiveTraffic> traffic);
  // The channel drawn: one, or all of them summed (nullopt).
  void setChannel(std::optional<int> channel);
  std::optional<int> channel() const { return m_channel; }
  // A note for the title (e.g. that the bucket ran an algorithm the view cannot draw).
  void setNote(const QString& note);
  // The layout group shown ("Tensor group 3 of 32: AllReduce of the activations, per block"); empty: a bucket's
  // AllReduce on the first GPUs.
  void setGroup(const QString& group);
  // The machine's GPU that rank `rank` of the schedule runs on (a group's member; else the rank itself).
  int gpuOfRank(int rank) const;
  bool drawsTopology() const;
  // Servers shown with their GPUs: collapsed by default when their GPUs would not read at this size.
  bool serverExpanded(int hostBox) const;
  void setServerExpanded(int hostBox, bool expanded);
  // These servers expanded, the others collapsed, whatever the size.
  void setExpandedServers(std::set<int> hostBoxes);
  // The placement for the current size (null when the circle is drawn), and its layout-to-widget transform.
  const TopologyPlacement* placement() const;
  QTransform topologyTransform() const;
  QRectF drawingArea() const;
  // The title's box at the top, as tall as the title wraps to at this width (at least two lines); the drawing area
  // starts below it, so a long title pushes the drawing down instead of being clipped.
  QRect titleRect() const;
  QFont titleFont() const;
  // The footer's box at the bottom (the legend, and on a machine the busiest links), as tall as its text wraps to at
  // this width (at least four lines); the drawing area ends above it. Only a widget too short for title and footer
  // together clips it (keeping clear of the title).
  QRect footerRect() const;
  QFont footerFont() const;
  // The footer's text (for tests: its box must hold every line of it).
  QString footerText() const;
  // Centre of rank r in widget coordinates (for tests: the ranks must be there).
  QPointF rankCentre(int rank) const;
  // Bytes per second of one transfer of the current step on the circle; none without a bucket.
  std::optional<double> transferRate(int chunks) const;
  // Per directed edge (EdgeUse::directed()), the rate of the channel(s) shown over the AllReduce; empty without a
  // bucket or a machine.
  const std::vector<double>& linkRates() const { return m_rates; }
  const CollectiveTraffic* traffic() const { return m_traffic.get(); }
  // Where the last paint put the links' rate labels (widget coordinates).
  const std::vector<QRectF>& rateLabels() const { return m_rateLabels; }
  static QColor chunkColor(int chunk, int chunks);
  // A rank's piece strip in `box`, with ▲/▼ over the pieces moving this step.
  void drawStrip(QPainter& p, const QRectF& box, int rank) const;

  QSize sizeHint() const override { return {800, 700}; }

 signals:
  void serverToggled(int hostBox, bool expanded);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  double ringRadius() const;
  double nodeRadius() const;
  QString titleText() const;
  QRect footerBelow(const QRect& title) const;  // footerRect() below that title box
  void paintCircle(QPainter& p);
  void updateRates();
  int serverAt(QPointF point) const;

  RingStepModel* m_model;
  std::optional<TimelineSpan> m_bucket;
  std::shared_ptr<const TopologyLayout> m_topology;
  std::shared_ptr<const CollectiveTraffic> m_traffic;
  std::optional<int> m_channel;
  QString m_note;
  QString m_group;
  std::vector<double> m_rates;
  std::vector<QRectF> m_rateLabels;
  std::optional<std::set<int>> m_expanded;  // servers shown with their GPUs; none: by size (collapsedByDefault)
  mutable std::unique_ptr<TopologyPlacement> m_placement;
  mutable QSizeF m_placedFor;
  mutable QString m_measuredTitle;
  mutable int m_measuredTitleWidth = -1;
  mutable int m_measuredTitleHeight = 0;
  mutable std::optional<QString> m_footerText;  // none: to build again (inputs changed)
  mutable int m_measuredFooterWidth = -1;
  mutable int m_measuredFooterHeight = 0;
};
