// The ring view's picture of a machine (TopologyLayout): which boxes a topology gets, where they sit, which drawn
// links a transfer crosses, and the view drawing on it. A dgx:nodes=2,gpus=8 machine is 2 servers, each with 8
// GPUs, one NVSwitch and 8 NICs (one per GPU, on its rail), under 8 rail leaves and 2 spines
// (topologies/src/generators/dgx.cpp; `syncsim topo dgx:nodes=2,gpus=8` prints 16 gpu, 2 nvswitch, 16 nic and
// 10 network_switch nodes).
#include <QtTest>

#include "models/loaded_document.h"
#include "models/topology_layout.h"
#include "syncsim/topology/topology_spec.hpp"
#include "widgets/ring_panel.h"
#include "widgets/ring_view.h"
#include "widgets/screenshot.h"

namespace {

using Kind = TopologyBox::Kind;
const QString kExample = QStringLiteral(SYNCSIM_SOURCE_DIR "/examples/resnet50-dgx-8gpu.yaml");

TopologyLayout layoutOf(const char* spec, int ranks) {
  return TopologyLayout(syncsim::build_topology(spec), ranks);
}

const QRectF& boxOf(const TopologyLayout& l, int box) {
  return l.boxes()[static_cast<std::size_t>(box)].rect;
}

}  // namespace

class TestGuiTopology : public QObject {
  Q_OBJECT
 private slots:
  void dgxTwoNodesBoxes() {
    const TopologyLayout l = layoutOf("dgx:nodes=2,gpus=8", 16);
    QVERIFY(!l.isCircle());
    QCOMPARE(l.count(Kind::Host), 2);
    QCOMPARE(l.count(Kind::NvSwitch), 2);
    QCOMPARE(l.count(Kind::NetworkSwitch), 10);
    QCOMPARE(l.count(Kind::Gpu), 16);
    QCOMPARE(l.count(Kind::Nic), 16);
    // 16 NVLink + 16 PCIe + 32 network links: one drawn edge per physical (duplex) link.
    QCOMPARE(l.edges().size(), std::size_t{64});
    // GPUs 0-7 inside the first server, 8-15 inside the second; every network switch above both.
    std::vector<QRectF> hosts;
    for (const TopologyBox& b : l.boxes()) {
      if (b.kind == Kind::Host) hosts.push_back(b.rect);
    }
    for (int g = 0; g < 16; ++g) QVERIFY(hosts[g < 8 ? 0 : 1].contains(boxOf(l, l.gpuBox(g))));
    QVERIFY(boxOf(l, l.gpuBox(7)).right() < boxOf(l, l.gpuBox(8)).left());
    for (const TopologyBox& b : l.boxes()) {
      if (b.kind == Kind::NetworkSwitch) QVERIFY(b.rect.bottom() < hosts[0].top());
    }
    // Two tiers: 8 leaves in one row, 2 spines in the row above them.
    QSet<double> rows;
    for (const TopologyBox& b : l.boxes()) {
      if (b.kind == Kind::NetworkSwitch) rows.insert(b.rect.top());
    }
    QCOMPARE(rows.size(), 2);
  }

  // GPU 0 -> GPU 1 stays on the NVSwitch (two links); GPU 0 -> GPU 8 leaves the server through the NICs and a leaf.
  void routesFollowTheSimulatorsRouter() {
    const TopologyLayout l = layoutOf("dgx:nodes=2,gpus=8", 16);
    const auto& local = l.route(0, 1);
    QCOMPARE(local.size(), std::size_t{2});
    const auto touches = [&](const EdgeUse& u, Kind kind) {
      const TopologyEdge& e = l.edges()[static_cast<std::size_t>(u.edge)];
      return l.boxes()[static_cast<std::size_t>(e.a)].kind == kind ||
             l.boxes()[static_cast<std::size_t>(e.b)].kind == kind;
    };
    QVERIFY(touches(local[0], Kind::NvSwitch) && touches(local[1], Kind::NvSwitch));
    const auto from = [&](const EdgeUse& u) {
      const TopologyEdge& e = l.edges()[static_cast<std::size_t>(u.edge)];
      return u.forward ? e.a : e.b;
    };
    const auto to = [&](const EdgeUse& u) {
      const TopologyEdge& e = l.edges()[static_cast<std::size_t>(u.edge)];
      return u.forward ? e.b : e.a;
    };
    QCOMPARE(from(local.front()), l.gpuBox(0));
    QCOMPARE(to(local.back()), l.gpuBox(1));
    const auto& remote = l.route(0, 8);
    QVERIFY(remote.size() >= 4);
    QCOMPARE(from(remote.front()), l.gpuBox(0));
    QCOMPARE(to(remote.back()), l.gpuBox(8));
    QVERIFY(
        std::any_of(remote.begin(), remote.end(), [&](const EdgeUse& u) { return touches(u, Kind::NetworkSwitch); }));
    for (std::size_t i = 1; i < remote.size(); ++i) QCOMPARE(from(remote[i]), to(remote[i - 1]));  // a path
  }

  void shapesWithoutSwitchesAreACircle() {
    QVERIFY(layoutOf("ring:n=8,bw=100Gbps", 8).isCircle());
    QVERIFY(layoutOf("mesh:n=4,bw=100Gbps", 4).isCircle());
    // A switch or a fat-tree has switches: GPUs in a row under them.
    const TopologyLayout sw = layoutOf("switch:n=8,bw=100Gbps", 8);
    QVERIFY(!sw.isCircle());
    QCOMPARE(sw.count(Kind::NetworkSwitch), 1);
    QCOMPARE(sw.count(Kind::Host), 0);
    QCOMPARE(layoutOf("fattree:n=16,radix=8,bw=100Gbps", 16).count(Kind::Gpu), 16);
  }

  // A 16-GPU scenario on dgx:nodes=2,gpus=8: the document carries its machine and the ring view draws it, with
  // 2 server boxes, 2 NVSwitches and 10 network switches.
  void scenarioOnTwoDgxNodes() {
    const LoadedDocument doc =
        loadDocument(kExample, {QStringLiteral("cluster.topology.nodes=2"), QStringLiteral("training.iterations=2")});
    QVERIFY(doc.topology);
    QCOMPARE(doc.topology->rankCount(), 16);
    QCOMPARE(doc.topology->count(Kind::Host), 2);
    QCOMPARE(doc.topology->count(Kind::NvSwitch), 2);
    QCOMPARE(doc.topology->count(Kind::NetworkSwitch), 10);
    ScreenshotOptions o;
    o.step = 7;
    o.bucket = 1;
    o.size = QSize(1200, 800);
    const Screenshot shot = renderScreenshot(doc, ViewKind::Ring, o);
    QVERIFY(shot.error.isEmpty());
    QVERIFY(shot.topology);
    QCOMPARE(shot.ranks, 16);
    // The NVSwitch and network-switch fills are on the picture (topology_painter.cpp's colours).
    QSet<QRgb> colours;
    for (int y = 0; y < shot.image.height(); y += 2) {
      for (int x = 0; x < shot.image.width(); x += 2) colours.insert(shot.image.pixel(x, y) & 0xFFFFFF);
    }
    QVERIFY(colours.contains(0xCFE2F3));
    QVERIFY(colours.contains(0xE4D7F0));
    // Each rank's centre is inside its GPU box: the box's white fill or its strip, never the background grey.
    RingPanel panel;
    panel.resize(1200, 800);
    panel.setTopology(doc.topology);
    panel.setRankCount(16);
    QVERIFY(panel.view()->drawsTopology());
    QVERIFY(panel.view()->rect().contains(panel.view()->rankCentre(15).toPoint()));
    // A trace's 8 ranks on a machine of 16 GPUs still draw on it; more ranks than GPUs fall back to the circle.
    panel.setRankCount(32);
    QVERIFY(!panel.view()->drawsTopology());
  }
};

QTEST_MAIN(TestGuiTopology)
#include "tst_gui_topology.moc"
