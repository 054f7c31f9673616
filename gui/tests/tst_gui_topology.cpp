// The ring view's picture of a machine (TopologyLayout): which boxes a topology gets, where they sit, which drawn
// links a transfer crosses, and the view drawing on it. A dgx:nodes=2,gpus=8 machine is 2 servers, each with 8
// GPUs, one NVSwitch and 8 NICs (one per GPU, on its rail), under 8 rail leaves and 2 spines
// (topologies/src/generators/dgx.cpp; `syncsim topo dgx:nodes=2,gpus=8` prints 16 gpu, 2 nvswitch, 16 nic and
// 10 network_switch nodes).
#include <QtTest>

#include "models/collective_traffic.h"
#include "models/loaded_document.h"
#include "models/ring_step_model.h"
#include "models/topology_layout.h"
#include "models/topology_placement.h"
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

// A ring panel of `size` showing `layout`, offscreen, following a 24 MB AllReduce of 400 us (rates on).
void showOn(RingPanel& panel, const std::shared_ptr<const TopologyLayout>& layout, QSize size, const char* algorithm,
            int channels) {
  panel.setAttribute(Qt::WA_DontShowOnScreen);
  panel.resize(size);
  panel.show();
  panel.setTopology(layout, 80);
  TimelineSpan bucket;
  bucket.bytes = 24'160'256;
  bucket.durationPs = 400'000'000;
  bucket.peers = layout->rankCount();
  bucket.flags = TimelineSpan::HasBytes | TimelineSpan::HasPeers;
  panel.follow(bucket, layout->rankCount(),
               BucketRun{QString::fromLatin1(algorithm), channels, QStringLiteral("simple")});
  QCoreApplication::processEvents();
}

// The widget rects of a placement's boxes of one kind (the shown ones).
std::vector<QRectF> shown(const RingView& view, const TopologyLayout& l, Kind kind) {
  std::vector<QRectF> out;
  const QTransform map = view.topologyTransform();
  for (std::size_t b = 0; b < l.boxes().size(); ++b) {
    const QRectF& r = view.placement()->rects()[b];
    if (l.boxes()[b].kind == kind && !r.isNull()) out.push_back(map.mapRect(r));
  }
  return out;
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

  // 128 DGX servers (1,024 GPUs) in a 1400 x 860 view: every server collapsed to a box with its 8 NIC ports and 8
  // GPU cells; every box inside the drawing area, no two servers overlapping, each at least 60 px wide (its ports
  // apart, its caption readable); pods of 32 servers side by side under their leaves; the drawing fills the area.
  void collapsedLayoutAt128NodesFitsTheView() {
    auto layout =
        std::make_shared<const TopologyLayout>(syncsim::build_topology("dgx:nodes=128,gpus=8,nic_bw=200Gbps"), 1024);
    RingPanel panel;
    showOn(panel, layout, QSize(1400, 860), "tree", 16);
    const RingView& view = *panel.view();
    QVERIFY(view.drawsTopology());
    QVERIFY(TopologyPlacement::collapsedByDefault(*layout, view.drawingArea().size()));
    const TopologyPlacement* placed = view.placement();
    QVERIFY(placed != nullptr);
    const QRectF area = view.drawingArea();
    const std::vector<QRectF> servers = shown(view, *layout, Kind::Host);
    QCOMPARE(servers.size(), std::size_t{128});
    for (std::size_t i = 0; i < servers.size(); ++i) {
      QVERIFY2(area.contains(servers[i]), qPrintable(QStringLiteral("server %1 outside the view").arg(i)));
      QVERIFY(servers[i].width() >= 60);
      for (std::size_t j = i + 1; j < servers.size(); ++j) QVERIFY(!servers[i].intersects(servers[j]));
    }
    for (const int host : layout->hostBoxes()) QVERIFY(placed->collapsed(host));
    // Each GPU a cell inside its server, each NIC a port on it; the NVSwitches hidden with the server's insides.
    const QTransform map = view.topologyTransform();
    for (std::size_t b = 0; b < layout->boxes().size(); ++b) {
      const int host = layout->hostOf(static_cast<int>(b));
      const Kind kind = layout->boxes()[b].kind;
      if (kind == Kind::NvSwitch) QVERIFY(placed->rects()[b].isNull());
      if (host >= 0 && (kind == Kind::Gpu || kind == Kind::Nic)) {
        QVERIFY(map.mapRect(placed->rect(host)).contains(map.mapRect(placed->rects()[b])));
      }
    }
    // Switches above the servers, none overlapping another box.
    const std::vector<QRectF> switches = shown(view, *layout, Kind::NetworkSwitch);
    QCOMPARE(switches.size(), std::size_t{64});
    double top = area.bottom();
    for (const QRectF& s : servers) top = std::min(top, s.top());
    for (std::size_t i = 0; i < switches.size(); ++i) {
      QVERIFY(area.contains(switches[i]));
      QVERIFY(switches[i].bottom() < top);
      for (std::size_t j = i + 1; j < switches.size(); ++j) QVERIFY(!switches[i].intersects(switches[j]));
    }
    // The picture uses the area: nearly its whole width and most of its height.
    QRectF used;
    for (const QRectF& r : servers) used = used.united(r);
    for (const QRectF& r : switches) used = used.united(r);
    QVERIFY2(used.width() >= 0.9 * area.width(), qPrintable(QString::number(used.width() / area.width())));
    QVERIFY2(used.height() >= 0.8 * area.height(), qPrintable(QString::number(used.height() / area.height())));
    QVERIFY(placed->rows() > 1);
  }

  // A click on a collapsed server shows its GPUs (and its NVSwitch); another hides them.
  void clickExpandsAServer() {
    auto layout = std::make_shared<const TopologyLayout>(syncsim::build_topology("dgx:nodes=16,gpus=8"), 128);
    RingPanel panel;
    showOn(panel, layout, QSize(1400, 860), "tree", 16);
    RingView& view = *panel.view();
    const int host = layout->hostBoxes()[5];
    QVERIFY(!view.serverExpanded(host));
    const QPointF centre = view.topologyTransform().mapRect(view.placement()->rect(host)).center();
    QSignalSpy toggled(&view, &RingView::serverToggled);
    QTest::mouseClick(&view, Qt::LeftButton, {}, centre.toPoint());
    QCOMPARE(toggled.count(), 1);
    QVERIFY(view.serverExpanded(host));
    QVERIFY(!view.placement()->collapsed(host));
    const QTransform map = view.topologyTransform();
    const QRectF server = map.mapRect(view.placement()->rect(host));
    int nvswitches = 0;
    for (std::size_t b = 0; b < layout->boxes().size(); ++b) {
      if (layout->hostOf(static_cast<int>(b)) != host) continue;
      QVERIFY(!view.placement()->rects()[b].isNull());
      QVERIFY(server.contains(map.mapRect(view.placement()->rects()[b])));
      nvswitches += layout->boxes()[b].kind == Kind::NvSwitch ? 1 : 0;
    }
    QCOMPARE(nvswitches, 1);
    // The other servers stay collapsed and still do not overlap it.
    for (const int other : layout->hostBoxes()) {
      if (other == host) continue;
      QVERIFY(view.placement()->collapsed(other));
      QVERIFY(!server.intersects(map.mapRect(view.placement()->rect(other))));
    }
    QTest::mouseClick(&view, Qt::LeftButton, {}, server.center().toPoint());
    QVERIFY(!view.serverExpanded(host));
  }

  // Rate labels never cover a box, a server's caption or one another — on 2 servers shown with their GPUs, on 16
  // collapsed ones (one row) and on 128 (rows of pods) — and there are labels to check.
  void labelsStayClearOfBoxesAndCaptions() {
    const std::pair<const char*, int> machines[] = {{"dgx:nodes=2,gpus=8,nic_bw=200Gbps", 16},
                                                    {"dgx:nodes=16,gpus=8,nic_bw=200Gbps", 128},
                                                    {"dgx:nodes=128,gpus=8,nic_bw=200Gbps", 1024}};
    for (const auto& [spec, ranks] : machines) {
      auto layout = std::make_shared<const TopologyLayout>(syncsim::build_topology(spec), ranks);
      RingPanel panel;
      showOn(panel, layout, QSize(1400, 860), "ring", 8);
      panel.setStep(3);
      (void)panel.view()->grab();
      const RingView& view = *panel.view();
      const std::vector<QRectF>& labels = view.rateLabels();
      QVERIFY2(!labels.empty(), spec);
      const QTransform map = view.topologyTransform();
      std::vector<QRectF> keepOut;
      for (const int host : layout->hostBoxes()) keepOut.push_back(map.mapRect(view.placement()->captionRect(host)));
      for (const Kind kind : {Kind::Gpu, Kind::Nic, Kind::NetworkSwitch}) {
        for (const QRectF& r : shown(view, *layout, kind)) keepOut.push_back(r);
      }
      for (std::size_t i = 0; i < labels.size(); ++i) {
        QVERIFY(QRectF(view.rect()).contains(labels[i]));
        for (const QRectF& r : keepOut) QVERIFY2(!labels[i].intersects(r), spec);
        for (std::size_t j = i + 1; j < labels.size(); ++j) QVERIFY2(!labels[i].intersects(labels[j]), spec);
      }
    }
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
