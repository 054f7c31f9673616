// Stragglers, faults and degraded links with layouts and sharding, end to end: what the engines of alike ranks
// (model_parallel_run.hpp, sharded_run.hpp) do with the scenario's perturbation keys, and what they still refuse.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/training/training_report.hpp"

using namespace syncsim;

namespace {

// Llama 3 8B on four 8-GPU H100 nodes: TP 8 x PP 2 x DP 2.
constexpr const char* kLayout = R"(
name: layout-perturbed
cluster:
  gpu: H100-SXM-80GB
  topology: {kind: dgx, nodes: 4, gpus: 8, nvlink_bw: 450GB/s, nic_bw: 400Gbps}
model: {name: llama3-8b, batch_per_gpu: 1, micro_batches: 8, sequence_length: 2048, precision: bf16}
training: {strategy: sync, iterations: 4}
parallelism: {tensor: 8, pipeline: 2}
)";

// ResNet-50 under ZeRO-1 on 8 GPUs behind one switch.
constexpr const char* kSharded = R"(
name: sharded-perturbed
cluster: {gpu: A100-SXM4-80GB, topology: "switch:n=8,bw=100Gbps,lat=5us"}
model: {name: resnet50, batch_per_gpu: 32, precision: fp16}
training: {strategy: sync, iterations: 4}
parallelism: {sharding: optimizer}
)";

TrainingReport run_perturbed(const char* yaml, const std::vector<std::string>& overrides) {
  return run::run_scenario(parse_scenario(yaml, "perturbed.yaml", overrides)).report;
}

double cause(const TrainingReport& r, const std::string& name) {
  double share = 0;
  for (const auto& c : r.causes) {
    if (c.cause == name) share += c.per_iteration.seconds();
  }
  return share;
}

}  // namespace

TEST_CASE("a slow GPU slows a layout's iteration, and the others' wait is the stragglers'") {
  const TrainingReport base = run_perturbed(kLayout, {});
  // Rank 20: tensor member 4 of replica 0's stage 1 (rank = t + 8 (d + 2 p)).
  const TrainingReport slow = run_perturbed(kLayout, {"stragglers.slow=[{rank: 20, factor: 1.5}]"});
  CHECK(slow.total > base.total);
  CHECK(slow.per_worker.at(0).straggler_wait > SimTime::zero());
  CHECK(base.per_worker.at(0).straggler_wait == SimTime::zero());
  CHECK(cause(slow, "stragglers") > 0);
  // The same scenario and seed give the same report, jitter included.
  const auto jitter = [] {
    return to_json(run_perturbed(kLayout, {"stragglers.jitter={distribution: lognormal, sigma: 0.1}"})).dump();
  };
  CHECK(jitter() == jitter());
}

TEST_CASE("a slow rank under sharding: the run at its pace, the others wait its extra compute") {
  const TrainingReport base = run_perturbed(kSharded, {});
  const TrainingReport slow = run_perturbed(kSharded, {"stragglers.slow=[{rank: 3, factor: 2}]"});
  CHECK(slow.total > base.total);
  const WorkerReport& fast = slow.per_worker.at(0);
  const WorkerReport& slowest = slow.per_worker.at(3);
  CHECK(slowest.straggler_wait == SimTime::zero());
  CHECK(fast.compute + fast.straggler_wait == slowest.compute);
  CHECK(fast.compute == base.per_worker.at(0).compute);
}

TEST_CASE("a fault stops a layout's whole job: total = the fault-free run + lost work + downtime") {
  const TrainingReport base = run_perturbed(kLayout, {});
  for (const char* target : {"kind: worker_down, rank: 9", "kind: link_down, between: [nic0, leaf0]"}) {
    CAPTURE(target);
    // Half-way through the run, detected after 1 s, restarted in 2 s, checkpoints every 2 iterations.
    const std::string at = std::to_string(base.total.seconds() / 2) + "s";
    const TrainingReport r =
        run_perturbed(kLayout, {"faults=[{at: " + at + ", " + target + "}]", "detection_timeout=1s",
                                "checkpoint={interval: 2, restart_cost: 2s}"});
    REQUIRE(r.faults.size() == 1);
    CHECK(r.faults[0].downtime == SimTime::from_seconds(3));
    CHECK(r.total == base.total + r.lost_work + r.downtime);
  }
  const TrainingReport sharded =
      run_perturbed(kSharded, {"faults=[{at: 10ms, kind: worker_down, rank: 2}]", "checkpoint={restart_cost: 1s}"});
  REQUIRE(sharded.faults.size() == 1);
  CHECK(sharded.faults[0].lost_work == SimTime::from_ms(10));  // no checkpoint but the initial state
}

TEST_CASE("a link degraded for the whole run slows the collectives that cross it") {
  const TrainingReport base = run_perturbed(kSharded, {});
  const TrainingReport slow = run_perturbed(kSharded, {"degraded_links=[{between: [gpu0, sw0], factor: 0.25}]"});
  CHECK(slow.total > base.total);
}

TEST_CASE("what layouts and sharding still refuse among the perturbations is refused at its key") {
  CHECK_THROWS_WITH(run_perturbed(kLayout, {"faults=[{at: 1ms, kind: worker_down, rank: 1, policy: elastic}]"}),
                    Catch::Contains("faults[0].policy: elastic recovery is not simulated yet with a model-parallel"));
  CHECK_THROWS_WITH(run_perturbed(kSharded, {"degraded_links=[{between: [gpu0, sw0], factor: 0.5, from: 1ms}]"}),
                    Catch::Contains("degraded_links[0]: a degradation window is not simulated yet with sharding"));
}

TEST_CASE("overheads an engine does not run are refused at their keys, never left out in silence") {
  // DDP's bookkeeping is the DDP engine's alone; the slowdown beside the gradient collectives every synchronous
  // engine runs.
  CHECK_THROWS_WITH(run_perturbed(kLayout, {"training.framework_overhead=2ms"}),
                    Catch::Contains("training.framework_overhead: DDP's per-iteration bookkeeping is simulated for "
                                    "plain data parallelism, not with a tensor, pipeline, context or expert layout"));
  const TrainingReport layout_none = run_perturbed(kLayout, {"training.overlap_slowdown=0"});
  const TrainingReport layout_much = run_perturbed(kLayout, {"training.overlap_slowdown=5"});
  CHECK(layout_none.overlap_interference_share == 0);
  CHECK(layout_much.overlap_interference_share > 0);
  CHECK(layout_much.iteration_mean >= layout_none.iteration_mean);
  CHECK_THROWS_WITH(run_perturbed(kSharded, {"training.framework_overhead=2ms"}),
                    Catch::Contains("training.framework_overhead: ") && Catch::Contains("not with sharding"));
  // The sharded engine slows backward beside its reduce-scatters: the key counts there.
  const TrainingReport none = run_perturbed(kSharded, {"training.overlap_slowdown=0"});
  const TrainingReport half = run_perturbed(kSharded, {"training.overlap_slowdown=0.5"});
  CHECK(half.iteration_mean > none.iteration_mean);
}
