#pragma once
// RingView: a ring AllReduce drawn on its topology — ranks on a circle in ring order — at one step of its
// schedule (RingStepModel): beside each rank a strip of its chunks, coloured per chunk and filled by how many
// ranks' gradients that copy already sums (a black frame once fully reduced); the transfers of the step as arrows
// on the ring links, in the moving chunk's colour, labelled with the chunk and the link's rate.
#include <QWidget>
#include <optional>

class RingStepModel;

class RingView : public QWidget {
  Q_OBJECT
 public:
  explicit RingView(RingStepModel* model, QWidget* parent = nullptr);

  // Bytes per second on each ring link during a step, shown on the transfer arrows; none hides the label.
  void setLinkRate(std::optional<double> bytesPerSecond);
  // Centre of rank r's node in widget coordinates (for tests: the nodes must be there).
  QPointF rankCentre(int rank) const;
  static QColor chunkColor(int chunk, int chunks);

  QSize sizeHint() const override { return {800, 700}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  double ringRadius() const;
  double nodeRadius() const;
  QString phaseText() const;

  RingStepModel* m_model;
  std::optional<double> m_rate;
};
