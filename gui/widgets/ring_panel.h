#pragma once
// RingPanel: the ring view with its controls — a step slider, play/pause that animates reduce-scatter then
// all-gather, and the step's description. The step is the same one the timeline's cursor points at (MainWindow
// keeps the two in sync through stepChanged / setStep).
#include <QWidget>
#include <optional>

class QLabel;
class QPushButton;
class QSlider;
class QTimer;
class RingStepModel;
class RingView;

class RingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RingPanel(QWidget* parent = nullptr);

  RingStepModel* model() const { return m_model; }
  RingView* view() const { return m_view; }
  int step() const;
  int rankCount() const;

 public slots:
  void setRankCount(int ranks);
  void setStep(int step);
  void setLinkRate(std::optional<double> bytesPerSecond);
  void setPlaying(bool playing);

 signals:
  void stepChanged(int step);

 private:
  void advance();

  RingStepModel* m_model;
  RingView* m_view;
  QSlider* m_slider;
  QPushButton* m_play;
  QLabel* m_stepLabel;
  QTimer* m_timer;
};
