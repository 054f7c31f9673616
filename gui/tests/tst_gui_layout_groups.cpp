// The groups a model-parallel layout runs, on the machine (layout_groups.h): Llama 3 70B's TP 8 x PP 4 x DP 8 on 32
// DGX nodes (examples/llama3-70b-layouts.yaml). Megatron's order puts rank t + 8 (d + 8 p) on GPU t of node d + 8p:
// tensor group g is node g's 8 GPUs, data group 0 is GPU 0 of nodes 0..7 (rail 0 of stage 0), and a pipeline pair
// joins a rank with the rank 64 GPUs on (the next stage's). The ring view animates each group's own collective on
// those GPUs: no 4-rank AllReduce that no group runs.
#include <QtTest>

#include <algorithm>

#include "models/collective_traffic.h"
#include "models/layout_groups.h"
#include "models/topology_layout.h"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "widgets/ring_panel.h"
#include "widgets/ring_view.h"

namespace {

const LayoutGroupSizes k70b{.tensor = 8, .context = 1, .pipeline = 4, .data = 8, .expert = 1};

std::shared_ptr<const TopologyLayout> machine() {
  return std::make_shared<const TopologyLayout>(syncsim::build_topology("dgx:nodes=32,gpus=8,nic_bw=400Gbps"), 256);
}

}  // namespace

class TestLayoutGroups : public QObject {
  Q_OBJECT
 private slots:
  void groupsInMegatronOrder() {
    const LayoutGroups groups(k70b);
    QCOMPARE(groups.rankCount(), 256);
    const std::vector<LayoutGroupKind> kinds{LayoutGroupKind::Tensor, LayoutGroupKind::Pipeline, LayoutGroupKind::Data};
    QVERIFY(groups.kinds() == kinds);
    QCOMPARE(groups.groupCount(LayoutGroupKind::Tensor), 32);
    QCOMPARE(groups.groupCount(LayoutGroupKind::Data), 32);
    // Every rank of stages 0..2 has a partner in the next stage: 3 boundaries x 64 ranks.
    QCOMPARE(groups.groupCount(LayoutGroupKind::Pipeline), 192);
    QVERIFY((groups.members(LayoutGroupKind::Tensor, 1) == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
    QVERIFY((groups.members(LayoutGroupKind::Data, 0) == std::vector<int>{0, 8, 16, 24, 32, 40, 48, 56}));
    QVERIFY((groups.members(LayoutGroupKind::Pipeline, 0) == std::vector<int>{0, 64}));
    QVERIFY((groups.members(LayoutGroupKind::Pipeline, 191) == std::vector<int>{191, 255}));
    QVERIFY(groups.members(LayoutGroupKind::Data, 32).empty());
    QCOMPARE(LayoutGroups::collective(LayoutGroupKind::Pipeline), syncsim::CollectiveOp::broadcast);
    QCOMPARE(LayoutGroups::collective(LayoutGroupKind::Context), syncsim::CollectiveOp::all_gather);
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError, LayoutGroups({.data = 8, .expert = 3}));
  }

  void aGroupsTrafficRunsOnItsOwnGpus() {
    // Data group 0 is GPU 0 of 8 nodes: its ring leaves every node through NIC 0 and never touches NVLink.
    const auto layout = machine();
    const LayoutGroups groups(k70b);
    const std::vector<int> members = groups.members(LayoutGroupKind::Data, 0);
    CollectiveTraffic::Spec spec{CollectiveAlgorithm::Ring,       8, 1, QString(), std::nullopt, members,
                                 syncsim::CollectiveOp::allreduce};
    const CollectiveTraffic traffic(layout, spec);
    QCOMPARE(traffic.gpuOf(3), 24);
    const std::vector<double> bytes = traffic.edgeBytes(8'000'000, std::nullopt);
    double network = 0;
    double nvlink = 0;
    for (std::size_t d = 0; d < bytes.size(); ++d) {
      const TopologyEdge& e = layout->edges()[d / 2];
      (e.kind == TopologyEdge::Kind::NvLink ? nvlink : network) += bytes[d];
    }
    QVERIFY(network > 0);
    QCOMPARE(nvlink, 0.0);
    // A ring AllReduce of S over 8 ranks sends 2 (n - 1)/n x S from every rank: at least that leaves the GPUs.
    QVERIFY(network >= 8 * 2 * 7.0 / 8 * 8'000'000 * 0.999);
  }

  void thePanelAnimatesTheChosenGroupsCollective() {
    RingPanel panel;
    panel.setAttribute(Qt::WA_DontShowOnScreen);
    panel.resize(1200, 800);
    panel.show();
    panel.setTopology(machine(), 80);
    panel.follow(std::nullopt, 256);
    panel.setLayoutGroups(LayoutGroups(k70b));
    panel.setGroup(std::pair(LayoutGroupKind::Tensor, 1));
    QCOMPARE(panel.rankCount(), 8);
    QCOMPARE(panel.view()->gpuOfRank(0), 8);
    QVERIFY(panel.view()->drawsTopology());
    QCOMPARE(panel.stepCount(), 2 * 7);  // a ring AllReduce on 8 ranks
    panel.setGroup(std::pair(LayoutGroupKind::Pipeline, 0));
    QCOMPARE(panel.rankCount(), 2);
    QCOMPARE(panel.view()->gpuOfRank(1), 64);
    QCOMPARE(panel.stepCount(), 1);  // one activation, stage 0 to stage 1
    QCOMPARE(panel.view()->traffic()->schedule(0).op(), syncsim::CollectiveOp::broadcast);
    // The step lights the route from GPU 0 to GPU 64 and nothing else.
    const auto uses = panel.view()->traffic()->stepUses(0, std::nullopt);
    QVERIFY(!uses.empty());
    panel.setGroup(std::pair(LayoutGroupKind::Data, 99));  // clamped to the last data group
    QCOMPARE(panel.group()->second, 31);
    QVERIFY_THROWS_EXCEPTION(syncsim::InputError, panel.setGroup(std::pair(LayoutGroupKind::Context, 0)));
    panel.setGroup(std::nullopt);  // back to the buckets: a ring on the first 256 GPUs
    QCOMPARE(panel.rankCount(), 256);
  }
};

QTEST_MAIN(TestLayoutGroups)
#include "tst_gui_layout_groups.moc"
