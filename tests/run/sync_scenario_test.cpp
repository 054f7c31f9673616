// `syncsim run` for sync and local_sgd scenarios with degraded links and faults, through run_scenario: the
// engine's closed forms checked against the report, on a real topology (4 GPUs on one 100 Gbps switch).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

std::string sync_yaml(const std::string& topology, const std::string& extra = "") {
  return fmt::format(
      "name: four\n"
      "cluster: {{gpu: A100-SXM4-80GB, topology: \"{}\"}}\n"
      "model: {{name: resnet50, batch_per_gpu: 64, precision: fp16}}\n"
      "training: {{strategy: sync, iterations: 12, overlap: false}}\n"
      "{}",
      topology, extra);
}

constexpr const char* kSwitch = "switch:n=4,bw=100Gbps,lat=5us";

TrainingReport run_sync_yaml(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return run::run_scenario(parse_scenario(yaml, "four.yaml", overrides)).report;
}

std::string all_links(double factor, const std::string& from, const std::string& until = "") {
  std::string links = "degraded_links:\n";
  for (int g = 0; g < 4; ++g) {
    links += fmt::format("  - {{between: [gpu{}, sw0], factor: {}, from: {}{}}}\n", g, factor, from,
                         until.empty() ? "" : ", until: " + until);
  }
  return links;
}

}  // namespace

TEST_CASE("every link at half bandwidth is the same run as a switch of half the bandwidth", "[degraded_links]") {
  const TrainingReport intact = run_sync_yaml(sync_yaml(kSwitch));
  const TrainingReport half = run_sync_yaml(sync_yaml("switch:n=4,bw=50Gbps,lat=5us"));
  REQUIRE(half.total > intact.total);
  CHECK(run_sync_yaml(sync_yaml(kSwitch, all_links(0.5, "0s"))).total == half.total);
  // A window after the run's end changes nothing; one in the middle lands in between.
  CHECK(run_sync_yaml(sync_yaml(kSwitch, all_links(0.5, "1000s"))).total == intact.total);
  const SimTime middle = run_sync_yaml(sync_yaml(kSwitch, all_links(0.5, "100ms", "200ms"))).total;
  CHECK(middle > intact.total);
  CHECK(middle < half.total);
}

TEST_CASE("a degraded link that no scenario check saw is rejected at its entry", "[degraded_links]") {
  Scenario s = parse_scenario(sync_yaml(kSwitch, all_links(0.5, "0s")), "four.yaml");
  s.degraded_links[0].between.a.value = "gpu9";  // as a program building scenarios might
  try {
    run::run_scenario(s);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("degraded_links[0].between") != std::string::npos);
    CHECK(std::string(e.what()).find("no node 'gpu9'") != std::string::npos);
  }
  s.degraded_links[0].between.a.value = "gpu1";
  s.degraded_links[0].between.b.value = "gpu2";  // both exist, no link joins them
  CHECK_THROWS_WITH(run::run_scenario(s), Catch::Contains("no link joins 'gpu1' and 'gpu2'"));
}

TEST_CASE("a scenario restart: total = I T + (t - t_ckpt) + timeout + restart_cost, in report.json's fields",
          "[faults]") {
  const TrainingReport clean = run_sync_yaml(sync_yaml(kSwitch));
  const SimTime t_iter = clean.iteration_mean;
  REQUIRE(clean.total == t_iter * 12);  // no jitter: every iteration takes T
  // Fail rank 1 halfway through iteration 5 (0-based); checkpoints every 2 iterations: the last at 4 T.
  Scenario s = parse_scenario(sync_yaml(kSwitch,
                                        "faults: [{at: 1s, kind: worker_down, rank: 1}]\n"
                                        "checkpoint: {interval: 2, restart_cost: 3s}\n"
                                        "detection_timeout: 2s\n"),
                              "four.yaml");
  const SimTime t = t_iter * 5 + SimTime::from_ps(t_iter.ps() / 2);
  s.faults[0].at = t;
  const TrainingReport r = run::run_scenario(s).report;
  REQUIRE(r.faults.size() == 1);
  const FaultReport& f = r.faults[0];
  CHECK(f.kind == FaultKind::worker_down);
  CHECK(f.target == "rank 1");
  CHECK(f.policy == FaultPolicy::restart_from_checkpoint);
  CHECK(f.at == t);
  CHECK(f.detected == t + SimTime::from_seconds(2));
  CHECK(f.resumed == t + SimTime::from_seconds(5));
  CHECK(f.iterations_lost == 2);
  CHECK(f.lost_work == t - t_iter * 4);
  CHECK(f.downtime == SimTime::from_seconds(5));
  CHECK(f.workers_after == 4);
  CHECK(r.total == t_iter * 12 + (t - t_iter * 4) + SimTime::from_seconds(5));
  CHECK(r.lost_work == f.lost_work);
  CHECK(r.downtime == f.downtime);
  // The down time counts as idle, not as communication: the shares still sum to 1.
  CHECK(r.compute_share + r.optimizer_share + r.exposed_communication_share + r.idle_share == Approx(1));
}

TEST_CASE("link_down: the worker it cuts off fails, elastic goes on with 3, restart with 4", "[faults]") {
  const auto fault = [](const std::string& policy) {
    return "faults: [{at: 150ms, kind: link_down, between: [gpu3, sw0], policy: " + policy + "}]\n";
  };
  const TrainingReport elastic = run_sync_yaml(sync_yaml(kSwitch, fault("elastic")));
  REQUIRE(elastic.faults.size() == 1);
  CHECK(elastic.faults[0].kind == FaultKind::link_down);
  CHECK(elastic.faults[0].target == "gpu3 - sw0");
  CHECK(elastic.faults[0].workers_after == 3);
  CHECK(elastic.faults[0].iterations_lost == 1);
  const TrainingReport restart = run_sync_yaml(sync_yaml(kSwitch, fault("restart_from_checkpoint")));
  REQUIRE(restart.faults.size() == 1);
  CHECK(restart.faults[0].workers_after == 4);
  // Elastic trains fewer samples per iteration after the fault: its throughput is below global batch x I / total.
  const double full_batch = static_cast<double>(elastic.global_batch * elastic.iterations) / elastic.total.seconds();
  CHECK(elastic.samples_per_second < full_batch);
}

TEST_CASE("local SGD: total = I x single-GPU iteration + floor(I / K) x the buckets' AllReduce", "[local_sgd]") {
  // Identical chips: with a speed spread every compute time is x the slowest chip's pace (slowest_chip_test.cpp).
  const TrainingReport r = run_sync_yaml(
      sync_yaml(kSwitch), {"training.strategy=local_sgd", "training.sync_every=5", "cluster.speed_spread=0"});
  CHECK(r.strategy == "local_sgd");
  SimTime averaging;
  for (const BucketReport& b : r.buckets) averaging += b.allreduce_time;
  REQUIRE(averaging > SimTime::zero());
  CHECK(r.total == r.single_gpu_iteration * 12 + averaging * 2);
}
