// A sweep run from the window (SweepJob): the same points and table as `syncsim sweep`, progress per point, a
// cancel that stops starting points, errors before any simulation, and the scaling series it yields. The scenario
// is the 8-GPU example cut to 2 iterations, so each point takes a moment.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "models/scaling_model.h"
#include "models/sweep_job.h"
#include "syncsim/core/input_error.hpp"
#include "widgets/main_window.h"
#include "widgets/scaling_chart_view.h"
#include "widgets/sweep_dialog.h"

namespace {

QString shortScenario(const QTemporaryDir& dir) {
  QFile in(QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/resnet50-dgx-8gpu.yaml"));
  in.open(QIODevice::ReadOnly);
  QString text = QString::fromUtf8(in.readAll());
  text.replace(QStringLiteral("iterations: 20"), QStringLiteral("iterations: 2"));
  const QString path = dir.filePath(QStringLiteral("short.yaml"));
  QFile out(path);
  out.open(QIODevice::WriteOnly);
  out.write(text.toUtf8());
  return path;
}

}  // namespace

class TestGuiSweep : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_scenario = shortScenario(m_dir);
  }

  // Two points, 2 and 4 workers: one configuration, throughput at two GPU counts; progress 0, 1, 2 of 2.
  void runsEveryPointWithProgress() {
    RunControl control;
    QList<int> done;
    control.progress = [&](int d, int total, const QString&) {
      QCOMPARE(total, 2);
      done << d;
    };
    const SweepResult r = runSweep({m_scenario, QStringLiteral("cluster.workers=2,4"), 1}, &control);
    QCOMPARE(done, (QList<int>{0, 1, 2}));
    QCOMPARE(r.pointsDone, 2);
    QCOMPARE(r.pointsTotal, 2);
    QVERIFY(!r.canceled);
    QVERIFY(r.csv.startsWith(QStringLiteral("cluster.workers,")));
    QCOMPARE(r.csv.count(u'\n'), 3);  // header and two rows
    QCOMPARE(r.scaling.series.size(), std::size_t{1});
    const ScalingSeries& s = r.scaling.series.front();
    QCOMPARE(s.points.size(), std::size_t{2});
    QCOMPARE(s.points[0].gpus, 2);
    QCOMPARE(s.points[1].gpus, 4);
    QVERIFY(s.points[1].throughput > s.points[0].throughput);
    ScalingModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setScaling(r.scaling);
    QCOMPARE(model.rowCount(), 2);
  }

  // Canceled before it starts: no point runs, and the result says so.
  void cancelStopsStartingPoints() {
    RunControl control;
    control.canceled = true;
    const SweepResult r = runSweep({m_scenario, QStringLiteral("cluster.workers=2,4,8"), 1}, &control);
    QCOMPARE(r.pointsDone, 0);
    QCOMPARE(r.pointsTotal, 3);
    QVERIFY(r.canceled);
  }

  // Canceled from the progress of the first point (on the worker, one thread): no other point starts.
  void cancelAfterTheFirstPoint() {
    RunControl control;
    control.progress = [&control](int d, int, const QString&) {
      if (d >= 1) control.canceled = true;
    };
    const SweepResult r = runSweep({m_scenario, QStringLiteral("cluster.workers=2,4,8"), 1}, &control);
    QCOMPARE(r.pointsDone, 1);
    QVERIFY(r.canceled);
    QCOMPARE(r.scaling.series.size(), std::size_t{1});  // the finished point is plotted
    QCOMPARE(r.csv.count(u'\n'), 2);
  }

  // The job on its thread: progress arrives on the GUI thread, cancel() reaches the worker, and finished() carries
  // the points that ran (fewer than asked: it is canceled while checking the overrides, before any point).
  void jobReportsProgressAndCancels() {
    SweepJob job;
    QSignalSpy finished(&job, &SweepJob::finished);
    QSignalSpy progress(&job, &SweepJob::progress);
    job.start({m_scenario, QStringLiteral("cluster.workers=2,4"), 1});
    QVERIFY(job.isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(progress.count(), 3);  // 0, 1 and 2 of 2
    QCOMPARE(finished.front().front().value<SweepResult>().pointsDone, 2);
    QVERIFY(!job.isRunning());

    QSignalSpy canceled(&job, &SweepJob::finished);
    job.start({m_scenario, QStringLiteral("cluster.workers=2,3,4,5,6,7,8"), 1});
    job.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(canceled.count(), 1, 60000);
    const auto r = canceled.front().front().value<SweepResult>();
    QVERIFY(r.canceled);
    QVERIFY(r.pointsDone < r.pointsTotal);
  }

  // The dialog as the window opens it: run, progress, and the result plotted on the Scaling tab.
  void dialogRunsAndPlots() {
    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    SweepDialog dialog(m_scenario, &window);
    dialog.setAttribute(Qt::WA_DontShowOnScreen);
    dialog.setVary(QStringLiteral("cluster.workers"), QStringLiteral("2,4,8"));
    connect(&dialog, &SweepDialog::sweepFinished, &window, &MainWindow::showSweep);
    QSignalSpy done(&dialog, &SweepDialog::sweepFinished);
    dialog.show();
    dialog.run();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    const auto r = done.front().front().value<SweepResult>();
    QCOMPARE(r.pointsDone, 3);
    QVERIFY(window.windowTitle().contains(QStringLiteral("cluster.workers")));
    if (qEnvironmentVariableIsSet("SYNCSIM_GUI_SHOT_DIR")) {  // for a look at the dialog by hand
      dialog.grab().save(qEnvironmentVariable("SYNCSIM_GUI_SHOT_DIR") + QStringLiteral("/sweep-dialog.png"));
      window.grab().save(qEnvironmentVariable("SYNCSIM_GUI_SHOT_DIR") + QStringLiteral("/sweep-window.png"));
    }
  }

  void badAxisFailsBeforeAnySimulation() {
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError, runSweep({m_scenario, QStringLiteral("cluster.wrkers=2,4"), 1}));
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError, runSweep({m_scenario, QStringLiteral("cluster.workers"), 1}));
    SweepJob job;
    QSignalSpy failed(&job, &SweepJob::failed);
    job.start({m_scenario, QStringLiteral("model.name=no-such-model"), 1});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("no-such-model")));
  }

 private:
  QTemporaryDir m_dir;
  QString m_scenario;
};

QTEST_MAIN(TestGuiSweep)
#include "tst_gui_sweep.moc"
