// A scenario's simulation reports its iterations and stops when canceled (run::RunProgress): a run that would take
// a long time (a million iterations, 1.6 million asynchronous updates) canceled at its first report ends within
// seconds, through loadDocument and through ScenarioRunner's worker thread.
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include "models/loaded_document.h"
#include "models/scenario_runner.h"

namespace {

// A full run of these takes minutes; a canceled one must end long before. Generous for a loaded 2-core machine.
constexpr qint64 kCanceledWithinMs = 10000;

// `example` with training.iterations raised to `iterations`, written into `dir`.
QString longScenario(const QTemporaryDir& dir, const char* example, int iterations) {
  QFile in(QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/") + QLatin1String(example));
  if (!in.open(QIODevice::ReadOnly)) return {};
  QString text = QString::fromUtf8(in.readAll());
  static const QRegularExpression kIterations(QStringLiteral("iterations: \\d+"));
  text.replace(kIterations, QStringLiteral("iterations: %1").arg(iterations));
  const QString path = dir.filePath(QLatin1String(example));
  QFile out(path);
  out.open(QIODevice::WriteOnly);
  out.write(text.toUtf8());
  return path;
}

}  // namespace

class TestGuiRunProgress : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // Progress counts iterations of the whole run (synchronous) or worker updates (asynchronous: 16 workers x 150),
  // up to the total, a few hundred reports at most.
  void reportsIterations_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<int>("total");
    QTest::addColumn<QString>("unit");
    QTest::newRow("sync") << QStringLiteral("resnet50-dgx-8gpu.yaml") << 20 << QStringLiteral("iteration");
    QTest::newRow("async") << QStringLiteral("async-staleness.yaml") << 16 * 150 << QStringLiteral("update");
  }

  void reportsIterations() {
    QFETCH(QString, example);
    QFETCH(int, total);
    QFETCH(QString, unit);
    const QString path = QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/") + example;
    if (!QFile::exists(path)) QSKIP("example not there");
    RunControl control;
    QList<int> done;
    control.progress = [&](int d, int t, const QString& what) {
      if (!what.startsWith(QStringLiteral("Simulating:"))) return;
      QCOMPARE(t, total);
      QVERIFY(what.contains(unit));
      done << d;
    };
    const LoadedDocument doc = loadDocument(path, {}, &control);
    QVERIFY(doc.timeline);
    QVERIFY(!done.isEmpty());
    QVERIFY(done.size() <= 201);
    QCOMPARE(done.back(), total);
    QVERIFY(std::is_sorted(done.begin(), done.end()));
  }

  // Canceled from its first iteration's report (on the simulating thread): loadDocument throws RunCanceled soon.
  void cancelStopsTheSimulation_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<int>("iterations");
    QTest::newRow("sync") << QStringLiteral("resnet50-dgx-8gpu.yaml") << 1000000;
    QTest::newRow("async") << QStringLiteral("async-staleness.yaml") << 100000;
  }

  void cancelStopsTheSimulation() {
    QFETCH(QString, example);
    QFETCH(int, iterations);
    const QString path = longScenario(m_dir, example.toUtf8().constData(), iterations);
    if (path.isEmpty()) QSKIP("example not there");
    RunControl control;
    int reports = 0;
    control.progress = [&](int, int, const QString& what) {
      if (what.startsWith(QStringLiteral("Simulating:")) && ++reports == 1) control.canceled = true;
    };
    QElapsedTimer timer;
    timer.start();
    QVERIFY_THROWS_EXCEPTION(RunCanceled, loadDocument(path, {}, &control));
    QCOMPARE(reports, 1);
    QVERIFY2(timer.elapsed() < kCanceledWithinMs, qPrintable(QString::number(timer.elapsed())));
  }

  // Through the window's runner: cancel() at the first iteration reported; canceled() at once, no result, and
  // the worker thread ends soon instead of simulating on.
  void runnerCancelsMidRun() {
    const QString path = longScenario(m_dir, "resnet50-dgx-8gpu.yaml", 1000000);
    ScenarioRunner runner;
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    QSignalSpy failed(&runner, &ScenarioRunner::failed);
    QSignalSpy canceled(&runner, &ScenarioRunner::canceled);
    int lastTotal = 0;
    connect(&runner, &ScenarioRunner::progress, this, [&](int done, int total, const QString& what) {
      if (!what.startsWith(QStringLiteral("Simulating:")) || !runner.isRunning()) return;
      QVERIFY(done <= total);
      lastTotal = total;
      runner.cancel();
    });
    QElapsedTimer timer;
    timer.start();
    runner.start(path);
    QTRY_COMPARE_WITH_TIMEOUT(canceled.count(), 1, kCanceledWithinMs);
    QCOMPARE(lastTotal, 1000000);
    QTRY_COMPARE_WITH_TIMEOUT(runner.workerCount(), 0, kCanceledWithinMs);
    QVERIFY2(timer.elapsed() < kCanceledWithinMs, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(finished.count(), 0);
    QCOMPARE(failed.count(), 0);
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestGuiRunProgress)
#include "tst_gui_run_progress.moc"
