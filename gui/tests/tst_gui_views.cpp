// Each view rendered offscreen, as `syncsim-gui --screenshot` does: the image is not empty and shows the expected
// lanes, ranks or series. Runs the 8-GPU example scenario (examples/resnet50-dgx-8gpu.yaml).
#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolTip>
#include <QtTest>
#include <fstream>

#include "models/loaded_document.h"
#include "models/ring_step_model.h"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"
#include "widgets/main_window.h"
#include "widgets/ring_panel.h"
#include "widgets/ring_view.h"
#include "widgets/scaling_chart_view.h"
#include "widgets/screenshot.h"
#include "widgets/timeline_view.h"
#include "widgets/view_export.h"

namespace {

const QString kExample = QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/resnet50-dgx-8gpu.yaml");

ScreenshotOptions options(std::optional<int> step, QSize size, bool allLanes) {
  ScreenshotOptions o;
  o.step = step;
  o.size = size;
  o.allLanes = allLanes;
  return o;
}

// Distinct colours in a horizontal line of the image.
int coloursOnLine(const QImage& image, int y, int x0, int x1) {
  QSet<QRgb> seen;
  for (int x = x0; x < x1; ++x) seen.insert(image.pixel(x, y));
  return static_cast<int>(seen.size());
}

QLogValueAxis* gpuAxisOf(QChart* chart) {
  return qobject_cast<QLogValueAxis*>(chart->axes(Qt::Horizontal).front());
}

}  // namespace

class TestGuiViews : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { m_doc = loadDocument(kExample); }

  void timelineShowsEveryGpuAndTheLegend() {
    QCOMPARE(m_doc.timeline->laneCount(LaneKind::Gpu), 8);
    const Screenshot shot = renderScreenshot(m_doc, ViewKind::Timeline, options(std::nullopt, QSize(1400, 420), false));
    QVERIFY(shot.error.isEmpty());
    QCOMPARE(shot.lanes, 8);
    QCOMPARE(shot.gpuLanes, 8);
    QCOMPARE(shot.image.size(), QSize(1400, 420));
    // Every lane's middle line crosses spans of several colours (forward, backward, idle, ...).
    TimelineView view;
    view.resize(1400, 420);
    view.setShowLinkLanes(false);
    view.setShowCollectiveLanes(false);
    view.setTimeline(m_doc.timeline);
    const TimelineFrame f = view.frame();
    const QRect area = view.spanArea();
    for (int i = 0; i < 8; ++i) {
      const auto [y0, y1] = TimelineRenderer::rowExtent(f, i, 0, 2);
      QVERIFY2(coloursOnLine(shot.image, area.top() + (y0 + y1) / 2, area.left(), area.right()) >= 3,
               qPrintable(QStringLiteral("lane %1 is empty").arg(i)));
    }
    // The legend's first swatch is the forward colour.
    QCOMPARE(QColor(shot.image.pixel(10, TimelineView::kLegendHeight / 2)), spanKindColor(SpanKind::Forward));
  }

  void timelineFromSavedTraceMatchesTheRun() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("trace.json"));
    {
      const auto out = syncsim::run::run_scenario(syncsim::load_scenario(kExample.toStdString()));
      std::ofstream file(path.toStdString());
      syncsim::trace::write_chrome_trace(out.trace, file);
    }
    const LoadedDocument trace = loadDocument(path);
    QCOMPARE(trace.kind, DocumentKind::Trace);
    QCOMPARE(trace.timeline->spanCount(), m_doc.timeline->spanCount());
    QCOMPARE(trace.timeline->lanes().size(), m_doc.timeline->lanes().size());
    QCOMPARE(trace.ringRanks, 8);
    QCOMPARE(renderScreenshot(trace, ViewKind::Timeline, options(std::nullopt, QSize(800, 300), false)).lanes, 8);
    // With link lanes: every lane of the trace, the 8 GPUs among them.
    const Screenshot all = renderScreenshot(trace, ViewKind::Timeline, options(std::nullopt, QSize(800, 300), true));
    QCOMPARE(all.lanes, static_cast<int>(trace.timeline->lanes().size()));
    QCOMPARE(all.gpuLanes, 8);
  }

  void ringShowsEightRanksMidReduceScatter() {
    // Every bucket of the example ran as a ring (`algorithm: auto`: on one node NCCL's tree is a chain of the 8
    // GPUs, as deep as the ring), on the DGX's NVSwitch. Without --bucket the ring view follows the first ring.
    const Screenshot shot = renderScreenshot(m_doc, ViewKind::Ring, options(3, QSize(900, 820), false));
    QVERIFY(shot.error.isEmpty());
    QCOMPARE(shot.ranks, 8);
    QCOMPARE(shot.steps, 14);
    QVERIFY(shot.topology);
    ScreenshotOptions ring = options(3, QSize(900, 820), false);
    ring.bucket = 1;
    QCOMPARE(renderScreenshot(m_doc, ViewKind::Ring, ring).steps, 14);
    // Asked for the tree, the view draws the simulator's (tree_plan.hpp): on one server NCCL's tree is the chain
    // through its 8 GPUs, 7 rounds up and 7 down, on 2 channels (the two trees of a pair).
    ScreenshotOptions tree = ring;
    tree.algorithm = CollectiveAlgorithm::Tree;
    const Screenshot treeShot = renderScreenshot(m_doc, ViewKind::Ring, tree);
    QCOMPARE(treeShot.steps, 14);
    QCOMPARE(treeShot.channels, 2);
    ScreenshotOptions hd = ring;
    hd.algorithm = CollectiveAlgorithm::HalvingDoubling;
    QCOMPARE(renderScreenshot(m_doc, ViewKind::Ring, hd).steps, 6);
    ScreenshotOptions missing = ring;
    missing.bucket = 99;
    QVERIFY(!renderScreenshot(m_doc, ViewKind::Ring, missing).error.isEmpty());

    // Without a topology (a trace): ranks on a circle.
    RingPanel panel;
    panel.resize(900, 820);
    panel.setRankCount(8);
    panel.setStep(3);
    QCOMPARE(panel.model()->step(), 3);
    QCOMPARE(panel.model()->schedule().phases(3), unsigned(CollectiveSchedule::ReduceScatter));
    // Each rank's node is drawn where the view says: the node's fill just inside its upper edge.
    panel.setAttribute(Qt::WA_DontShowOnScreen);
    panel.show();
    QCoreApplication::processEvents();
    const QImage image = panel.view()->grab().toImage();
    for (int r = 0; r < 8; ++r) {
      const QPointF c = panel.view()->rankCentre(r);
      QCOMPARE(QColor(image.pixel(c.toPoint() + QPoint(0, -14))), QColor(0xF2, 0xF2, 0xF2));
    }
  }

  void scalingChartPlotsEachConfigurationAndItsIdealLine() {
    const LoadedDocument sweep = loadDocument(QStringLiteral(SYNCSIM_SOURCE_DIR "/gui/tests/data/sweep.csv"));
    const Screenshot shot = renderScreenshot(sweep, ViewKind::Scaling, options(std::nullopt, QSize(1000, 800), false));
    QVERIFY(shot.error.isEmpty());
    QCOMPARE(shot.series, 2);
    QVERIFY(coloursOnLine(shot.image, 300, 0, 1000) > 3);
    ScalingChartView view;
    view.setScaling(sweep.scaling);
    // Per configuration: measured line, its points, its ideal line, and one legend key for the ideal lines; plus
    // efficiency lines and the 100 % line.
    QCOMPARE(view.throughputChart()->series().size(), 7);
    QCOMPARE(view.efficiencyChart()->series().size(), 3);
    // The sweep starts at 2 GPUs: so does the axis, less its margin.
    QCOMPARE(gpuAxisOf(view.throughputChart())->min(), 2 / ScalingChartView::kAxisMargin);
    // A timeline view of a sweep is an error, not a crash.
    QVERIFY(!renderScreenshot(sweep, ViewKind::Timeline).error.isEmpty());
  }

  // A plan of 16 to 128 GPUs (syncsim plan's plan.csv): both GPU axes start at 16 GPUs less the margin (not at 1,
  // which left half the plot empty) and end at 128 plus it; the legend names each configuration as the plan does,
  // once, and the details (pareto, the bottleneck) are in the tooltips.
  void scalingChartFitsItsDataAndKeepsDetailsInTooltips() {
    const LoadedDocument plan = loadDocument(QStringLiteral(SYNCSIM_SOURCE_DIR "/gui/tests/data/plan.csv"));
    ScalingChartView view;
    view.setScaling(plan.scaling);
    for (QChart* chart : {view.throughputChart(), view.efficiencyChart()}) {
      QCOMPARE(gpuAxisOf(chart)->min(), 16 / ScalingChartView::kAxisMargin);
      QCOMPARE(gpuAxisOf(chart)->max(), 128 * ScalingChartView::kAxisMargin);
    }
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.show();
    QStringList names;
    for (QLegendMarker* m : view.throughputChart()->legend()->markers()) {
      if (m->isVisible()) names << m->label();
    }
    QCOMPARE(names, (QStringList{QStringLiteral("A100-SXM4-80GB"), QStringLiteral("H100-SXM-80GB"),
                                 QStringLiteral("ideal linear (dashed)")}));
    QCOMPARE(view.seriesToolTip(1), QStringLiteral("gpu=H100-SXM-80GB"));
    const QString tip = view.pointToolTip(1, 120);  // nearest: the 128-GPU point
    QVERIFY2(tip.contains(QStringLiteral("128 GPUs")) && tip.contains(QStringLiteral("pareto: true")), qPrintable(tip));
    QVERIFY(view.pointToolTip(1, 16).contains(QStringLiteral("pareto: false")));
  }

  void exportPngAndSvg() {
    QTemporaryDir dir;
    TimelineView view;
    view.resize(600, 300);
    view.setTimeline(m_doc.timeline);
    QVERIFY(exportWidget(&view, dir.filePath(QStringLiteral("t.png"))).isEmpty());
    QVERIFY(exportWidget(&view, dir.filePath(QStringLiteral("t.svg"))).isEmpty());
    QVERIFY(QImage(dir.filePath(QStringLiteral("t.png"))).width() == 600);
    QFile svg(dir.filePath(QStringLiteral("t.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
  }

  void clickHighlightsAndMovesTheCursor() {
    TimelineView view;
    view.resize(1400, 420);
    view.setShowLinkLanes(false);
    view.setShowCollectiveLanes(false);
    view.setTimeline(m_doc.timeline);
    const QRect area = view.spanArea();
    // Click in the middle of lane 0's first row: a span is selected and the cursor is where we clicked.
    const auto [y0, y1] = TimelineRenderer::rowExtent(view.frame(), 0, 0, 2);
    const QPoint at(area.left() + 200, area.top() + (y0 + y1) / 2);
    QSignalSpy cursor(&view, &TimelineView::cursorMoved);
    QTest::mouseClick(&view, Qt::LeftButton, {}, at);
    QVERIFY(view.selectedSpan().has_value());
    QCOMPARE(cursor.count(), 1);
    QCOMPARE(*view.cursorTime(), view.scale().toTime(200));

    // On another GPU, the span of the same kind and iteration keeps its colour; one of another iteration fades.
    const TimelineSpan& picked = m_doc.timeline->span(*view.selectedSpan());
    const QImage image = view.grab().toImage();
    // Position 3 on screen; with the steps lanes hidden that is GPU 3 (index 6 of the timeline's lanes).
    const TimelineRow& row = m_doc.timeline->lanes()[static_cast<std::size_t>(view.frame().lanes[3])].rows[0];
    const auto [r0, r1] = TimelineRenderer::rowExtent(view.frame(), 3, 0, 2);
    const auto colourAt = [&](const TimelineSpan& s) {
      const double mid = view.scale().toX(s.startPs + s.durationPs / 2);
      return QColor(image.pixel(area.left() + static_cast<int>(mid) + 1, area.top() + (r0 + r1) / 2));
    };
    int related = 0;
    int faded = 0;
    for (const TimelineSpan& s : row.spans) {
      if (s.kind != picked.kind || view.scale().toX(s.endPs()) - view.scale().toX(s.startPs) < 6) continue;
      if (s.relatedTo(picked)) {
        QCOMPARE(colourAt(s), spanKindColor(picked.kind));
        ++related;
      } else {
        QVERIFY(colourAt(s) != spanKindColor(picked.kind));
        ++faded;
      }
    }
    QCOMPARE(related, 1);
    QVERIFY(faded > 5);
  }

  // The window loads on its worker thread; then the timeline cursor and the ring step follow each other.
  void windowLoadsAndKeepsCursorAndRingInSync() {
    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    window.openFile(kExample);
    QTRY_VERIFY_WITH_TIMEOUT(window.timelineView()->timeline() != nullptr, 30000);
    QCOMPARE(window.ringPanel()->rankCount(), 8);
    QVERIFY(window.ringPanel()->view()->drawsTopology());  // a scenario: the DGX, not a circle
    const TimelineData& data = *window.timelineView()->timeline();
    // The first AllReduce (bucket 0, 4 MB) ran as a ring: 14 steps on 8 ranks, 3/14 of the way in: step 3.
    const auto first = data.spanNear(0, 0, SpanKind::Communication);
    QVERIFY(first.has_value());
    const TimelineSpan& t = data.span(*first);
    QVERIFY(t.has(TimelineSpan::HasAlgorithm));
    QCOMPARE(t.algorithm, CollectiveAlgorithm::Ring);
    window.timelineView()->setCursorTime(t.startPs + t.durationPs * 3 / 14 + 1);
    QCOMPARE(window.ringPanel()->algorithm(), CollectiveAlgorithm::Ring);
    QCOMPARE(window.ringPanel()->step(), 3);
    // The next bucket too: the view follows the cursor. 5/14 of the way in: ring step 5.
    const auto ring = data.spanNear(0, t.endPs(), SpanKind::Communication);
    QVERIFY(ring.has_value());
    const TimelineSpan& ar = data.span(*ring);
    QCOMPARE(ar.algorithm, CollectiveAlgorithm::Ring);
    window.timelineView()->setCursorTime(ar.startPs + ar.durationPs * 5 / 14 + 1);
    QCOMPARE(window.ringPanel()->algorithm(), CollectiveAlgorithm::Ring);
    QCOMPARE(window.ringPanel()->step(), 5);
    // And back: ring step 9 puts the cursor in the middle of that step.
    window.ringPanel()->setStep(9);
    QCOMPARE(*window.timelineView()->cursorTime(), ar.startPs + (ar.durationPs * 19 + 14) / 28);
  }

  // Hovering an AllReduce shows its kind, bucket, bytes, start, duration and peers.
  void hoverShowsTheSpansDetails() {
    TimelineView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1400, 420);
    view.setShowLinkLanes(false);
    view.setShowCollectiveLanes(false);
    view.show();
    view.setTimeline(m_doc.timeline);
    const auto ref = m_doc.timeline->spanNear(0, 0, SpanKind::Communication);
    QVERIFY(ref.has_value());
    const TimelineSpan& ar = m_doc.timeline->span(*ref);
    view.showTimeRange(ar.startPs - ar.durationPs, ar.endPs() + ar.durationPs);  // the AllReduce in the middle third
    const QRect area = view.spanArea();
    const auto [y0, y1] = TimelineRenderer::rowExtent(view.frame(), 0, 1, 2);
    const QPoint at(area.left() + area.width() / 2, area.top() + (y0 + y1) / 2);
    QHelpEvent help(QEvent::ToolTip, at, view.mapToGlobal(at));
    QApplication::sendEvent(&view, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    const QString text = QToolTip::text();
    for (const char* part : {"Communication", "Bucket:", "Bytes:", "Start:", "Duration:", "Peers: 8"}) {
      QVERIFY2(text.contains(QLatin1String(part)), qPrintable(text));
    }
    QToolTip::hideText();
  }

  // A malformed file in the window: an error dialog naming the problem, and the window carries on.
  void malformedFileShowsAnErrorDialog() {
    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    QString shown;
    QTimer poll;
    connect(&poll, &QTimer::timeout, this, [&] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        shown = box->text();
        box->accept();
      }
    });
    poll.start(20);
    window.openFile(QStringLiteral(SYNCSIM_SOURCE_DIR "/gui/tests/data/malformed-trace.json"));
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 30000);
    QVERIFY2(shown.contains(QStringLiteral("\"ts\"")), qPrintable(shown));
    QVERIFY(window.timelineView()->timeline() == nullptr);
  }

 private:
  LoadedDocument m_doc;
};

QTEST_MAIN(TestGuiViews)
#include "tst_gui_views.moc"
