// The GUI's data models without widgets: time <-> pixel mapping, the trace.json reader, timeline lanes, the sweep
// CSV, and every QAbstractItemModel under QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>
#include <sstream>

#include "../../tests/support/special_files.hpp"

#include "models/lane_model.h"
#include "models/loaded_document.h"
#include "models/parameter_model.h"
#include "models/scaling_model.h"
#include "models/scenario_runner.h"
#include "models/sweep_csv.h"
#include "models/time_scale.h"
#include "models/timeline_data.h"
#include "models/trace_json_reader.h"
#include "syncsim/core/input_error.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"

namespace tr = syncsim::trace;
using syncsim::SimTime;

namespace {

// Two GPUs (compute + communication tracks each), one link with a utilization counter, one collective with a
// nested step.
tr::Trace smallTrace() {
  tr::TraceBuilder b;
  const auto c0 = b.add_track("worker 0 compute", tr::TrackKind::worker, 0);
  const auto m0 = b.add_track("worker 0 communication", tr::TrackKind::worker, 1);
  const auto c1 = b.add_track("worker 1 compute", tr::TrackKind::worker, 2);
  const auto m1 = b.add_track("worker 1 communication", tr::TrackKind::worker, 3);
  const auto link = b.add_track("link gpu0 -> gpu1", tr::TrackKind::link, 0);
  const auto coll = b.add_track("allreduce", tr::TrackKind::collective, 0);
  const auto us = [](std::int64_t v) { return SimTime::from_ps(v * 1'000'000); };
  for (const auto c : {c0, c1}) {
    b.add_span(c, "forward", tr::category::forward, us(0), us(10), {{"iteration", 0}});
    b.add_span(c, "backward", tr::category::backward, us(10), us(20), {{"iteration", 0}});
  }
  for (const auto m : {m0, m1}) {
    b.add_span(m, "allreduce bucket 0", tr::category::communication, us(20), us(12),
               {{"iteration", 0}, {"bucket", 0}, {"bytes", 4'000'000}, {"ranks", 2}});
  }
  const auto ar = b.add_span(coll, "allreduce", tr::category::collective, us(20), us(12), {});
  b.add_span(coll, "step 0", tr::category::collective_step, us(20), us(6), {{"bytes", 2'000'000}}, ar);
  b.add_counter(link, "utilization", us(20), 0.75);
  b.add_counter(link, "utilization", us(32), 0.0);
  b.set_metadata("scenario", "small");
  return std::move(b).build();
}

std::string chromeJson(const tr::Trace& t) {
  std::ostringstream out;
  tr::write_chrome_trace(t, out);
  return out.str();
}

}  // namespace

class TestGuiModels : public QObject {
  Q_OBJECT
 private slots:
  // 1 px = 1 ns from t = 1 us: x = (t - 1e6) / 1e3.
  void timeToPixelAndBack() {
    const TimeScale s(1'000'000, 1'000);
    QCOMPARE(s.toX(1'000'000), 0.0);
    QCOMPARE(s.toX(1'500'000), 500.0);
    QCOMPARE(s.toTime(500), 1'500'000);
    QCOMPARE(s.toX(0), -1000.0);
    for (const qint64 t : {qint64(0), qint64(1'234'567), qint64(99'000'000)}) QCOMPARE(s.toTime(s.toX(t)), t);
    // Zooming 2x at x = 200 keeps the time under x = 200.
    const TimeScale z = s.zoomedAt(200, 2);
    QCOMPARE(z.psPerPixel(), 500.0);
    QCOMPARE(z.toTime(200), s.toTime(200));
    QCOMPARE(s.panned(100).toTime(100), s.toTime(0));
    const TimeScale fit = TimeScale::fit(0, 2'000'000'000, 1000);  // 2 ms over 1000 px
    QCOMPARE(fit.psPerPixel(), 2'000'000.0);
    QCOMPARE(fit.endPs(1000), 2'000'000'000);
    const TimeScale box = fit.boxed(250, 500, 1000);  // 0.5 ms .. 1 ms
    QCOMPARE(box.startPs(), 500'000'000);
    QCOMPARE(box.toTime(1000), 1'000'000'000);
  }

  void axisUnitsFollowTheZoom() {
    // 2 ms across 1000 px, ticks >= 90 px apart: 180 us minimum -> a 200 us step, labelled in us.
    const TimeScale ms = TimeScale::fit(0, 2'000'000'000, 1000);
    QCOMPARE(ms.tickStepPs(90), 200'000'000);
    const auto ticks = ms.ticks(1000);
    QCOMPARE(ticks.front().label, QStringLiteral("0 µs"));
    QCOMPARE(ticks[1].label, QStringLiteral("200 µs"));
    QCOMPARE(ticks[1].x, 100.0);
    // 2 s across 1000 px: a 200 ms step, in ms.
    QCOMPARE(TimeScale::fit(0, 2'000'000'000'000, 1000).ticks(1000)[1].label, QStringLiteral("200 ms"));
    // 200 ns across 1000 px: a 20 ns step.
    QCOMPARE(TimeScale::fit(0, 200'000, 1000).ticks(1000)[1].label, QStringLiteral("20 ns"));
    QCOMPARE(TimeScale::formatTime(1'500'000'000, 500'000'000), QStringLiteral("1.5 ms"));
    QCOMPARE(TimeScale::formatDuration(61'363'206), QStringLiteral("61.4 µs"));
  }

  void timelineLanesFromTrace() {
    const TimelineData d = TimelineData::fromTrace(smallTrace());
    QCOMPARE(d.lanes().size(), std::size_t(4));  // 2 GPUs, 1 link, 1 collective
    QCOMPARE(d.laneCount(LaneKind::Gpu), 2);
    QCOMPARE(d.lanes()[0].name, QStringLiteral("worker 0"));
    QCOMPARE(d.lanes()[0].rows.size(), std::size_t(2));
    QCOMPARE(d.lanes()[2].counter.size(), std::size_t(2));
    QCOMPARE(d.spanCount(), std::size_t(8));
    QCOMPARE(d.endPs(), 32'000'000);
    QCOMPARE(d.title(), QStringLiteral("small"));
    const TimelineSpan& ar = d.lanes()[0].rows[1].spans[0];
    QCOMPARE(ar.kind, SpanKind::Communication);
    QCOMPARE(ar.bytes, 4'000'000);
    QCOMPARE(ar.peers, 2);
    QVERIFY(ar.relatedTo(d.lanes()[1].rows[1].spans[0]));   // the same bucket on GPU 1
    QVERIFY(!ar.relatedTo(d.lanes()[1].rows[0].spans[0]));  // not GPU 1's forward
    // Culling: a window inside the backward span [10, 30) us. The range may hold spans that end before it (it
    // starts one longest-span before the window) but never misses one that intersects it.
    const TimelineRow& compute = d.lanes()[0].rows[0];
    const auto [first, last] = compute.visibleRange(15'000'000, 16'000'000);
    for (std::size_t i = 0; i < compute.spans.size(); ++i) {
      const bool intersects = compute.spans[i].startPs < 16'000'000 && compute.spans[i].endPs() > 15'000'000;
      if (intersects) QVERIFY(i >= first && i < last);
    }
    QCOMPARE(compute.spans[last - 1].kind, SpanKind::Backward);
    QCOMPARE(compute.visibleRange(40'000'000, 50'000'000).second, compute.spans.size());
    QCOMPARE(compute.visibleRange(-9'000'000, -1).second, std::size_t(0));
    QCOMPARE(d.spanNear(0, 0, SpanKind::Communication)->row, 1);
  }

  // The simulator nests a collective's steps in a GPU's AllReduce span; they get a lane under that GPU's.
  void nestedGpuSpansGetAStepsLane() {
    tr::TraceBuilder b;
    const auto c0 = b.add_track("worker 0 compute", tr::TrackKind::worker, 0);
    const auto m0 = b.add_track("worker 0 communication", tr::TrackKind::worker, 1);
    const auto c1 = b.add_track("worker 1 compute", tr::TrackKind::worker, 2);
    b.add_span(c0, "forward", tr::category::forward, SimTime::from_ps(0), SimTime::from_ps(10), {});
    b.add_span(c1, "forward", tr::category::forward, SimTime::from_ps(0), SimTime::from_ps(10), {});
    const auto ar =
        b.add_span(m0, "allreduce", tr::category::communication, SimTime::from_ps(10), SimTime::from_ps(8), {});
    b.add_span(m0, "step 1", tr::category::collective_step, SimTime::from_ps(10), SimTime::from_ps(4), {}, ar);
    b.add_span(m0, "step 2", tr::category::collective_step, SimTime::from_ps(14), SimTime::from_ps(4), {}, ar);
    const TimelineData d = TimelineData::fromTrace(std::move(b).build());
    QCOMPARE(d.lanes().size(), std::size_t(3));
    QCOMPARE(d.lanes()[1].name, QStringLiteral("worker 0 steps"));
    QCOMPARE(d.lanes()[1].kind, LaneKind::Collective);
    QCOMPARE(d.lanes()[1].rows.front().spans.size(), std::size_t(2));
    QCOMPARE(d.lanes()[0].rows[1].spans.size(), std::size_t(1));  // the AllReduce stays on the GPU's lane
    QCOMPARE(d.lanes()[2].name, QStringLiteral("worker 1"));
  }

  void traceJsonRoundTrip() {
    const tr::Trace original = smallTrace();
    const tr::Trace read = parseTraceJson(chromeJson(original), QStringLiteral("small.json"));
    const std::string a = chromeJson(read);
    const std::string b = chromeJson(original);
    if (a != b) qWarning("read back:\n%s\noriginal:\n%s", a.c_str(), b.c_str());
    QVERIFY(a == b);  // byte-identical: nothing lost, times exact
  }

  void malformedTracesThrow_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("not json") << QByteArray("{\"traceEvents\": [");
    QTest::newRow("no events") << QByteArray("{\"foo\": 1}");
    QTest::newRow("scalar") << QByteArray("42");
    QTest::newRow("X without dur") << QByteArray(R"({"traceEvents":[{"ph":"X","ts":1,"pid":1,"tid":1}]})");
    QTest::newRow("string ts") << QByteArray(R"({"traceEvents":[{"ph":"X","ts":"a","dur":1,"pid":1,"tid":1}]})");
    QTest::newRow("negative dur") << QByteArray(R"({"traceEvents":[{"ph":"X","ts":1,"dur":-1,"pid":1,"tid":1}]})");
    QTest::newRow("ph not a string") << QByteArray(R"({"traceEvents":[{"ph":7}]})");
    QTest::newRow("tid not a number") << QByteArray(R"({"traceEvents":[{"ph":"X","ts":1,"dur":1,"tid":"x"}]})");
    QTest::newRow("event not an object") << QByteArray(R"({"traceEvents":[1]})");
  }
  void malformedTracesThrow() {
    QFETCH(QByteArray, json);
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError,
                             parseTraceJson(std::string_view(json.constData(), std::size_t(json.size())), "bad.json"));
  }

  void missingFilesThrow() {
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError, readTraceJson(QStringLiteral("/nonexistent/trace.json")));
    QVERIFY_THROWS_EXCEPTION(std::exception, loadDocument(QStringLiteral("/nonexistent/scenario.yaml")));
  }

  // The GUI opens what the CLI opens through the same checked reader: a FIFO named x.json blocked it forever, a
  // *.json symlink to /dev/zero read 2 GB before std::bad_alloc, a trace nested 200,000 arrays deep crashed it.
  void specialFilesAreRefusedAtOnce() {
    namespace ts = syncsim::test_support;
    const ts::SpecialFiles files;
    std::filesystem::create_symlink(ts::SpecialFiles::zero_device(), files.root() / "zero.json");
    const std::string deep(200'000, '[');
    const struct {
      std::filesystem::path path;
      const char* expected;
    } cases[] = {
        {files.fifo("x.json"), "is a FIFO (named pipe), not a regular file"},
        {files.fifo("x.csv"), "is a FIFO (named pipe), not a regular file"},
        {files.root() / "zero.json", "is a character device, not a regular file"},
        {files.directory("d.csv"), "is a directory, not a regular file"},
        {files.write("deep.json", "{\"traceEvents\": " + deep),
         "deep.json:1:272: arrays and objects nested deeper than 256"},
        {files.write("report.json", "{\"scenario\": " + deep),
         "report.json:1:269: arrays and objects nested deeper than 256"},
    };
    for (const auto& c : cases) {
      const QString path = QString::fromStdString(c.path.string());
      const ts::ReadOutcome outcome = ts::read_outcome([&] { (void)loadDocument(path); }, c.path);
      const std::string shown = c.path.string() + ": " + ts::to_string(outcome);
      QVERIFY2(outcome.kind == ts::ReadOutcome::Kind::input_error, shown.c_str());
      QVERIFY2(outcome.message.find(c.expected) != std::string::npos, shown.c_str());
      QVERIFY2(outcome.message.find('\n') == std::string::npos, shown.c_str());
    }
  }

  void laneModelUnderTester() {
    LaneModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setTimeline(std::make_shared<const TimelineData>(TimelineData::fromTrace(smallTrace())));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.data(model.index(0, LaneModel::NameColumn)).toString(), QStringLiteral("worker 0"));
    QCOMPARE(model.data(model.index(0, LaneModel::SpansColumn)).toULongLong(), 3ULL);
    QCOMPARE(model.data(model.index(2, LaneModel::KindColumn)).toString(), QStringLiteral("Link"));
    model.setTimeline(std::make_shared<const TimelineData>(TimelineData::synthetic(16, 8)));
    QCOMPARE(model.rowCount(), 16);
  }

  // `syncsim sweep` columns: varied keys, then scenario ... workers ... samples_per_s ... scaling_efficiency.
  void sweepCsvFromSyncsimSweep() {
    const QByteArray csv =
        "cluster.topology.nodes,training.algorithm,scenario,workers,samples_per_s,scaling_efficiency,bottleneck\n"
        "1,ring,s,8,16000,0.97,compute\n"
        "2,ring,s,16,30000,0.91,network\n"
        "1,tree,s,8,15800,0.958,compute\n"
        "2,tree,s,16,31000,0.94,compute\n"
        "4,ring,s,32,56000,,network\n";
    const ScalingData d = parseSweepCsv(std::string_view(csv.constData(), std::size_t(csv.size())), "sweep.csv");
    QCOMPARE(d.series.size(), std::size_t(2));  // by algorithm; nodes follow the GPU count, bottleneck is a result
    // Named by the value (the legend), described by the column too (the tooltip), with the point's bottleneck.
    QCOMPARE(d.series[0].config, QStringLiteral("ring"));
    QCOMPARE(d.series[0].description, QStringLiteral("training.algorithm=ring"));
    QCOMPARE(d.series[0].points[1].details, QStringList{QStringLiteral("bottleneck: network")});
    QVERIFY(d.series[0].toolTip(1).contains(QStringLiteral("16 GPUs: 30000.0 samples/s")));
    QCOMPARE(d.series[0].points.size(), std::size_t(3));
    QCOMPARE(d.series[0].points[1].efficiency, 0.91);
    QCOMPARE(d.series[0].idealThroughput(32), 64000.0);
    QCOMPARE(d.series[0].points[2].efficiency, 56000.0 / 64000.0);  // empty cell: computed against 8 GPUs
  }

  // `syncsim plan`'s plan.csv: gpu and network make a configuration, named as the plan names it; pareto and the
  // bottleneck, which differ from point to point of one configuration, are details, not part of the name (they
  // split one configuration into several series, each named "gpu=..., pareto=..., bottleneck=...").
  void sweepCsvFromSyncsimPlan() {
    const ScalingData d = readSweepCsv(QStringLiteral(SYNCSIM_SOURCE_DIR "/gui/tests/data/plan.csv"));
    QCOMPARE(d.series.size(), std::size_t(2));
    QCOMPARE(d.series[0].config, QStringLiteral("A100-SXM4-80GB"));
    QCOMPARE(d.series[1].config, QStringLiteral("H100-SXM-80GB"));
    QCOMPARE(d.series[1].description, QStringLiteral("gpu=H100-SXM-80GB"));
    QCOMPARE(d.series[1].points.size(), std::size_t(4));  // pareto false at 16-64 GPUs, true at 128: one series
    QCOMPARE(d.series[1].points.front().gpus, 16);
    QVERIFY(d.series[1].toolTip(0).contains(QStringLiteral("pareto: false")));
    const QString tip = d.series[1].toolTip(3);
    QVERIFY(tip.contains(QStringLiteral("128 GPUs")));
    QVERIFY(tip.contains(QStringLiteral("pareto: true")));
    QVERIFY(tip.contains(QStringLiteral("bottleneck: communication: leaf0 -> nic0 (inter-node network)")));
  }

  void sweepCsvErrors_data() {
    QTest::addColumn<QByteArray>("csv");
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("no gpus column") << QByteArray("config,throughput\na,1\n");
    QTest::newRow("no throughput column") << QByteArray("config,gpus\na,1\n");
    QTest::newRow("not a number") << QByteArray("gpus,throughput\n8,fast\n");
    QTest::newRow("fractional gpus") << QByteArray("gpus,throughput\n1.5,3\n");
    QTest::newRow("short row") << QByteArray("gpus,throughput\n8\n");
    QTest::newRow("no rows") << QByteArray("gpus,throughput\n");
  }
  void sweepCsvErrors() {
    QFETCH(QByteArray, csv);
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError,
                             parseSweepCsv(std::string_view(csv.constData(), std::size_t(csv.size())), "bad.csv"));
  }

  void scalingModelUnderTester() {
    ScalingModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QByteArray csv = "config,gpus,throughput\nA,1,100\nA,2,180\nB,1,90\nB,4,300\n";
    model.setScaling(parseSweepCsv(std::string_view(csv.constData(), std::size_t(csv.size())), "s.csv"));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.data(model.index(1, ScalingModel::EfficiencyColumn)).toDouble(), 0.9);
    QCOMPARE(model.data(model.index(3, ScalingModel::IdealColumn)).toDouble(), 360.0);
    model.setScaling({});
    QCOMPARE(model.rowCount(), 0);
  }

  void parameterModelUnderTester() {
    ParameterModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.overrides().isEmpty());
    QVERIFY(model.setData(model.index(0, ParameterModel::ValueColumn), QStringLiteral(" 5 ")));
    QCOMPARE(model.overrides(), QStringList{QStringLiteral("training.iterations=5")});
    model.addParameter(QStringLiteral("seed"), QStringLiteral("7"));
    QCOMPARE(model.overrides().size(), 2);
    QVERIFY(model.flags(model.index(0, 0)) & Qt::ItemIsEditable);
    model.clearValues();
    QVERIFY(model.overrides().isEmpty());
  }

  // A scenario run reports its four stages (read, simulate, timeline, topology) in order, then the document; while
  // simulating, its iterations too (tst_gui_run_progress.cpp).
  void scenarioRunnerReportsStages() {
    ScenarioRunner runner;
    QSignalSpy progress(&runner, &ScenarioRunner::progress);
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    runner.start(QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/resnet50-dgx-8gpu.yaml"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QList<int> stages;
    for (const QList<QVariant>& p : progress) {
      if (p.at(2).toString().startsWith(QStringLiteral("Simulating:"))) continue;  // an iteration, of 20
      stages << p.at(0).toInt();
      QVERIFY(!p.at(2).toString().isEmpty());
    }
    QCOMPARE(stages, (QList<int>{0, 1, 2, 3}));
    const auto doc = finished.front().front().value<std::shared_ptr<const LoadedDocument>>();
    QVERIFY(doc->topology);
  }

  // Cancel: canceled() at once, and the run's result never arrives (the worker stops within an iteration).
  void scenarioRunnerCancels() {
    ScenarioRunner runner;
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    QSignalSpy canceled(&runner, &ScenarioRunner::canceled);
    runner.start(QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/resnet50-dgx-8gpu.yaml"));
    runner.cancel();
    QCOMPARE(canceled.count(), 1);
    QVERIFY(!runner.isRunning());
    QTest::qWait(300);
    QCOMPARE(finished.count(), 0);
  }
};

QTEST_GUILESS_MAIN(TestGuiModels)
#include "tst_gui_models.moc"
