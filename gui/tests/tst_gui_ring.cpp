// AllReduce state for the ring view: piece ownership replayed from the simulator's plans, checked against tables
// worked out by hand — the ring from ring_plan.hpp (step s, position i sends chunk (i-s-1) mod n in reduce-scatter
// and chunk (i-t) mod n at all-gather step t), the tree from the pictures in tree_plan.hpp, halving-doubling from
// halving_doubling_plan.hpp.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "models/collective_schedule.h"
#include "models/ring_step_model.h"
#include "models/ring_sync.h"
#include "syncsim/core/input_error.hpp"

using Table = std::vector<std::vector<int>>;  // [rank][piece] contributions
using Transfers = std::vector<CollectiveTransfer>;

namespace {

Table tableOf(const CollectiveSchedule& s, int completed) {
  const std::vector<int> flat = s.stateAfter(completed);
  const int pieces = s.pieceCount();
  Table t(static_cast<std::size_t>(s.rankCount()));
  for (int r = 0; r < s.rankCount(); ++r) t[r].assign(flat.begin() + r * pieces, flat.begin() + (r + 1) * pieces);
  return t;
}

// One piece per rank (the tree's whole buffer): the table's single column.
std::vector<int> columnOf(const CollectiveSchedule& s, int completed) {
  return s.stateAfter(completed);
}

const auto kRing = CollectiveAlgorithm::Ring;
const auto kTree = CollectiveAlgorithm::Tree;
const auto kHalvingDoubling = CollectiveAlgorithm::HalvingDoubling;

}  // namespace

class TestGuiRing : public QObject {
  Q_OBJECT
 private slots:
  // n = 4: 6 steps. Each reduce-scatter transfer adds the sender's partial sum to the receiver's own copy;
  // after 3 steps rank i holds chunk i summed over all 4 ranks; all-gather then copies the sums around.
  void fourRanksEveryStep() {
    const CollectiveSchedule s(kRing, 4);
    QCOMPARE(s.stepCount(), 6);
    QCOMPARE(s.pieceCount(), 4);
    for (int k = 0; k < 6; ++k) {
      QCOMPARE(s.phases(k),
               k < 3 ? unsigned(CollectiveSchedule::ReduceScatter) : unsigned(CollectiveSchedule::AllGather));
    }
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
    const Transfers step0{{0, 1, 3, true}, {1, 2, 0, true}, {2, 3, 1, true}, {3, 0, 2, true}};
    QCOMPARE(s.transfers(0), step0);
    // All-gather step 0 (overall 3): each rank passes on the chunk it owns, the receiver keeps it.
    const Transfers step3{{0, 1, 0, false}, {1, 2, 1, false}, {2, 3, 2, false}, {3, 0, 3, false}};
    QCOMPARE(s.transfers(3), step3);
  }

  // n = 8 after 3 steps (what `--view ring --step 3` shows): rank i has received chunk i-2 (2 ranks summed),
  // i-3 (3) and i-4 (4); at step 3 it sends chunk i-4 on.
  void eightRanksMidReduceScatter() {
    const CollectiveSchedule s(kRing, 8);
    QCOMPARE(s.stepCount(), 14);
    const Table after3{
        {1, 1, 1, 1, 4, 3, 2, 1}, {1, 1, 1, 1, 1, 4, 3, 2}, {2, 1, 1, 1, 1, 1, 4, 3}, {3, 2, 1, 1, 1, 1, 1, 4},
        {4, 3, 2, 1, 1, 1, 1, 1}, {1, 4, 3, 2, 1, 1, 1, 1}, {1, 1, 4, 3, 2, 1, 1, 1}, {1, 1, 1, 4, 3, 2, 1, 1},
    };
    QCOMPARE(tableOf(s, 3), after3);
    const Transfers step3{{0, 1, 4, true}, {1, 2, 5, true}, {2, 3, 6, true}, {3, 4, 7, true},
                          {4, 5, 0, true}, {5, 6, 1, true}, {6, 7, 2, true}, {7, 0, 3, true}};
    QCOMPARE(s.transfers(3), step3);
    // End of reduce-scatter: rank 0 received chunk 6 at step 0 (2 ranks) ... chunk 0 at step 6 (all 8).
    const Table after7 = tableOf(s, 7);
    QCOMPARE(after7[0], (std::vector<int>{8, 7, 6, 5, 4, 3, 2, 1}));
    QCOMPARE(after7[3], (std::vector<int>{3, 2, 1, 8, 7, 6, 5, 4}));
    for (int r = 0; r < 8; ++r) QCOMPARE(after7[r][r], 8);
    for (const auto& row : tableOf(s, 14)) QCOMPARE(row, std::vector<int>(8, 8));
  }

  // Tree 0 on 4 ranks (tree_plan.hpp): root 0 -> 2, whose children are 1 and 3. One slice, so each round is one
  // level: leaves to 2, 2 to the root (which then holds all 4), and the sum back down.
  void treeOnFourRanks() {
    const CollectiveSchedule s(kTree, 4);
    QCOMPARE(s.pieceCount(), 1);
    QCOMPARE(s.stepCount(), 4);  // 2H, H = 2
    QCOMPARE(s.transfers(0), (Transfers{{1, 2, 0, true}, {3, 2, 0, true}}));
    QCOMPARE(s.transfers(1), (Transfers{{2, 0, 0, true}}));
    QCOMPARE(s.transfers(2), (Transfers{{0, 2, 0, false}}));
    QCOMPARE(s.transfers(3), (Transfers{{2, 1, 0, false}, {2, 3, 0, false}}));
    QCOMPARE(s.phases(0), unsigned(CollectiveSchedule::ReduceUp));
    QCOMPARE(s.phases(3), unsigned(CollectiveSchedule::BroadcastDown));
    const std::vector<std::vector<int>> expected{
        {1, 1, 1, 1},  // each rank its own gradient
        {1, 1, 3, 1},  // 2 added its children's
        {4, 1, 3, 1},  // the root holds the sum
        {4, 1, 4, 1},  // the sum comes back down ...
        {4, 4, 4, 4},  // ... to the leaves
    };
    for (int k = 0; k <= 4; ++k) QCOMPARE(columnOf(s, k), expected[static_cast<std::size_t>(k)]);
  }

  // Tree 0 on 8 ranks: root 0 -> 4; 4's children 2 and 6; their children 1, 3 and 5, 7. H = 3: six rounds.
  void treeOnEightRanks() {
    const CollectiveSchedule s(kTree, 8);
    QCOMPARE(s.stepCount(), 6);
    QCOMPARE(s.transfers(0), (Transfers{{1, 2, 0, true}, {3, 2, 0, true}, {5, 6, 0, true}, {7, 6, 0, true}}));
    QCOMPARE(s.transfers(1), (Transfers{{2, 4, 0, true}, {6, 4, 0, true}}));
    QCOMPARE(s.transfers(2), (Transfers{{4, 0, 0, true}}));
    QCOMPARE(s.transfers(3), (Transfers{{0, 4, 0, false}}));
    QCOMPARE(s.transfers(4), (Transfers{{4, 2, 0, false}, {4, 6, 0, false}}));
    QCOMPARE(s.transfers(5), (Transfers{{2, 1, 0, false}, {2, 3, 0, false}, {6, 5, 0, false}, {6, 7, 0, false}}));
    QCOMPARE(columnOf(s, 1), (std::vector<int>{1, 1, 3, 1, 1, 1, 3, 1}));
    QCOMPARE(columnOf(s, 2), (std::vector<int>{1, 1, 3, 1, 7, 1, 3, 1}));
    QCOMPARE(columnOf(s, 3), (std::vector<int>{8, 1, 3, 1, 7, 1, 3, 1}));
    QCOMPARE(columnOf(s, 4), (std::vector<int>{8, 1, 3, 1, 8, 1, 3, 1}));
    QCOMPARE(columnOf(s, 5), (std::vector<int>{8, 1, 8, 1, 8, 1, 8, 1}));
    QCOMPARE(columnOf(s, 6), std::vector<int>(8, 8));
  }

  // Halving-doubling on 4 ranks, pieces a b c d (halving_doubling_plan.hpp's picture): halving at distance 2 then
  // 1 leaves rank v with piece v summed; doubling at distance 1 then 2 copies the sums back.
  void halvingDoublingOnFourRanks() {
    const CollectiveSchedule s(kHalvingDoubling, 4);
    QCOMPARE(s.pieceCount(), 4);
    QCOMPARE(s.stepCount(), 4);  // 2 log2(4)
    // Round 0: 0 <-(c d)/(a b)-> 2 and 1 <-(c d)/(a b)-> 3, each adding what it receives.
    QCOMPARE(s.transfers(0),
             (Transfers{{0, 2, 2, true, 2}, {1, 3, 2, true, 2}, {2, 0, 0, true, 2}, {3, 1, 0, true, 2}}));
    QCOMPARE(s.transfers(1), (Transfers{{0, 1, 1, true}, {1, 0, 0, true}, {2, 3, 3, true}, {3, 2, 2, true}}));
    QCOMPARE(s.transfers(2), (Transfers{{0, 1, 0, false}, {1, 0, 1, false}, {2, 3, 2, false}, {3, 2, 3, false}}));
    QCOMPARE(s.phases(0), unsigned(CollectiveSchedule::Halving));
    QCOMPARE(s.phases(3), unsigned(CollectiveSchedule::Doubling));
    const std::vector<Table> expected{
        {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}},
        {{2, 2, 1, 1}, {2, 2, 1, 1}, {1, 1, 2, 2}, {1, 1, 2, 2}},
        {{4, 2, 1, 1}, {2, 4, 1, 1}, {1, 1, 4, 2}, {1, 1, 2, 4}},  // rank v owns piece v, summed
        {{4, 4, 1, 1}, {4, 4, 1, 1}, {1, 1, 4, 4}, {1, 1, 4, 4}},
        {{4, 4, 4, 4}, {4, 4, 4, 4}, {4, 4, 4, 4}, {4, 4, 4, 4}},
    };
    for (int k = 0; k <= 4; ++k) QCOMPARE(tableOf(s, k), expected[static_cast<std::size_t>(k)]);
  }

  // 8 ranks: halving at distances 4, 2, 1 (the block held halves each time), then doubling at 1, 2, 4.
  void halvingDoublingOnEightRanks() {
    const CollectiveSchedule s(kHalvingDoubling, 8);
    QCOMPARE(s.stepCount(), 6);
    QCOMPARE(s.transfers(0).front(), (CollectiveTransfer{0, 4, 4, true, 4}));  // 0 sends pieces 4..7 to 4
    QCOMPARE(tableOf(s, 1)[0], (std::vector<int>{2, 2, 2, 2, 1, 1, 1, 1}));
    QCOMPARE(tableOf(s, 2)[0], (std::vector<int>{4, 4, 2, 2, 1, 1, 1, 1}));
    QCOMPARE(tableOf(s, 3)[0], (std::vector<int>{8, 4, 2, 2, 1, 1, 1, 1}));
    for (int r = 0; r < 8; ++r) QCOMPARE(tableOf(s, 3)[r][r], 8);  // reduce-scatter done
    QCOMPARE(tableOf(s, 4)[0], (std::vector<int>{8, 8, 2, 2, 1, 1, 1, 1}));
    QCOMPARE(tableOf(s, 5)[0], (std::vector<int>{8, 8, 8, 8, 1, 1, 1, 1}));
    for (const auto& row : tableOf(s, 6)) QCOMPARE(row, std::vector<int>(8, 8));
  }

  // 6 ranks fold into 4: odd ranks 1 and 3 hand their buffers to 0 and 2 first and get the result last.
  void halvingDoublingFoldsOtherCounts() {
    const CollectiveSchedule s(kHalvingDoubling, 6);
    QCOMPARE(s.pieceCount(), 4);
    QVERIFY(s.phases(0) & CollectiveSchedule::FoldIn);
    QVERIFY(s.phases(s.stepCount() - 1) & CollectiveSchedule::FoldOut);
    // Round 0: rank 0 adds rank 1's whole buffer; rank 4, with no fold partner, already sends its half (pieces 0-1)
    // for rank 0's first halving step, and rank 0 adds it on arrival: pieces 0-1 sum 0, 1 and 4.
    QCOMPARE(s.transfers(0).front(), (CollectiveTransfer{1, 0, 0, true, 4}));
    QCOMPARE(tableOf(s, 1)[0], (std::vector<int>{3, 3, 2, 2}));
    for (const auto& row : tableOf(s, s.stepCount())) QCOMPARE(row, std::vector<int>(4, 6));
  }

  // 1,024 ranks: 2 M transfers, generated round by round rather than stored (collective_schedule.h). Still the
  // ring of ring_plan.hpp: at step s position i sends chunk (i - s - 1) mod n, and after n - 1 steps rank i holds
  // chunk i summed over all n.
  void largeRingRoundsOnDemand() {
    const int n = 1024;
    const CollectiveSchedule s(kRing, n);
    QCOMPARE(s.stepCount(), 2 * (n - 1));
    for (const int step : {0, 5, n - 2}) {
      const Transfers& round = s.transfers(step);
      QCOMPARE(round.size(), std::size_t{n});
      for (int i = 0; i < n; ++i) {
        QCOMPARE(round[i], (CollectiveTransfer{i, (i + 1) % n, ((i - step - 1) % n + n) % n, true}));
      }
      QCOMPARE(s.pattern(step), 0);  // every round moves one piece from each rank to the next
    }
    QCOMPARE(s.transfers(n - 1).front().reduces, false);  // all-gather
    QCOMPARE(s.phases(n - 1), unsigned(CollectiveSchedule::AllGather));
    const std::vector<int> reduced = s.stateAfter(n - 1);
    for (int r = 0; r < n; r += 97) QCOMPARE(reduced[static_cast<std::size_t>(r * n + r)], n);
    const std::vector<int> done = s.stateAfter(s.stepCount());
    QVERIFY(std::all_of(done.begin(), done.end(), [&](int c) { return c == n; }));
  }

  // A channel of the simulator's (collective_runner.hpp): on 2 hosts of 4, channel 1 of 4 enters host 0 at its GPU 1
  // and goes up (1 2 3 0), then host 1 down from its GPU 0 (4 7 6 5): the ring 1 2 3 0 4 7 6 5.
  void channelRingFollowsTheSimulatorsOrder() {
    const CollectiveSchedule s(kRing, 8, CollectiveChannel{{{0, 1, 2, 3}, {4, 5, 6, 7}}, 1, 4});
    QCOMPARE(s.channel(), 1);
    std::vector<std::pair<int, int>> hops;
    for (const CollectiveTransfer& t : s.transfers(0)) hops.emplace_back(t.src, t.dst);
    const std::vector<std::pair<int, int>> ring{{0, 4}, {1, 2}, {2, 3}, {3, 0}, {4, 7}, {5, 1}, {6, 5}, {7, 6}};
    QCOMPARE(hops, ring);
  }

  void algorithmNamesFromTheTrace() {
    QCOMPARE(parseCollectiveAlgorithm(QStringLiteral("tree")), std::optional(kTree));
    QCOMPARE(parseCollectiveAlgorithm(QStringLiteral("halving_doubling")), std::optional(kHalvingDoubling));
    QCOMPARE(parseCollectiveAlgorithm(QStringLiteral("hierarchical")), std::nullopt);
  }

  void tooFewRanksIsAnInputError() {
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError, CollectiveSchedule(kRing, 1));
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError, CollectiveSchedule(kTree, 1));
  }

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
    // A tree: one column (the whole buffer); at round 3 rank 2 sends it to both its children.
    model.setSchedule(kTree, 4);
    QCOMPARE(model.columnCount(), 1);
    model.setStep(3);
    QCOMPARE(model.data(model.index(2, 0), RingStepModel::SendingRole).toBool(), true);
    QCOMPARE(model.data(model.index(1, 0), RingStepModel::ReceivingRole).toBool(), true);
    QCOMPARE(model.data(model.index(3, 0), RingStepModel::ReceivingRole).toBool(), true);
    QCOMPARE(model.data(model.index(1, 0), RingStepModel::ContributionsRole).toInt(), 1);
  }

  // A 14 us AllReduce of 8 MB on 8 ranks: 14 steps of 1 us, each moving 1 MB per link: 1e12 B/s.
  void cursorAndStepAgree() {
    TimelineSpan s;
    s.startPs = 1'000'000;
    s.durationPs = 14'000'000;
    s.bytes = 8'000'000;
    s.flags = TimelineSpan::HasBytes;
    QCOMPARE(collectiveStepAt(s, s.startPs, 14), 0);
    QCOMPARE(collectiveStepAt(s, s.startPs + 3'500'000, 14), 3);
    QCOMPARE(collectiveStepAt(s, s.endPs() + 5, 14), 13);
    for (int k = 0; k < 14; ++k) QCOMPARE(collectiveStepAt(s, collectiveStepTime(s, k, 14), 14), k);
    QCOMPARE(collectiveStepTime(s, 3, 14), 1'000'000 + 3'500'000);
    QCOMPARE(*collectiveTransferRate(s, 14, 1, 8), 1e12);  // 1 MB per 1 us
    // Halving-doubling's first round on 8 ranks moves half the buffer (4 of 8 pieces) in one of 6 steps.
    QCOMPARE(*collectiveTransferRate(s, 6, 4, 8), 4e6 / (14e-6 / 6));
  }
};

QTEST_GUILESS_MAIN(TestGuiRing)
#include "tst_gui_ring.moc"
