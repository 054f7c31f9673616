#pragma once
// SweepDialog: "Run Sweep" — pick a scenario, one key to vary and its values, run them as `syncsim sweep` would
// (SweepJob, on a worker thread) with a progress bar per finished point and Cancel, and hand the result to the
// scaling chart. For more than one axis, MPI or resuming, the command line is the tool (docs/planner.md).
#include <QDialog>

#include "models/sweep_job.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

class SweepDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SweepDialog(const QString& scenario, QWidget* parent = nullptr);

  SweepJob* job() const { return m_job; }
  void setVary(const QString& key, const QString& values);

 public slots:
  void run();

 signals:
  // The points that finished (all of them unless canceled), ready to plot.
  void sweepFinished(const SweepResult& result, const QString& title);

 private:
  void setRunning(bool running);

  SweepJob* m_job;
  QLineEdit* m_scenario;
  QComboBox* m_key;
  QLineEdit* m_values;
  QSpinBox* m_threads;
  QProgressBar* m_progress;
  QLabel* m_status;
  QPushButton* m_run;
  QPushButton* m_cancel;
};
