#pragma once
// ConvergenceView: the Convergence tab — several runs' held-out loss against simulated time (or updates), overlaid
// for comparison, with accuracy on a second axis, each target loss as a dashed line, a marker where a run reached
// its target and one where it diverged; below, the runs as a table (ConvergenceModel) and the staleness histogram
// of the run selected there, when it is asynchronous.
//
// Runs come from report.json files (Add Reports, or the window opening one) and from scenarios run in the window
// whose report has a convergence section; the chart is rebuilt from the model whenever it changes.
#include <QWidget>

#include "models/convergence_model.h"

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QTableView;

class ConvergenceView : public QWidget {
  Q_OBJECT
 public:
  explicit ConvergenceView(QWidget* parent = nullptr);

  ConvergenceModel* model() const { return m_model; }
  // The row added or replaced; it becomes the selected run.
  int addRun(ConvergenceRun run);
  void setRuns(std::vector<ConvergenceRun> runs);

  ConvergenceXAxis xAxis() const { return m_xAxis; }
  void setXAxis(ConvergenceXAxis axis);
  bool showsAccuracy() const { return m_showAccuracy; }
  void setShowAccuracy(bool show);
  int selectedRun() const { return m_selected; }
  void selectRun(int row);

  QChart* curveChart() const;
  QChart* stalenessChart() const;
  // Whether the staleness chart shows bars (the selected run is asynchronous).
  bool showsStaleness() const;

  QSize sizeHint() const override { return {1200, 860}; }

 signals:
  // The user asked for report.json files to add (the window opens them on its runner).
  void addReportsRequested();

 private:
  void rebuildCurves();
  void rebuildStaleness();

  ConvergenceModel* m_model;
  QComboBox* m_axisBox;
  QCheckBox* m_accuracyBox;
  QChartView* m_curves;
  QTableView* m_table;
  QChartView* m_staleness;
  QLabel* m_noStaleness;
  QLabel* m_empty;
  ConvergenceXAxis m_xAxis = ConvergenceXAxis::Time;
  bool m_showAccuracy = false;  // off: with several runs, loss and accuracy lines together are hard to read
  int m_selected = -1;
};
