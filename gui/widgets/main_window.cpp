#include "widgets/main_window.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <exception>

#include "models/parameter_model.h"
#include "models/ring_step_model.h"
#include "models/ring_sync.h"
#include "models/scenario_runner.h"
#include "widgets/convergence_view.h"
#include "widgets/jobs_view.h"
#include "widgets/ring_panel.h"
#include "widgets/scaling_chart_view.h"
#include "widgets/sweep_dialog.h"
#include "widgets/timeline_view.h"
#include "widgets/view_export.h"

namespace {
constexpr int kMaxRecentFiles = 10;
const char* const kRecentKey = "recentFiles";
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_timeline(new TimelineView(this)),
      m_ring(new RingPanel(this)),
      m_jobs(new JobsView(this)),
      m_scaling(new ScalingChartView(this)),
      m_convergence(new ConvergenceView(this)),
      m_tabs(new QTabWidget(this)),
      m_runner(new ScenarioRunner(this)),
      m_parameters(new ParameterModel(this)) {
  setWindowTitle(tr("syncsim"));
  setAcceptDrops(true);
  m_tabs->addTab(m_timeline, tr("Timeline"));
  m_tabs->addTab(m_ring, tr("Ring"));
  m_tabs->addTab(m_jobs, tr("Jobs"));
  m_tabs->setTabVisible(m_tabs->indexOf(m_jobs), false);  // shown for a scenario with jobs
  m_tabs->addTab(m_scaling, tr("Scaling"));
  m_tabs->addTab(m_convergence, tr("Convergence"));
  setCentralWidget(m_tabs);

  auto* dock = new QDockWidget(tr("Scenario"), this);
  dock->setObjectName(QStringLiteral("scenarioDock"));
  dock->setWidget(createSidePanel());
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  createMenus();

  connect(m_runner, &ScenarioRunner::started, this, [this](const QString& path) {
    setBusy(true);
    m_runStatus->setText(tr("Loading %1 ...").arg(QFileInfo(path).fileName()));
  });
  connect(m_runner, &ScenarioRunner::progress, this, [this](int done, int total, const QString& what) {
    m_progress->setRange(0, total);
    m_progress->setValue(done);
    m_progress->setFormat(what);
  });
  connect(m_runner, &ScenarioRunner::finished, this, &MainWindow::showDocument);
  connect(m_runner, &ScenarioRunner::failed, this, &MainWindow::showError);
  connect(m_runner, &ScenarioRunner::canceled, this, [this] {
    setBusy(false);
    m_runStatus->setText(tr("Canceled."));
  });
  connect(m_timeline, &TimelineView::cursorMoved, this, &MainWindow::onCursorMoved);
  connect(m_ring, &RingPanel::stepChanged, this, &MainWindow::onRingStepChanged);
  connect(m_convergence, &ConvergenceView::addReportsRequested, this, &MainWindow::chooseConvergenceReports);
  statusBar()->showMessage(
      tr("Open a scenario, a trace.json, a report.json or a sweep CSV (File > Open, or drop it here)."));
  resize(1400, 850);
}

MainWindow::~MainWindow() = default;

QWidget* MainWindow::createSidePanel() {
  auto* panel = new QWidget(this);
  auto* layout = new QVBoxLayout(panel);
  auto* table = new QTableView(panel);
  table->setModel(m_parameters);
  table->horizontalHeader()->setStretchLastSection(true);
  table->verticalHeader()->hide();
  table->setColumnWidth(ParameterModel::KeyColumn, 170);
  auto* add = new QPushButton(tr("Add parameter"), panel);
  m_rerun = new QPushButton(tr("Run again"), panel);
  m_rerun->setEnabled(false);
  m_progress = new QProgressBar(panel);
  // Stages of the run (read, simulate, timeline, topology: run_control.h), with the stage's name on the bar.
  m_progress->setRange(0, 0);
  m_progress->setTextVisible(true);
  m_progress->setVisible(false);
  m_cancel = new QPushButton(tr("Cancel"), panel);
  m_cancel->setVisible(false);
  m_runStatus = new QLabel(panel);
  m_runStatus->setWordWrap(true);
  layout->addWidget(new QLabel(tr("Parameters (as --set key=value; empty keeps the file's value):"), panel));
  layout->addWidget(table, 1);
  layout->addWidget(add);
  layout->addWidget(m_rerun);
  layout->addWidget(m_progress);
  layout->addWidget(m_cancel);
  layout->addWidget(m_runStatus);
  connect(add, &QPushButton::clicked, this, [this] { m_parameters->addParameter(QString()); });
  connect(m_rerun, &QPushButton::clicked, this, &MainWindow::rerun);
  connect(m_cancel, &QPushButton::clicked, m_runner, &ScenarioRunner::cancel);
  return panel;
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open"), QString(),
        tr("Scenarios, traces, reports and sweeps (*.yaml *.yml *.json *.csv);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
  });
  file->addAction(tr("Add Convergence &Reports..."), this, &MainWindow::chooseConvergenceReports);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("Run &Sweep..."), this, &MainWindow::openSweepDialog);
  file->addAction(tr("&Export View..."), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportCurrentView);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit"), QKeySequence(tr("F")), m_timeline, &TimelineView::fit);
  view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, m_timeline, &TimelineView::zoomIn);
  view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, m_timeline, &TimelineView::zoomOut);
  QAction* links = view->addAction(tr("Show &Link Lanes"));
  links->setCheckable(true);
  links->setChecked(m_timeline->showLinkLanes());
  connect(links, &QAction::toggled, m_timeline, &TimelineView::setShowLinkLanes);
  QAction* steps = view->addAction(tr("Show &Collective Lanes"));
  steps->setCheckable(true);
  steps->setChecked(m_timeline->showCollectiveLanes());
  connect(steps, &QAction::toggled, m_timeline, &TimelineView::setShowCollectiveLanes);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About"), this, [this] {
    QMessageBox::about(this, tr("About syncsim"),
                       tr("syncsim: a discrete-event simulator of distributed gradient synchronization."));
  });
  updateRecentMenu();
}

void MainWindow::openFile(const QString& path) {
  if (documentKindOf(path) == DocumentKind::Report) {
    if (addConvergenceReports({path})) addRecentFile(path);
    return;
  }
  if (documentKindOf(path) == DocumentKind::Scenario) {
    if (path != m_scenarioPath) m_parameters->clearValues();
    m_scenarioPath = path;
  } else {
    m_scenarioPath.clear();  // "Run again" re-runs scenarios only
  }
  m_runner->start(path, documentKindOf(path) == DocumentKind::Scenario ? m_parameters->overrides() : QStringList());
}

bool MainWindow::addConvergenceReports(const QStringList& paths) {
  for (const QString& path : paths) {
    try {
      m_convergence->addRun(readConvergenceReport(path));
    } catch (const std::exception& e) {
      showError(path, QString::fromUtf8(e.what()));
      return false;
    }
  }
  if (!paths.isEmpty()) m_tabs->setCurrentWidget(m_convergence);
  return true;
}

void MainWindow::chooseConvergenceReports() {
  const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Add Convergence Reports"), QString(),
                                                          tr("Reports (*.json);;All files (*)"));
  addConvergenceReports(paths);
}

void MainWindow::rerun() {
  if (!m_scenarioPath.isEmpty()) m_runner->start(m_scenarioPath, m_parameters->overrides());
}

void MainWindow::openSweepDialog() {
  auto* dialog = new SweepDialog(m_scenarioPath, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &SweepDialog::sweepFinished, this, &MainWindow::showSweep);
  dialog->show();
}

void MainWindow::showSweep(const SweepResult& result, const QString& title) {
  m_scaling->setScaling(result.scaling);
  m_tabs->setCurrentWidget(m_scaling);
  setWindowTitle(tr("%1 - syncsim").arg(title));
}

void MainWindow::setBusy(bool busy) {
  m_progress->setRange(0, 0);  // busy until the runner reports its first stage
  m_progress->setVisible(busy);
  m_cancel->setVisible(busy);
  m_rerun->setEnabled(!busy && !m_scenarioPath.isEmpty());
}

void MainWindow::showError(const QString& path, const QString& message) {
  setBusy(false);
  m_runStatus->setText(tr("Failed."));
  QMessageBox::critical(this, tr("Cannot open %1").arg(QFileInfo(path).fileName()), message);
}

void MainWindow::showDocument(std::shared_ptr<const LoadedDocument> doc) {
  setBusy(false);
  m_doc = std::move(doc);
  addRecentFile(m_doc->path);
  setWindowTitle(tr("%1 - syncsim").arg(m_doc->title));
  m_runStatus->setText(m_doc->summary.isEmpty() ? tr("Loaded.") : m_doc->summary);
  if (m_doc->convergence) {
    // A scenario run again with another strategy adds a curve; the same one replaces its own.
    m_convergence->addRun(*m_doc->convergence);
  }
  if (m_doc->kind == DocumentKind::Sweep) {
    m_scaling->setScaling(m_doc->scaling);
    m_tabs->setCurrentWidget(m_scaling);
    return;
  }
  if (!m_doc->timeline) {
    m_tabs->setCurrentWidget(m_convergence);
    return;
  }
  m_timeline->setTimeline(m_doc->timeline);
  m_jobs->setJobs(m_doc->jobs);
  m_tabs->setTabVisible(m_tabs->indexOf(m_jobs), m_doc->jobs != nullptr);
  m_ring->setTopology(m_doc->topology, m_doc->computeCapability);
  m_ring->setLayoutGroups(m_doc->layoutGroups);
  m_ringSpan = ringSpanNear(*m_doc->timeline, m_doc->timeline->beginPs());
  if (m_ringSpan) {
    const TimelineSpan& span = m_doc->timeline->span(*m_ringSpan);
    m_ring->follow(span, m_doc->ringRanks, bucketRunOf(*m_doc, span));
  } else {
    m_ring->follow(std::nullopt, m_doc->ringRanks);
  }
  statusBar()->showMessage(
      tr("%1 spans on %2 lanes").arg(m_doc->timeline->spanCount()).arg(m_doc->timeline->lanes().size()));
  if (!m_doc->jobs && !m_doc->timeline->jobs().empty()) {
    // A run folder's trace of several jobs: the machine and the links are the scenario's (docs/gui.md).
    statusBar()->showMessage(
        tr("%1 jobs; open their scenario to see them on the machine (Jobs tab)").arg(m_doc->timeline->jobs().size()));
  }
  if (m_doc->jobs) {
    m_tabs->setCurrentWidget(m_jobs);
  } else if (m_tabs->currentWidget() == m_scaling || m_tabs->currentWidget() == m_jobs) {
    m_tabs->setCurrentWidget(m_timeline);
  }
}

void MainWindow::onCursorMoved(qint64 timePs) {
  if (m_syncing || !m_doc || !m_doc->timeline) return;
  m_ringSpan = ringSpanNear(*m_doc->timeline, timePs);
  if (!m_ringSpan) return;
  const TimelineSpan& span = m_doc->timeline->span(*m_ringSpan);
  m_syncing = true;
  // The bucket under the cursor may have run another algorithm (auto picks per size): the view follows it.
  m_ring->follow(span, m_doc->ringRanks, bucketRunOf(*m_doc, span));
  // Before the AllReduce starts, the view waits at its first step; after it, at the end.
  m_ring->setStep(timePs < span.startPs    ? 0
                  : timePs >= span.endPs() ? m_ring->stepCount()
                                           : collectiveStepAt(span, timePs, m_ring->stepCount()));
  m_syncing = false;
}

void MainWindow::onRingStepChanged(int step) {
  if (m_syncing || !m_doc || !m_doc->timeline || !m_ringSpan) return;
  m_syncing = true;
  m_timeline->setCursorTime(collectiveStepTime(m_doc->timeline->span(*m_ringSpan), step, m_ring->stepCount()));
  m_syncing = false;
}

void MainWindow::exportCurrentView() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export View"), QStringLiteral("view.png"),
                                                    tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  const QString error = exportWidget(m_tabs->currentWidget(), path);
  if (!error.isEmpty()) QMessageBox::critical(this, tr("Export failed"), error);
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList files = settings.value(kRecentKey).toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue(kRecentKey, files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  m_recentMenu->clear();
  const QStringList files = QSettings().value(kRecentKey).toStringList();
  for (const QString& f : files) {
    m_recentMenu->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })->setToolTip(f);
  }
  m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) {
      openFile(url.toLocalFile());
      event->acceptProposedAction();
      return;
    }
  }
}
