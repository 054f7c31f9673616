// The goodput assessment's models (docs/faults.md, "Goodput"), each against its closed form: the failure table's
// expected count, the checkpoint's write and stall, Young's and Daly's optima, the sampler's mean, and the
// accounting that sums to the whole job.
#include <catch2/catch.hpp>

#include <cmath>

#include "checkpoint_cost.hpp"  // sim/run/src
#include "failure_table.hpp"
#include "goodput_model.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;
using namespace syncsim::run;

namespace {

// One source of interruptions at `per_hour`, nothing else: every cost written in the test.
GoodputInputs single_source(double per_hour) {
  GoodputInputs in;
  in.duration_seconds = 1000 * 3600.0;
  in.iteration_seconds = 10;
  in.sources = {{"software", per_hour, 0, 1}};  // takes no node down: no spare or repair in play
  in.detection_seconds = 30;
  in.restart_seconds = 600;
  in.restore_seconds = 60;
  in.stall_seconds = 60;
  in.interval_seconds = 1200;
  in.job_gpus = 64;
  in.gpus_per_node = 8;
  in.samples = 2000;
  in.seed = 7;
  return in;
}

double share_of(const GoodputOutcome& out, const std::string& cause) {
  for (const auto& [name, share] : out.badput) {
    if (name == cause) return share;
  }
  FAIL("no badput cause " << cause);
  return 0;
}

}  // namespace

TEST_CASE("the default table gives the Llama 3 paper's 419 interruptions on its cluster over 54 days") {
  // 2,048 hosts of 8 GPUs, one NIC per GPU, 1,280 switches: the components the table was derived on, so the
  // closed form returns the paper's count (its calibration, not a validation).
  const Topology topology = build_topology("dgx:nodes=2048,gpus=8");
  const ClusterComponents c = count_components(topology, 16384);
  CHECK(c.gpus == 16384);
  CHECK(c.hosts == 2048);
  CHECK(c.nics == 16384);
  CHECK(c.switches == 1280);
  CHECK(c.leaf_switches == 512);
  CHECK(c.nodes_per_leaf == 32);
  const double expected = expected_interruptions(failure_classes(llama3_failure_rates(), c), 54 * 24);
  CHECK(expected == Approx(419).epsilon(1e-12));
  // Half the GPUs for half the time: GPU, HBM, NIC, host and software failures scale with the job, the fabric's
  // switches do not (the job's traffic crosses all of them).
  const ClusterComponents half = count_components(topology, 8192);
  CHECK(half.hosts == 1024);
  CHECK(expected_interruptions(failure_classes(llama3_failure_rates(), half), 27 * 24) ==
        Approx((419.0 - 35) / 4 + 35.0 / 2).epsilon(1e-12));
}

TEST_CASE("a checkpoint writes at the slower of the storage and the nodes' links") {
  // 14 GB in all, 1 GB per rank, 4 hosts: min(2 GB/s, 4 x 0.25 GB/s) = 1 GB/s, so 14 s to write and to restore.
  const CheckpointStorage storage{Bandwidth::from_gb_per_s(2), Bandwidth::from_gb_per_s(0.25),
                                  Bandwidth::from_gb_per_s(32)};
  const CheckpointCost sync = checkpoint_cost(Bytes{14'000'000'000}, Bytes{1'000'000'000}, 4, storage, false);
  CHECK(sync.write_seconds == Approx(14));
  CHECK(sync.restore_seconds == Approx(14));
  CHECK(sync.stall_seconds == Approx(14));
  // Asynchronous: only the device-to-host copy of each rank's 1 GB at 32 GB/s stalls training.
  const CheckpointCost async = checkpoint_cost(Bytes{14'000'000'000}, Bytes{1'000'000'000}, 4, storage, true);
  CHECK(async.write_seconds == Approx(14));
  CHECK(async.stall_seconds == Approx(1.0 / 32));
  // 100 hosts: the storage's 2 GB/s binds.
  CHECK(checkpoint_cost(Bytes{14'000'000'000}, Bytes{1}, 100, storage, false).write_seconds == Approx(7));
}

TEST_CASE("Daly's optimal interval is within 5% of Young's in a hand-worked case") {
  // s = 60 s, M = 3 h = 10,800 s: Young sqrt(2 x 60 x 10,800) = sqrt(1,296,000) = 1,138.42 s. Daly: s / 2M =
  // 1/360, sqrt = 0.052705, so 1,138.42 x (1 + 0.017568 + 0.000309) - 60 = 1,098.77 s.
  CHECK(young_interval(60, 10800) == Approx(std::sqrt(1296000.0)));
  CHECK(daly_interval(60, 10800) == Approx(1098.77).epsilon(1e-5));
  CHECK(std::abs(daly_interval(60, 10800) / young_interval(60, 10800) - 1) < 0.05);
  // A save longer than twice the MTBF: checkpoint every MTBF.
  CHECK(daly_interval(100, 40) == 40);
}

TEST_CASE("the sampled interruptions' mean is the closed form's within four standard errors") {
  // 0.4 interruptions an hour for 1,000 h: Poisson with mean 400; the mean of 2,000 samples has a standard error of
  // sqrt(400 / 2000) = 0.447, so four of them is 1.79 (at this fixed seed).
  const GoodputOutcome out = assess_goodput(single_source(0.4));
  CHECK(std::abs(out.interruptions_mean - 400) < 4 * std::sqrt(400.0 / 2000));
  CHECK(out.p10 <= out.p50);
  CHECK(out.p50 <= out.p90);
  // Poisson's p10 and p90 at mean 400 are about 400 -+ 1.2816 x 20.
  CHECK(std::abs(static_cast<double>(out.p10) - (400 - 25.6)) < 3);
  CHECK(std::abs(static_cast<double>(out.p90) - (400 + 25.6)) < 3);
}

TEST_CASE("goodput and every badput cause sum to the GPU time paid for") {
  GoodputInputs in = single_source(0.4);
  in.sources = {{"gpu", 0.4, 1, 1}};  // every one takes a node down
  in.spares = 2;
  in.repair_seconds = 4 * 3600;
  in.straggler_seconds = 0.5;
  const GoodputOutcome out = assess_goodput(in);
  double sum = out.goodput;
  for (const auto& [cause, share] : out.badput) sum += share;
  CHECK(sum == Approx(1).epsilon(1e-9));
  // Two spares for 64 GPUs: 16 GPUs of 80 idle the whole job.
  CHECK(share_of(out, "spares_idle") == Approx(16.0 / 80));
  CHECK(share_of(out, "repair_wait") > 0);
  CHECK(out.ettr == Approx(out.goodput * 80 / 64));
}

TEST_CASE("without failures the checkpoints' stalls are the only badput") {
  // interval / (interval + stall) = 1200 / 1260 of the job trains.
  const GoodputOutcome out = assess_goodput(single_source(0));
  CHECK(out.interruptions_mean == 0);
  CHECK(out.ettr == Approx(1200.0 / 1260));
  CHECK(share_of(out, "checkpoint_save") == Approx(60.0 / 1260));
}

TEST_CASE("each interruption costs detection, restart and restore, and half an interval of lost progress") {
  // 0.4 an hour for 1,000 h: 400 x 30 s of detection, 400 x (600 + 60) s of restart, 400 x 600 s lost on average.
  const GoodputOutcome out = assess_goodput(single_source(0.4));
  const double job = 1000 * 3600.0;
  CHECK(share_of(out, "detection") == Approx(out.interruptions_mean * 30 / job));
  CHECK(share_of(out, "restart") == Approx(out.interruptions_mean * 660 / job));
  CHECK(share_of(out, "lost_progress") == Approx(out.interruptions_mean * 600 / job).epsilon(0.02));
  CHECK(share_of(out, "repair_wait") == 0);
}

TEST_CASE("the goodput maximum of an interval sweep is at the Young and Daly optimum") {
  GoodputInputs in = single_source(0.4);
  const double optimum = daly_interval(in.stall_seconds, 3600 / 0.4);
  double best_ettr = 0;
  double best = 0;
  for (const double factor : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    in.interval_seconds = optimum * factor;
    const double ettr = assess_goodput(in).ettr;
    if (ettr > best_ettr) {
      best_ettr = ettr;
      best = factor;
    }
  }
  CHECK(best == 1.0);
}

TEST_CASE("the assessment is the same for a seed and differs for another") {
  const GoodputInputs in = single_source(0.4);
  const GoodputOutcome a = assess_goodput(in);
  const GoodputOutcome b = assess_goodput(in);
  CHECK(a.ettr == b.ettr);
  CHECK(a.interruptions_mean == b.interruptions_mean);
  CHECK(a.badput == b.badput);
  GoodputInputs other = in;
  other.seed = 8;
  CHECK(assess_goodput(other).interruptions_mean != a.interruptions_mean);
}
