// Ring view benchmark: a DGX machine of --nodes servers (default 128: 1,024 GPUs, 2,240 nodes, 4,096 links) and the
// AllReduce the simulator runs there, drawn by the ring view (docs/gui.md gives the figures and the target: a frame
// <= 50 ms).
//
// Measured, each the median of --repeat runs:
//   layout      TopologyLayout: the machine's boxes, edges and router (once per scenario)
//   traffic     CollectiveTraffic: the channels' schedules and per-link bytes (once per algorithm and bucket)
//   step        RingStepModel::setStep at the middle step (state and markers)
//   frame       RingView::grab(): placement (cached after the first), links, labels, boxes, all channels lit
//   expanded    the same with two servers shown with their GPUs (the placement rebuilt each time)
//
//   syncsim-gui-bench-ring [--nodes 128] [--algorithm tree|ring] [--channels 16] [--width 1400] [--height 860]
//                          [--repeat 9] [--max-ms 50]
// Prints wall and thread CPU time. Exits 1 when the frame's median CPU time is above --max-ms (if given).
#include <QApplication>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "models/collective_traffic.h"
#include "models/ring_step_model.h"
#include "models/topology_layout.h"
#include "syncsim/topology/topology_spec.hpp"
#include "widgets/ring_panel.h"
#include "widgets/ring_view.h"

int main(int argc, char* argv[]) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = QApplication::arguments();
  const int nodes = benchIntArg(args, "--nodes", 128);
  const auto algorithm = parseCollectiveAlgorithm(benchArg(args, "--algorithm", "tree"));
  const int width = benchIntArg(args, "--width", 1400);
  const int height = benchIntArg(args, "--height", 860);
  const int repeat = std::max(1, benchIntArg(args, "--repeat", 9));
  const int maxMs = benchIntArg(args, "--max-ms", 0);
  if (!algorithm) {
    std::fprintf(stderr, "--algorithm: expected ring, tree or halving_doubling\n");
    return 2;
  }
  const std::string spec = "dgx:nodes=" + std::to_string(nodes) + ",gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps";
  const int ranks = nodes * 8;

  std::shared_ptr<const TopologyLayout> layout;
  const Timing layoutMs = median(std::min(repeat, 3), [&] {
    layout = std::make_shared<const TopologyLayout>(syncsim::build_topology(spec), ranks);
  });
  const int channels =
      benchIntArg(args, "--channels", CollectiveTraffic::defaultChannels(layout.get(), *algorithm, ranks));
  const CollectiveTraffic::Spec trafficSpec{
      *algorithm, ranks, channels, QStringLiteral("simple"), 80, {}, syncsim::CollectiveOp::allreduce};
  std::shared_ptr<const CollectiveTraffic> traffic;
  const Timing trafficMs =
      median(std::min(repeat, 3), [&] { traffic = std::make_shared<const CollectiveTraffic>(layout, trafficSpec); });
  std::printf("ring view: %s, %d ranks, %s on %d channels (%d steps), frame %dx%d\n", spec.c_str(), ranks,
              qPrintable(collectiveAlgorithmName(*algorithm)), traffic->channelCount(), traffic->stepCount(), width,
              height);

  // The panel as the window has it, following a 24 MB AllReduce of 400 us on that machine.
  RingPanel panel;
  panel.setAttribute(Qt::WA_DontShowOnScreen);
  panel.resize(width, height);
  panel.show();
  panel.setTopology(layout, 80);
  TimelineSpan bucket;
  bucket.bytes = 24'160'256;
  bucket.durationPs = 400'000'000;
  bucket.peers = ranks;
  bucket.bucket = 0;
  bucket.algorithm = *algorithm;
  bucket.flags = TimelineSpan::HasBytes | TimelineSpan::HasPeers | TimelineSpan::HasAlgorithm | TimelineSpan::HasBucket;
  panel.follow(bucket, ranks,
               BucketRun{*algorithm == CollectiveAlgorithm::Ring ? QStringLiteral("ring") : QStringLiteral("tree"),
                         channels, QStringLiteral("simple")});
  QCoreApplication::processEvents();
  const int middle = panel.stepCount() / 2;
  const Timing stepMs = median(repeat, [&] {
    panel.model()->setStep(0);
    panel.model()->setStep(middle);
  });
  const Timing frameMs = median(repeat, [&] { (void)panel.view()->grab(); });
  const Timing expandedMs = median(repeat, [&] {
    const auto& hosts = layout->hostBoxes();
    panel.view()->setExpandedServers({hosts.front(), hosts[hosts.size() / 2]});
    (void)panel.view()->grab();
  });

  std::printf("median of %d runs                             wall ms   cpu ms\n", repeat);
  printTiming("layout    (TopologyLayout, once per scenario)", layoutMs);
  printTiming("traffic   (channels and per-link bytes)", trafficMs);
  printTiming("step      (setStep 0, then the middle step)", stepMs);
  printTiming("frame     (RingView::grab, all channels lit)", frameMs);
  printTiming("expanded  (two servers opened, placed again)", expandedMs);
  if (maxMs > 0 && frameMs.cpuMs > maxMs) {
    std::printf("FAIL: frame %.2f ms of CPU > %d ms\n", frameMs.cpuMs, maxMs);
    return 1;
  }
  return 0;
}
