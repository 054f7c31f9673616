#pragma once
// RingView: an AllReduce (ring, tree or halving-doubling) at one step of its schedule (RingStepModel), drawn on the
// topology it ran on. A scenario's dgx, fat-tree or switch machine is drawn as servers holding their GPUs,
// NVSwitches and NICs under the network switches (TopologyPainter, topology_layout.h), and each transfer lights
// up the links its route crosses, with the rate; a plain ring, mesh or torus — or a trace, which does not record
// its machine — puts the ranks on a circle with one arrow per transfer. Beside (or inside) each rank a strip of
// its pieces of the buffer, coloured per piece and filled by how many ranks' gradients that copy already sums (a
// black frame once fully reduced); ▲ marks what it sends this step, ▼ what it receives.
#include <QWidget>
#include <memory>
#include <optional>

#include "models/timeline_data.h"

class RingStepModel;
class TopologyLayout;

class RingView : public QWidget {
  Q_OBJECT
 public:
  explicit RingView(RingStepModel* model, QWidget* parent = nullptr);

  // The AllReduce the view follows: its bytes and duration give each transfer's rate; none hides the rates.
  void setBucket(std::optional<TimelineSpan> allReduce);
  // The machine; null or a circle-shaped topology draws the circle.
  void setTopology(std::shared_ptr<const TopologyLayout> topology);
  bool drawsTopology() const;
  // Centre of rank r in widget coordinates (for tests: the ranks must be there).
  QPointF rankCentre(int rank) const;
  // Bytes per second of one transfer of the current step; none without a bucket.
  std::optional<double> transferRate(int chunks) const;
  static QColor chunkColor(int chunk, int chunks);
  // A rank's piece strip in `box`, with ▲/▼ over the pieces moving this step.
  void drawStrip(QPainter& p, const QRectF& box, int rank) const;

  QSize sizeHint() const override { return {800, 700}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRectF drawingArea() const;
  double ringRadius() const;
  double nodeRadius() const;
  QString titleText() const;
  void paintCircle(QPainter& p);

  RingStepModel* m_model;
  std::optional<TimelineSpan> m_bucket;
  std::shared_ptr<const TopologyLayout> m_topology;
};
