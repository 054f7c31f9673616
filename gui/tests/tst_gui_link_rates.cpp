// The ring view's link rates (collective_traffic.h) against the simulator's own per-link numbers: for an AllReduce
// simulate_collective reports every link's bytes (CollectiveOutcome::links); the view's bytes per link, summed over
// the channels the simulator split the buffer into, must be the same, and bytes / time never above the link's
// capacity.
//
//   dgx:nodes=2,gpus=8, 24,160,256 bytes (ResNet-50's second bucket), ring: 8 channels (one per rail), each a ring of
//   16 ranks over S/8; a NIC link carries one channel's transfer per step and direction, 30 steps of S/8/16:
//   5,662,560 bytes in 244.8 us (Simple): 23.1 GB/s of 25.
#include <QtTest>

#include "models/collective_traffic.h"
#include "models/topology_layout.h"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace {

const char* const kTwoDgx = "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps,net_lat=2us";
constexpr qint64 kBucket = 24'160'256;
constexpr int kA100 = 80;

struct Compared {
  int links = 0;           // links with traffic, in the simulator's outcome
  double maxShare = 0;     // of a link's capacity, the view's rate
  double maxMismatch = 0;  // relative, view against simulator
};

// Simulates the AllReduce and compares every directed link's bytes with the view's.
Compared compare(const char* spec, int ranks, syncsim::Algorithm algorithm, CollectiveAlgorithm drawn,
                 std::optional<syncsim::Protocol> protocol, const QString& protocolName, qint64 bytes) {
  syncsim::Topology topology = syncsim::build_topology(spec);
  syncsim::Router router(topology);
  syncsim::CollectiveSpec c;
  c.size = syncsim::Bytes{bytes};
  c.ranks = static_cast<std::size_t>(ranks);
  c.algorithm = algorithm;
  c.latency = protocol ? syncsim::LatencySource::nccl : syncsim::LatencySource::physical;
  c.protocol = protocol;
  c.compute_capability = kA100;
  const syncsim::CollectiveOutcome out = syncsim::simulate_collective(router, c);

  auto layout = std::make_shared<const TopologyLayout>(topology, ranks);
  const CollectiveTraffic traffic(
      layout,
      {drawn, ranks, static_cast<int>(out.channels), protocolName, kA100, {}, syncsim::CollectiveOp::allreduce});
  const std::vector<double> view = traffic.edgeBytes(bytes, std::nullopt);
  std::vector<double> simulated(view.size(), 0.0);
  Compared result;
  for (const syncsim::LinkTraffic& t : out.links) {
    simulated[static_cast<std::size_t>(layout->useOfLink(t.link.value()).directed())] = t.bytes_carried;
    ++result.links;
  }
  for (std::size_t e = 0; e < view.size(); ++e) {
    const double scale = std::max(1.0, simulated[e]);
    result.maxMismatch = std::max(result.maxMismatch, std::abs(view[e] - simulated[e]) / scale);
    const double capacity = layout->edges()[e / 2].bytesPerSecond;
    result.maxShare = std::max(result.maxShare, view[e] / out.time.seconds() / capacity);
  }
  qInfo("%d links, view/simulator mismatch %.3g, busiest link at %.4f of its capacity", result.links,
        result.maxMismatch, result.maxShare);
  return result;
}

}  // namespace

class TestGuiLinkRates : public QObject {
  Q_OBJECT
 private slots:
  // 8 rings, one per rail: the view's per-link bytes are the simulator's, and no link is above its capacity (one
  // ring drawn for the whole buffer showed 172 GB/s on a 25 GB/s NIC link).
  void ringOnTwoDgxNodesMatchesTheSimulator() {
    const Compared simple = compare(kTwoDgx, 16, syncsim::Algorithm::ring, CollectiveAlgorithm::Ring,
                                    syncsim::Protocol::simple, QStringLiteral("simple"), kBucket);
    QVERIFY(simple.links > 0);
    QVERIFY2(simple.maxMismatch < 1e-9, qPrintable(QString::number(simple.maxMismatch)));
    QVERIFY2(simple.maxShare <= 1.0, qPrintable(QString::number(simple.maxShare)));
    QVERIFY(simple.maxShare > 0.9);  // the NIC links: 23.1 of 25 GB/s
    // LL puts four bytes on the wire for each byte of payload: the view counts them as the simulator does.
    const Compared ll = compare(kTwoDgx, 16, syncsim::Algorithm::ring, CollectiveAlgorithm::Ring, syncsim::Protocol::ll,
                                QStringLiteral("ll"), 4'098'000);
    QVERIFY2(ll.maxMismatch < 1e-9, qPrintable(QString::number(ll.maxMismatch)));
    QVERIFY(ll.maxShare <= 1.0);
    // Without the nccl latency model: payload bytes, the physical cost.
    const Compared physical =
        compare(kTwoDgx, 16, syncsim::Algorithm::ring, CollectiveAlgorithm::Ring, std::nullopt, QString(), kBucket);
    QVERIFY(physical.maxMismatch < 1e-9);
    QVERIFY(physical.maxShare <= 1.0);
  }

  // A tree on 4 DGX nodes runs 16 channels (a pair of trees per rail, each pair on its own chain); LL128.
  void treeOnFourDgxNodesMatchesTheSimulator() {
    const Compared tree =
        compare("dgx:nodes=4,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps,net_lat=2us", 32, syncsim::Algorithm::tree,
                CollectiveAlgorithm::Tree, syncsim::Protocol::ll128, QStringLiteral("ll128"), kBucket);
    QVERIFY(tree.links > 0);
    QVERIFY2(tree.maxMismatch < 1e-9, qPrintable(QString::number(tree.maxMismatch)));
    QVERIFY(tree.maxShare <= 1.0);
  }

  // Halving-doubling on one channel per rail as well.
  void halvingDoublingMatchesTheSimulator() {
    const Compared hd = compare(kTwoDgx, 16, syncsim::Algorithm::halving_doubling, CollectiveAlgorithm::HalvingDoubling,
                                syncsim::Protocol::simple, QStringLiteral("simple"), kBucket);
    QVERIFY2(hd.maxMismatch < 1e-9, qPrintable(QString::number(hd.maxMismatch)));
    QVERIFY(hd.maxShare <= 1.0);
  }

  // The channels split the buffer as the simulator does: S / C each, the last the remainder.
  void channelsSplitTheBuffer() {
    QCOMPARE(CollectiveTraffic::channelBytes(10, 0, 3), 3.0);
    QCOMPARE(CollectiveTraffic::channelBytes(10, 2, 3), 4.0);
    double sum = 0;
    for (int c = 0; c < 8; ++c) sum += CollectiveTraffic::channelBytes(kBucket + 5, c, 8);
    QCOMPARE(sum, static_cast<double>(kBucket + 5));
  }

  // Rates print with three significant digits and no trailing zeros: 12.5 GB/s is not "13".
  void ratesKeepTheirDigits() {
    QCOMPARE(formatRateGbps(12.5e9), QStringLiteral("12.5"));
    QCOMPARE(formatRateGbps(25e9), QStringLiteral("25"));
    QCOMPARE(formatRateGbps(23.14e9), QStringLiteral("23.1"));
    QCOMPARE(formatRateGbps(300e9), QStringLiteral("300"));
    QCOMPARE(formatRateGbps(172.03e9), QStringLiteral("172"));
    QCOMPARE(formatRateGbps(0.0417e9), QStringLiteral("0.0417"));
    QCOMPARE(formatRateGbps(1250e9), QStringLiteral("1250"));
    QCOMPARE(formatRateGbps(99.96e9), QStringLiteral("100"));
  }
};

QTEST_GUILESS_MAIN(TestGuiLinkRates)
#include "tst_gui_link_rates.moc"
