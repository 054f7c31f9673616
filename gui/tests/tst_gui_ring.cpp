// Ring AllReduce state for the ring view: chunk ownership replayed from RingPlan, checked against tables worked
// out by hand from the schedule in ring_plan.hpp (step s, position i sends chunk (i-s-1) mod n in
// reduce-scatter and chunk (i-t) mod n at all-gather step t).
#include <QAbstractItemModelTester>
#include <QtTest>

#include "models/ring_schedule.h"
#include "models/ring_step_model.h"
#include "models/ring_sync.h"
#include "syncsim/core/input_error.hpp"

using Table = std::vector<std::vector<int>>;  // [rank][chunk] contributions

namespace {

Table tableOf(const RingSchedule& s, int completed) {
  const std::vector<int> flat = s.stateAfter(completed);
  const int n = s.rankCount();
  Table t(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) t[r].assign(flat.begin() + r * n, flat.begin() + (r + 1) * n);
  return t;
}

}  // namespace

class TestGuiRing : public QObject {
  Q_OBJECT
 private slots:
  // n = 4: 6 steps. Each reduce-scatter transfer adds the sender's partial sum to the receiver's own copy;
  // after 3 steps rank i holds chunk i summed over all 4 ranks; all-gather then copies the sums around.
  void fourRanksEveryStep() {
    const RingSchedule s(4);
    QCOMPARE(s.stepCount(), 6);
    QCOMPARE(s.reduceScatterSteps(), 3);
    const std::vector<Table> expected{
        {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}},  // before step 0
        {{1, 1, 2, 1}, {1, 1, 1, 2}, {2, 1, 1, 1}, {1, 2, 1, 1}},  // rank 3 sent chunk 2 to rank 0, ...
        {{1, 3, 2, 1}, {1, 1, 3, 2}, {2, 1, 1, 3}, {3, 2, 1, 1}},
        {{4, 3, 2, 1}, {1, 4, 3, 2}, {2, 1, 4, 3}, {3, 2, 1, 4}},  // reduce-scatter done: rank i owns chunk i
        {{4, 3, 2, 4}, {4, 4, 3, 2}, {2, 4, 4, 3}, {3, 2, 4, 4}},
        {{4, 3, 4, 4}, {4, 4, 3, 4}, {4, 4, 4, 3}, {3, 4, 4, 4}},
        {{4, 4, 4, 4}, {4, 4, 4, 4}, {4, 4, 4, 4}, {4, 4, 4, 4}},  // all-gather done
    };
    for (int k = 0; k <= 6; ++k) QCOMPARE(tableOf(s, k), expected[static_cast<std::size_t>(k)]);
    // Step 0: position i sends chunk i-1 to i+1, and the receiver reduces.
    const std::vector<RingTransfer> step0{{0, 1, 3, true}, {1, 2, 0, true}, {2, 3, 1, true}, {3, 0, 2, true}};
    QCOMPARE(s.transfers(0), step0);
    // All-gather step 0 (overall 3): each rank passes on the chunk it owns, the receiver keeps it.
    const std::vector<RingTransfer> step3{{0, 1, 0, false}, {1, 2, 1, false}, {2, 3, 2, false}, {3, 0, 3, false}};
    QCOMPARE(s.transfers(3), step3);
  }

  // n = 8 after 3 steps (what `--view ring --step 3` shows): rank i has received chunk i-2 (2 ranks summed),
  // i-3 (3) and i-4 (4); at step 3 it sends chunk i-4 on.
  void eightRanksMidReduceScatter() {
    const RingSchedule s(8);
    QCOMPARE(s.stepCount(), 14);
    const Table after3{
        {1, 1, 1, 1, 4, 3, 2, 1}, {1, 1, 1, 1, 1, 4, 3, 2}, {2, 1, 1, 1, 1, 1, 4, 3}, {3, 2, 1, 1, 1, 1, 1, 4},
        {4, 3, 2, 1, 1, 1, 1, 1}, {1, 4, 3, 2, 1, 1, 1, 1}, {1, 1, 4, 3, 2, 1, 1, 1}, {1, 1, 1, 4, 3, 2, 1, 1},
    };
    QCOMPARE(tableOf(s, 3), after3);
    const std::vector<RingTransfer> step3{{0, 1, 4, true}, {1, 2, 5, true}, {2, 3, 6, true}, {3, 4, 7, true},
                                          {4, 5, 0, true}, {5, 6, 1, true}, {6, 7, 2, true}, {7, 0, 3, true}};
    QCOMPARE(s.transfers(3), step3);
    // End of reduce-scatter: rank 0 received chunk 6 at step 0 (2 ranks) ... chunk 0 at step 6 (all 8).
    const Table after7 = tableOf(s, 7);
    QCOMPARE(after7[0], (std::vector<int>{8, 7, 6, 5, 4, 3, 2, 1}));
    QCOMPARE(after7[3], (std::vector<int>{3, 2, 1, 8, 7, 6, 5, 4}));
    for (int r = 0; r < 8; ++r) QCOMPARE(after7[r][r], 8);
    for (const auto& row : tableOf(s, 14)) QCOMPARE(row, std::vector<int>(8, 8));
  }

  void tooFewRanksIsAnInputError() { QVERIFY_THROWS_EXCEPTION(syncsim::InputError, RingSchedule(1)); }

  void stepModelUnderTester() {
    RingStepModel model(8);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.columnCount(), 8);
    QSignalSpy steps(&model, &RingStepModel::stepChanged);
    model.setStep(3);
    QCOMPARE(steps.count(), 1);
    QCOMPARE(model.data(model.index(0, 4), RingStepModel::ContributionsRole).toInt(), 4);
    QCOMPARE(model.data(model.index(0, 4), RingStepModel::SendingRole).toBool(), true);  // rank 0 sends chunk 4
    QCOMPARE(model.data(model.index(1, 4), RingStepModel::ReceivingRole).toBool(), true);
    QCOMPARE(model.data(model.index(0, 0), Qt::DisplayRole).toString(), QStringLiteral("1/8"));
    model.setStep(100);  // clamped to the end
    QCOMPARE(model.step(), 14);
    QVERIFY(model.currentTransfers().empty());
    QCOMPARE(model.data(model.index(5, 2), RingStepModel::ReducedRole).toBool(), true);
    model.setRankCount(4);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.step(), 0);
  }

  // A 14 us AllReduce of 8 MB on 8 ranks: 14 steps of 1 us, each moving 1 MB per link: 1e12 B/s.
  void cursorAndStepAgree() {
    TimelineSpan s;
    s.startPs = 1'000'000;
    s.durationPs = 14'000'000;
    s.bytes = 8'000'000;
    s.flags = TimelineSpan::HasBytes;
    QCOMPARE(ringStepAt(s, s.startPs, 8), 0);
    QCOMPARE(ringStepAt(s, s.startPs + 3'500'000, 8), 3);
    QCOMPARE(ringStepAt(s, s.endPs() + 5, 8), 13);
    for (int k = 0; k < 14; ++k) QCOMPARE(ringStepAt(s, ringStepTime(s, k, 8), 8), k);
    QCOMPARE(ringStepTime(s, 3, 8), 1'000'000 + 3'500'000);
    QCOMPARE(*ringLinkRate(s, 8), 1e12);  // 1 MB per 1 us
  }
};

QTEST_GUILESS_MAIN(TestGuiRing)
#include "tst_gui_ring.moc"
