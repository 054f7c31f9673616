#pragma once
// MainWindow: the application window — Timeline, Ring, Jobs (a scenario with `jobs:`), Scaling and Convergence tabs; a
// side panel with the scenario's parameters (edit, run again), the run's progress and a cancel button; File menu with
// recent files, a small sweep run from the window (SweepDialog) and export; drag and drop of scenarios, traces, sweep
// CSVs and report.json files. Opening a scenario or trace never blocks: ScenarioRunner loads it on a worker thread. A
// report.json (a few kilobytes) is read at once and its run added to the Convergence view, as is the convergence run of
// a scenario that has one. Errors are shown in a dialog.
#include <QMainWindow>
#include <memory>
#include <optional>

#include "models/loaded_document.h"
#include "models/sweep_job.h"
#include "models/timeline_data.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class ConvergenceView;
class JobsView;
class ParameterModel;
class RingPanel;
class ScalingChartView;
class ScenarioRunner;
class TimelineView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  TimelineView* timelineView() const { return m_timeline; }
  RingPanel* ringPanel() const { return m_ring; }
  ConvergenceView* convergenceView() const { return m_convergence; }
  JobsView* jobsView() const { return m_jobs; }
  QTabWidget* tabs() const { return m_tabs; }

 public slots:
  void openFile(const QString& path);
  // Adds each report's run to the Convergence view; false (after an error dialog) at the first bad one.
  bool addConvergenceReports(const QStringList& paths);
  void chooseConvergenceReports();
  void rerun();
  void showDocument(std::shared_ptr<const LoadedDocument> doc);
  void openSweepDialog();
  void showSweep(const SweepResult& result, const QString& title);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createMenus();
  QWidget* createSidePanel();
  void addRecentFile(const QString& path);
  void updateRecentMenu();
  void showError(const QString& path, const QString& message);
  void setBusy(bool busy);
  void exportCurrentView();
  void onCursorMoved(qint64 timePs);
  void onRingStepChanged(int step);

  TimelineView* m_timeline;
  RingPanel* m_ring;
  JobsView* m_jobs;
  ScalingChartView* m_scaling;
  ConvergenceView* m_convergence;
  QTabWidget* m_tabs;
  ScenarioRunner* m_runner;
  ParameterModel* m_parameters;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_rerun = nullptr;
  QLabel* m_runStatus = nullptr;
  QMenu* m_recentMenu = nullptr;

  std::shared_ptr<const LoadedDocument> m_doc;
  QString m_scenarioPath;
  std::optional<SpanRef> m_ringSpan;  // the AllReduce the ring view follows
  bool m_syncing = false;             // set while one view updates the other, to stop the echo
};
