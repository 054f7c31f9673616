// Nothing the views draw is cut by their edges: the timeline's tick labels are moved in from an axis edge they would
// run past (or dropped where they would then overlap a neighbour, axis_labels.h), and the ring view's title box grows
// with the lines it wraps to and pushes the drawing down.
#include <QRandomGenerator>
#include <QtTest>

#include "models/axis_labels.h"
#include "models/ring_step_model.h"
#include "models/timeline_data.h"
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
};

QTEST_MAIN(TestGuiClipping)
#include "tst_gui_clipping.moc"
