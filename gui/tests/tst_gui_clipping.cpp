// Nothing the views draw is cut by their edges: the timeline's tick labels are moved in from an axis edge they would
// run past (or dropped where they would then overlap a neighbour, axis_labels.h), and the ring view's title and footer
// boxes grow with the lines they wrap to and push the drawing in.
#include <QRandomGenerator>
#include <QTextLayout>
#include <QTranslator>
#include <QtTest>

#include "models/axis_labels.h"
#include "models/collective_traffic.h"
#include "models/ring_step_model.h"
#include "models/timeline_data.h"
#include "models/topology_layout.h"
#include "syncsim/topology/topology_spec.hpp"
#include "widgets/ring_view.h"
#include "widgets/timeline_view.h"

namespace {

constexpr int kGap = 3;

// The labels lie in [left, right), keep their ticks' order and stay at least kGap apart.
void verifyPlaced(const std::vector<AxisLabelPlace>& placed, const std::vector<int>& widths, int left, int right) {
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const AxisLabelPlace& l = placed[i];
    QVERIFY(l.left >= left);
    QVERIFY(l.left + widths[static_cast<std::size_t>(l.tick)] <= right);
    if (i == 0) continue;
    const AxisLabelPlace& before = placed[i - 1];
    QVERIFY(before.tick < l.tick);
    QVERIFY(before.left + widths[static_cast<std::size_t>(before.tick)] + kGap <= l.left);
  }
}

bool isBlank(QRgb pixel) {
  return qGray(pixel) > 250;
}

// The lines `text` wraps to in `font` at `width`, as a painter lays out Qt::TextWordWrap (QTextOption::WordWrap), each
// at its offset from the top of the text; laid out here with QTextLayout, not with the view's own measure.
std::vector<QRectF> wrappedLines(const QString& text, const QFont& font, int width) {
  QTextLayout layout(text, font);
  QTextOption option;
  option.setWrapMode(QTextOption::WordWrap);
  layout.setTextOption(option);
  std::vector<QRectF> lines;
  const qreal leading = std::max<qreal>(0, QFontMetricsF(font).leading());
  qreal y = 0;
  layout.beginLayout();
  for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    line.setLineWidth(width);
    if (!lines.empty()) y += leading;
    lines.emplace_back(0, y, line.naturalTextWidth(), line.height());
    y += line.height();
  }
  layout.endLayout();
  return lines;
}

// The view's footer at each width: every line of its text, centred in the footer's box as the view draws it, lies
// inside the widget and below the drawing area; no ink below the drawing area falls outside the box, and the last
// line's ink is there. `mostLines`: the most lines the footer wrapped to.
void verifyFooterLines(RingView& view, const QString& what, int& mostLines) {
  mostLines = 0;
  for (const int width : {320, 480, 900}) {
    view.resize(width, 700);
    const QString where = QStringLiteral("%1 at width %2").arg(what).arg(width);
    const QRect footer = view.footerRect();
    const QRectF area = view.drawingArea();
    const std::vector<QRectF> lines = wrappedLines(view.footerText(), view.footerFont(), footer.width());
    QVERIFY(!lines.empty());
    mostLines = std::max(mostLines, static_cast<int>(lines.size()));
    const qreal top = footer.top() + (footer.height() - lines.back().bottom()) / 2;
    for (const QRectF& line : lines) {
      const QRectF placed = line.translated(footer.left(), top);
      QVERIFY2(QRectF(view.rect()).contains(placed) && placed.top() >= area.bottom(),
               qPrintable(QStringLiteral("%1: a line at y %2 to %3 leaves the footer (%4 to %5, drawing ends at %6)")
                              .arg(where)
                              .arg(placed.top())
                              .arg(placed.bottom())
                              .arg(footer.top())
                              .arg(footer.bottom())
                              .arg(area.bottom())));
    }
    const QImage image = view.grab().toImage();
    int lowestInk = -1;
    for (int y = static_cast<int>(area.bottom()); y < image.height(); ++y) {
      for (int x = 0; x < image.width(); ++x) {
        if (isBlank(image.pixel(x, y))) continue;
        QVERIFY2(footer.contains(x, y),
                 qPrintable(QStringLiteral("%1: ink at (%2, %3) outside the footer").arg(where).arg(x).arg(y)));
        lowestInk = y;
      }
    }
    QVERIFY2(lowestInk >= top + lines.back().top(), qPrintable(where + QStringLiteral(": the last line is missing")));
  }
}

}  // namespace

class TestGuiClipping : public QObject {
  Q_OBJECT
 private slots:
  // Ticks at 0, 100 and 200 on [0, 230) with 40-pixel labels: each starts 3 pixels right of its tick, except the
  // last, which would end at 243 and is moved left to end at 230.
  void lastLabelMovesInFromTheRightEdge() {
    const std::vector<int> widths{40, 40, 40};
    const std::vector<AxisLabelPlace> placed = placeAxisLabels({0, 100, 200}, widths, 0, 230, kGap);
    QCOMPARE(placed.size(), std::size_t{3});
    QCOMPARE(placed[0].left, 3);
    QCOMPARE(placed[1].left, 103);
    QCOMPARE(placed[2].left, 230 - 40);
  }

  // 80-pixel labels: moved in to 150, the last would overlap the second (103 to 183) and is dropped.
  void lastLabelGivesWayToItsNeighbour() {
    const std::vector<AxisLabelPlace> placed = placeAxisLabels({0, 100, 200}, {80, 80, 80}, 0, 230, kGap);
    QCOMPARE(placed.size(), std::size_t{2});
    QCOMPARE(placed[1].tick, 1);
  }

  // A tick left of the line's start: its label starts at the edge; one wider than the whole line is left out.
  void firstLabelMovesInFromTheLeftEdge() {
    const std::vector<AxisLabelPlace> placed = placeAxisLabels({-20, 60}, {30, 30}, 0, 100, kGap);
    QCOMPARE(placed.size(), std::size_t{2});
    QCOMPARE(placed[0].left, 0);
    QCOMPARE(placed[1].left, 63);
    QVERIFY(placeAxisLabels({10}, {101}, 0, 100, kGap).empty());
  }

  // Any ticks and widths: whatever is kept fits the line and keeps its distance.
  void randomTicksStayInside() {
    QRandomGenerator rng(42);
    for (int run = 0; run < 500; ++run) {
      const int left = rng.bounded(-100, 100);
      const int right = left + rng.bounded(1, 800);
      std::vector<int> xs;
      std::vector<int> widths;
      for (int x = left - rng.bounded(0, 50); x < right + 50; x += rng.bounded(1, 150)) {
        xs.push_back(x);
        widths.push_back(rng.bounded(1, 120));
      }
      verifyPlaced(placeAxisLabels(xs, widths, left, right, kGap), widths, left, right);
      if (QTest::currentTestFailed()) return;
    }
  }

  // The timeline at several widths and time ranges: every tick label's box lies in the axis and holds its text.
  void timelineTickLabelsInsideTheAxis() {
    TimelineView view;
    view.setTimeline(std::make_shared<const TimelineData>(TimelineData::synthetic(8, 16)));
    const QFontMetrics fm(view.font());
    const std::vector<std::pair<qint64, qint64>> ranges{
        {0, 650'000'000'000}, {11'980'000'000, 12'220'000'000}, {0, 37}, {123'456'789, 987'654'321}, {0, 3 * 10LL}};
    for (const int width : {420, 600, 900, 1400, 2000}) {
      view.resize(width, 300);
      view.fit();
      for (int r = -1; r < static_cast<int>(ranges.size()); ++r) {
        if (r >= 0)
          view.showTimeRange(ranges[static_cast<std::size_t>(r)].first, ranges[static_cast<std::size_t>(r)].second);
        const auto labels = view.tickLabels();
        QVERIFY2(!labels.empty(),
                 qPrintable(QStringLiteral("width %1, range %2: %3 labels").arg(width).arg(r).arg(labels.size())));
        const QRect axis = view.axisArea();
        QVERIFY(view.rect().contains(axis));
        for (std::size_t i = 0; i < labels.size(); ++i) {
          const auto& [box, text] = labels[i];
          QVERIFY2(axis.contains(box),
                   qPrintable(QStringLiteral("'%1' at width %2 leaves the axis").arg(text).arg(width)));
          QVERIFY(box.width() >= fm.horizontalAdvance(text));
          if (i > 0) QVERIFY(labels[i - 1].first.right() < box.left());
        }
      }
    }
  }

  // A title that wraps to several lines at a narrow width: its box holds every line, nothing is drawn above it, the
  // last line is drawn (ink within a line of the box's bottom), and the drawing starts below it.
  void ringTitleGrowsWithItsLines() {
    RingStepModel model(8);
    RingView view(&model);
    view.setNote(
        QStringLiteral("a note long enough to make the title wrap onto a third and a fourth line at this "
                       "width, which the header's two lines cannot hold"));
    const int lineSpacing = QFontMetrics(view.titleFont()).lineSpacing();
    for (const int width : {320, 500, 900}) {
      view.resize(width, 700);
      const QRect title = view.titleRect();
      QVERIFY(title.top() >= 0);
      QVERIFY(view.drawingArea().top() > title.bottom());
      if (width == 320) QVERIFY(title.height() >= 3 * lineSpacing);
      const QImage image = view.grab().toImage();
      int lowestInk = -1;
      for (int y = 0; y < static_cast<int>(view.drawingArea().top()); ++y) {
        for (int x = 0; x < image.width(); ++x) {
          if (isBlank(image.pixel(x, y))) continue;
          QVERIFY2(title.contains(x, y), qPrintable(QStringLiteral("ink at (%1, %2) outside the title").arg(x).arg(y)));
          lowestInk = y;
        }
      }
      QVERIFY2(lowestInk > title.bottom() - lineSpacing,
               qPrintable(QStringLiteral("width %1: the title's last line is missing").arg(width)));
    }
  }

  // The footer on a circle and on a machine (two DGX servers, 8 channels, with the busiest links' rates), in English
  // and in Chinese, at widths where it wraps to more lines than its smallest box holds: the box grows to hold them.
  void ringFooterGrowsWithItsLines() {
    RingStepModel circleModel(8);
    RingView circle(&circleModel);
    const auto layout =
        std::make_shared<const TopologyLayout>(syncsim::build_topology("dgx:nodes=2,gpus=8,nic_bw=200Gbps"), 16);
    CollectiveTraffic::Spec spec;
    spec.ranks = 16;
    spec.channels = 8;
    spec.protocol = QStringLiteral("simple");
    const auto traffic = std::make_shared<const CollectiveTraffic>(layout, spec);
    RingStepModel machineModel(16);
    machineModel.setSchedule(traffic->schedule(0));
    RingView machine(&machineModel);
    machine.setTopology(layout);
    machine.setTraffic(traffic);
    TimelineSpan bucket;
    bucket.bytes = 24'160'256;
    bucket.durationPs = 400'000'000;
    bucket.flags = TimelineSpan::HasBytes;
    machine.setBucket(bucket);
    QVERIFY(machine.drawsTopology());
    QVERIFY(!machine.linkRates().empty());
    // The smallest box (where the footer wraps to few lines) holds four lines; at 320 pixels both footers need more.
    machine.resize(4000, 700);
    const int boxLines = machine.footerRect().height() / QFontMetrics(machine.footerFont()).lineSpacing();
    QCOMPARE(boxLines, 4);
    int lines = 0;
    for (RingView* view : {&circle, &machine}) {
      const QString what = view == &circle ? QStringLiteral("circle") : QStringLiteral("machine");
      verifyFooterLines(*view, what, lines);
      if (QTest::currentTestFailed()) return;
      QVERIFY2(lines > boxLines, qPrintable(QStringLiteral("%1: %2 lines").arg(what).arg(lines)));
    }
#ifdef SYNCSIM_GUI_QM_DIR
    // In Chinese (the view takes the new language's text when the application tells it of the change).
    const QString english = machine.footerText();
    QTranslator chinese;
    QVERIFY(chinese.load(QStringLiteral("syncsim_gui_zh_CN"), QStringLiteral(SYNCSIM_GUI_QM_DIR)));
    QCoreApplication::installTranslator(&chinese);
    QCoreApplication::processEvents();
    QVERIFY(machine.footerText() != english);
    // Chinese is terser: on the circle its footer fits four lines at 320 pixels, on the machine it needs more.
    verifyFooterLines(circle, QStringLiteral("circle in Chinese"), lines);
    if (QTest::currentTestFailed()) return;
    verifyFooterLines(machine, QStringLiteral("machine in Chinese"), lines);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(lines > boxLines, qPrintable(QStringLiteral("machine in Chinese: %1 lines").arg(lines)));
    // The footer was measured anew: as a view made in Chinese measures it (four lines; in English, more).
    RingView fresh(&circleModel);
    for (RingView* view : {&circle, &fresh}) view->resize(320, 700);
    QCOMPARE(circle.footerRect(), fresh.footerRect());
    QCoreApplication::removeTranslator(&chinese);
#endif
  }
};

QTEST_MAIN(TestGuiClipping)
#include "tst_gui_clipping.moc"
