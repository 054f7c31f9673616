// The Convergence view's data: report.json read into runs (hand-written reports, every field known), the points
// and markers the chart plots, the staleness bars, bad reports rejected with their key path, the runs table under
// QAbstractItemModelTester, runs taken straight from run_scenario, and the view itself.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QLineSeries>
#include <QMessageBox>
#include <QScatterSeries>
#include <QTabWidget>
#include <QTimer>
#include <QtTest>
#include <cmath>

#include "models/convergence_model.h"
#include "models/convergence_run.h"
#include "models/loaded_document.h"
#include "syncsim/core/input_error.hpp"
#include "widgets/convergence_view.h"
#include "widgets/main_window.h"
#include "widgets/screenshot.h"

namespace {

QString data(const char* name) {
  return QStringLiteral(SYNCSIM_SOURCE_DIR "/gui/tests/data/") + QLatin1String(name);
}

// The key path of the InputError that parsing `json` throws, or "no error".
QString errorKey(const std::string& json) {
  try {
    parseConvergenceReport(json, QStringLiteral("test.json"));
  } catch (const syncsim::InputError& e) {
    return QString::fromStdString(e.key());
  }
  return QStringLiteral("no error");
}

// A valid report with one replacement: `from` (a piece of it) becomes `to`.
std::string reportWith(const std::string& from, const std::string& to) {
  QFile f(data("convergence-async.json"));
  f.open(QIODevice::ReadOnly);
  std::string text = f.readAll().toStdString();
  const auto at = text.find(from);
  if (at == std::string::npos) return "piece not found: " + from;
  return text.replace(at, from.size(), to);
}

}  // namespace

class TestGuiConvergence : public QObject {
  Q_OBJECT
 private slots:
  // convergence-async.json: 4 workers, 5 evaluations 10 updates (1 ms) apart, target 0.9 reached at 3 ms (update
  // 30, loss 0.85); staleness 0..5 with counts 2 3 8 6 4 1.
  void readsAHandWrittenReport() {
    const ConvergenceRun r = readConvergenceReport(data("convergence-async.json"));
    QCOMPARE(r.scenario, QStringLiteral("hand-written"));
    QCOMPARE(r.strategy, QStringLiteral("async"));
    QCOMPARE(r.workers, 4);
    QCOMPARE(r.curve.size(), std::size_t{5});
    QCOMPARE(r.curve[3].update, 30);
    QCOMPARE(r.curve[3].timeUs, 3000.0);
    QCOMPARE(r.curve[3].loss, 0.85);
    QCOMPARE(r.targetLoss.value(), 0.9);
    QCOMPARE(r.timeToTargetUs.value(), 3000.0);
    QCOMPARE(r.updatesToTarget.value(), 30);
    QVERIFY(!r.diverged());
    QVERIFY(r.staleness);
    QCOMPARE(r.staleness->counts, (std::vector<qint64>{2, 3, 8, 6, 4, 1}));
    QCOMPARE(r.staleness->max, 5);
    QCOMPARE(r.name(), QStringLiteral("hand-written async, 4 workers"));
  }

  // The chart's points: time in ms (4 ms of run), or updates; accuracy as read.
  void curvePoints() {
    const ConvergenceRun r = readConvergenceReport(data("convergence-async.json"));
    const ConvergenceTimeUnit unit = convergenceTimeUnit(maxCurveTimeUs({r}));
    QCOMPARE(unit.divisorUs, 1e3);
    const auto loss = convergenceCurve(r, ConvergenceXAxis::Time, ConvergenceMetric::Loss, unit);
    QCOMPARE(loss.size(), std::size_t{5});
    QCOMPARE(loss[2], QPointF(2.0, 1.0));
    const auto accuracy = convergenceCurve(r, ConvergenceXAxis::Updates, ConvergenceMetric::Accuracy, unit);
    QCOMPARE(accuracy[4], QPointF(40, 0.7));
  }

  // The marker sits on the evaluation that reached the target: (3 ms, 0.85), or (update 30, 0.85).
  void timeToTargetMarker() {
    const ConvergenceRun r = readConvergenceReport(data("convergence-async.json"));
    const ConvergenceTimeUnit ms = convergenceTimeUnit(4000);
    QCOMPARE(::timeToTargetMarker(r, ConvergenceXAxis::Time, ms).value(), QPointF(3.0, 0.85));
    QCOMPARE(::timeToTargetMarker(r, ConvergenceXAxis::Updates, ms).value(), QPointF(30, 0.85));
    // Not reached (sync report), or no target: no marker.
    QVERIFY(!::timeToTargetMarker(readConvergenceReport(data("convergence-sync.json")), ConvergenceXAxis::Time, ms));
  }

  // Beyond 10 s of simulated time the axis reads in seconds.
  void timeUnit() {
    QCOMPARE(convergenceTimeUnit(9e6).divisorUs, 1e3);
    QCOMPARE(convergenceTimeUnit(2e7).divisorUs, 1e6);
  }

  // A diverged run: the null evaluation ends the curve (3 points), NaN final loss, the marker at the divergence
  // (1.5005 ms) on the last loss evaluated (7.5).
  void divergedRun() {
    const ConvergenceRun r = readConvergenceReport(data("convergence-diverged.json"));
    QVERIFY(r.diverged());
    QCOMPARE(r.curve.size(), std::size_t{3});
    QVERIFY(std::isnan(r.finalLoss));
    QVERIFY(!r.targetLoss);
    const auto m = divergenceMarker(r, ConvergenceXAxis::Time, convergenceTimeUnit(1500.5));
    QCOMPARE(m.value(), QPointF(1.5005, 7.5));
    QCOMPARE(divergenceMarker(r, ConvergenceXAxis::Updates, {}).value(), QPointF(96, 7.5));
    QVERIFY(!divergenceMarker(readConvergenceReport(data("convergence-async.json")), ConvergenceXAxis::Time, {}));
  }

  // Six staleness values (2 3 8 6 4 1) fit in 16 bars, one each. 0..99 with count s for staleness s: 0 is empty,
  // 1..9 hold 45 of 4950 (under 1 %) and share a bar, 10..99 in 39 bars of width 3 (30 of them), every update still
  // counted. 64 asynchronous workers (5 updates at 60, 9000 at 63): "60-62" and "63".
  void stalenessBins() {
    const ConvergenceRun r = readConvergenceReport(data("convergence-async.json"));
    const auto few = ::stalenessBins(*r.staleness);
    QCOMPARE(few.size(), std::size_t{6});
    QCOMPARE(few[2].count, 8);
    QCOMPARE(few[2].label(), QStringLiteral("2"));
    StalenessHistogram wide;
    for (int s = 0; s < 100; ++s) wide.counts.push_back(s);
    const auto bins = ::stalenessBins(wide, 40);
    QCOMPARE(bins.size(), std::size_t{31});
    QCOMPARE(bins[0].label(), QStringLiteral("1-9"));
    QCOMPARE(bins[0].count, 45);
    QCOMPARE(bins[1].label(), QStringLiteral("10-12"));
    QCOMPARE(bins[1].count, 10 + 11 + 12);
    QCOMPARE(bins.back().label(), QStringLiteral("97-99"));
    qint64 total = 0;
    for (const StalenessBin& b : bins) total += b.count;
    QCOMPARE(total, 99 * 100 / 2);
    StalenessHistogram late;
    late.counts.assign(64, 0);
    late.counts[60] = 5;
    late.counts[63] = 9000;
    const auto two = ::stalenessBins(late);
    QCOMPARE(two.size(), std::size_t{2});
    QCOMPARE(two.front().label(), QStringLiteral("60-62"));
    QCOMPARE(two.front().count, 5);
    QCOMPARE(two.back().label(), QStringLiteral("63"));
    QVERIFY(::stalenessBins(StalenessHistogram{}).empty());
    QVERIFY(::stalenessBins(StalenessHistogram{0, 0, 0, {0, 0}}).empty());
  }

  // Bad reports: each names the key that is wrong; none crashes.
  void rejectsBadReports_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("key");
    QTest::newRow("not json") << QStringLiteral("{\"scenario\": ") << QString();
    QTest::newRow("array") << QStringLiteral("[1, 2]") << QString();
    QTest::newRow("a trace") << QStringLiteral("{\"traceEvents\": []}") << QString();
    QTest::newRow("no convergence") << QString::fromStdString(reportWith("\"convergence\"", "\"other\""))
                                    << QStringLiteral("convergence");
    QTest::newRow("no scenario") << QString::fromStdString(reportWith("\"scenario\"", "\"name\""))
                                 << QStringLiteral("scenario");
    QTest::newRow("workers text") << QString::fromStdString(reportWith("\"workers\": 4", "\"workers\": \"4\""))
                                  << QStringLiteral("workers");
    QTest::newRow("negative updates") << QString::fromStdString(reportWith("\"updates\": 40", "\"updates\": -40"))
                                      << QStringLiteral("convergence.updates");
    QTest::newRow("curve object") << QString::fromStdString(
                                         reportWith("\"curve\": [", "\"curve\": {\"a\": 1}, \"x\": ["))
                                  << QStringLiteral("convergence.curve");
    QTest::newRow("time text") << QString::fromStdString(reportWith("\"time_us\": 1000.0", "\"time_us\": \"soon\""))
                               << QStringLiteral("convergence.curve[1].time_us");
    QTest::newRow("time backwards") << QString::fromStdString(reportWith("\"time_us\": 2000.0", "\"time_us\": 500.0"))
                                    << QStringLiteral("convergence.curve[2].update");
    QTest::newRow("target text") << QString::fromStdString(
                                        reportWith("\"target_loss\": 0.9", "\"target_loss\": \"low\""))
                                 << QStringLiteral("convergence.target_loss");
    QTest::newRow("histogram text") << QString::fromStdString(reportWith("[2, 3, 8", "[2, \"3\", 8"))
                                    << QStringLiteral("staleness.histogram[1]");
    QTest::newRow("staleness number") << QString::fromStdString(
                                             reportWith("\"staleness\": {", "\"staleness\": 3, \"x\": {"))
                                      << QStringLiteral("staleness");
  }

  void rejectsBadReports() {
    QFETCH(QString, json);
    QFETCH(QString, key);
    QCOMPARE(errorKey(json.toStdString()), key);
  }

  // The malformed file and a missing one throw InputError naming the file.
  void badFiles() {
    for (const QString& path : {data("malformed-report.json"), data("no-such-report.json")}) {
      try {
        readConvergenceReport(path);
        QFAIL("no error");
      } catch (const syncsim::InputError& e) {
        QVERIFY(QString::fromUtf8(e.what()).contains(path));
      }
    }
  }

  // A report.json opens as a report, a trace as a trace, whatever both are called.
  void documentKinds() {
    QCOMPARE(documentKindOf(data("convergence-async.json")), DocumentKind::Report);
    QCOMPARE(documentKindOf(data("malformed-trace.json")), DocumentKind::Trace);
    QCOMPARE(documentKindOf(data("no-such.json")), DocumentKind::Trace);
  }

  // The runs table: rows added, the same name replaced, removed, cleared; formatted cells.
  void model() {
    ConvergenceModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const ConvergenceRun async = readConvergenceReport(data("convergence-async.json"));
    QCOMPARE(model.addRun(async), 0);
    QCOMPARE(model.addRun(readConvergenceReport(data("convergence-sync.json"))), 1);
    QCOMPARE(model.addRun(readConvergenceReport(data("convergence-diverged.json"))), 2);
    QCOMPARE(model.addRun(async), 0);  // same scenario, strategy and workers: replaced
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(ConvergenceModel::ColumnCount));
    const auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
      return model.data(model.index(row, column), role);
    };
    QCOMPARE(cell(0, ConvergenceModel::TimeToTargetColumn).toString(), QStringLiteral("3 ms"));
    QCOMPARE(cell(0, ConvergenceModel::TimeToTargetColumn, Qt::EditRole).toDouble(), 3000.0);
    QCOMPARE(cell(1, ConvergenceModel::TimeToTargetColumn).toString(), QStringLiteral("not reached"));
    QCOMPARE(cell(2, ConvergenceModel::TimeToTargetColumn).toString(), QStringLiteral("no target"));
    QCOMPARE(cell(2, ConvergenceModel::FinalLossColumn).toString(), QStringLiteral("-"));
    QVERIFY(cell(2, ConvergenceModel::DivergedColumn).toString().contains(QStringLiteral("96")));
    QVERIFY(cell(2, ConvergenceModel::NameColumn, Qt::ForegroundRole).isValid());
    QCOMPARE(cell(1, ConvergenceModel::StalenessColumn).toString(), QStringLiteral("synchronous"));
    QVERIFY(!model.headerData(ConvergenceModel::StalenessColumn, Qt::Horizontal).toString().isEmpty());
    model.removeRun(1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.run(1).workers, 64);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  // A scenario with --set convergence.target_loss: the run comes from run_scenario's report, with every evaluation
  // and the staleness of the asynchronous servers; the same scenario without the section is an error.
  void runFromAScenario() {
    const QString scenario = QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/async-staleness.yaml");
    if (!QFile::exists(scenario)) QSKIP("examples/async-staleness.yaml is not there");
    const ConvergenceRun r = loadConvergenceRun(scenario, {QStringLiteral("convergence.target_loss=0.95")});
    QCOMPARE(r.strategy, QStringLiteral("async"));
    QVERIFY(r.curve.size() > 10);
    QCOMPARE(r.curve.front().update, 0);
    QVERIFY(r.staleness && !r.staleness->counts.empty());
    QCOMPARE(r.targetLoss.value(), 0.95);
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError,
                             loadConvergenceRun(QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/resnet50-dgx-8gpu.yaml")));
  }

  // The view: one loss curve per run, a target line, the reached and diverged markers; the histogram follows the
  // selection (none for the synchronous run); the x axis switches to updates.
  void view() {
    ConvergenceView view;
    view.setRuns({readConvergenceReport(data("convergence-sync.json")),
                  readConvergenceReport(data("convergence-async.json")),
                  readConvergenceReport(data("convergence-diverged.json"))});
    QCOMPARE(view.selectedRun(), 2);  // the stalest run (mean 63)
    QVERIFY(view.showsStaleness());
    int curves = 0;
    int targets = 0;
    int reached = -1;
    int diverged = -1;
    for (QAbstractSeries* s : view.curveChart()->series()) {
      if (s->name().startsWith(QStringLiteral("hand-written"))) ++curves;
      if (s->name().startsWith(QStringLiteral("Target loss"))) ++targets;
      if (s->name() == QStringLiteral("Reached the target")) reached = static_cast<QScatterSeries*>(s)->count();
      if (s->name() == QStringLiteral("Diverged")) diverged = static_cast<QScatterSeries*>(s)->count();
    }
    QCOMPARE(curves, 3);
    QCOMPARE(targets, 1);  // both targets are 0.9
    QCOMPARE(reached, 1);
    QCOMPARE(diverged, 1);
    view.selectRun(0);
    QVERIFY(!view.showsStaleness());
    view.setXAxis(ConvergenceXAxis::Updates);
    QCOMPARE(view.curveChart()->axes(Qt::Vertical).size(), 1);
    view.setShowAccuracy(true);  // a second axis, 0..100 %
    QCOMPARE(view.curveChart()->axes(Qt::Vertical).size(), 2);
    const Screenshot shot = renderConvergenceScreenshot(view.model()->runs(), QSize(900, 700));
    QCOMPARE(shot.series, 3);
    QVERIFY(shot.staleness);
    QCOMPARE(shot.image.size(), QSize(900, 700));
  }

  // In the window: a report.json opens in the Convergence tab; a scenario with a convergence section adds its run
  // once simulated; a malformed report opens an error dialog and adds nothing.
  void window() {
    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    ConvergenceModel* runs = window.convergenceView()->model();
    window.openFile(data("convergence-async.json"));
    QCOMPARE(runs->rowCount(), 1);
    QCOMPARE(window.findChild<QTabWidget*>()->currentWidget(), window.convergenceView());
    const QString scenario = QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/async-staleness.yaml");
    if (QFile::exists(scenario)) {
      window.openFile(scenario);
      QTRY_COMPARE_WITH_TIMEOUT(runs->rowCount(), 2, 30000);
      QCOMPARE(runs->run(1).scenario, QStringLiteral("async-staleness"));
    }
    const int before = runs->rowCount();
    QString shown;
    QTimer poll;
    connect(&poll, &QTimer::timeout, this, [&] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        shown = box->text();
        box->accept();
      }
    });
    poll.start(20);
    QVERIFY(!window.addConvergenceReports({data("malformed-report.json")}));
    QVERIFY2(shown.contains(QStringLiteral("time_us")), qPrintable(shown));
    QCOMPARE(runs->rowCount(), before);
  }
};

QTEST_MAIN(TestGuiConvergence)
#include "tst_gui_convergence.moc"
