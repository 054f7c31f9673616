// Sharded data parallelism end to end (parallelism.sharding, sharded_run.hpp): the report's per-GPU bus bytes per
// iteration are the closed forms 2 (d - 1)/d G without sharding and with ZeRO-1/2, 3 (d - 1)/d G with ZeRO-3,
// and what the engine does not simulate yet is refused at its key.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

constexpr const char* kShardedScenario = R"(
name: sharded
cluster: {gpu: A100-SXM4-80GB, topology: "switch:n=8,bw=100Gbps,lat=5us"}
model: {name: resnet50, batch_per_gpu: 32, precision: fp16}
training: {strategy: sync, iterations: 3}
)";

TrainingReport run_sharded_scenario(const std::vector<std::string>& overrides) {
  return run::run_scenario(parse_scenario(kShardedScenario, "sharded.yaml", overrides)).report;
}

constexpr double kGradientBytes = 2.0 * 25'557'032;  // fp16 gradients of ResNet-50
constexpr double kRanks = 8;

}  // namespace

TEST_CASE("data-parallel bus bytes per GPU per iteration: 2 (d-1)/d G, or 3 (d-1)/d G fully sharded") {
  const auto bytes = [](const char* sharding) {
    const TrainingReport r = run_sharded_scenario({fmt::format("parallelism.sharding={}", sharding)});
    REQUIRE(r.group_communication.size() == 1);
    CHECK(r.group_communication[0].group == "data");
    return r.group_communication[0].bytes_per_gpu;
  };
  const double two = 2 * (kRanks - 1) / kRanks * kGradientBytes;
  const double three = 3 * (kRanks - 1) / kRanks * kGradientBytes;
  CHECK(bytes("none") == Approx(two).epsilon(1e-12));
  CHECK(bytes("optimizer") == Approx(two).epsilon(1e-12));
  CHECK(bytes("gradients") == Approx(two).epsilon(1e-12));
  CHECK(bytes("full") == Approx(three).epsilon(1e-12));
}

TEST_CASE(
    "gradient accumulation: ZeRO-1 reduces once per step, ZeRO-2 per micro-batch, ZeRO-3 gathers per micro-batch") {
  const auto bytes = [](const char* sharding) {
    const TrainingReport r =
        run_sharded_scenario({fmt::format("parallelism.sharding={}", sharding), "model.micro_batches=4"});
    return r.group_communication.at(0).bytes_per_gpu;
  };
  const double share = (kRanks - 1) / kRanks * kGradientBytes;
  CHECK(bytes("optimizer") == Approx(2 * share).epsilon(1e-12));
  CHECK(bytes("gradients") == Approx((4 + 1) * share).epsilon(1e-12));
  CHECK(bytes("full") == Approx(3 * 4 * share).epsilon(1e-12));
  // Four micro-batches' compute per step, one step.
  const TrainingReport one = run_sharded_scenario({"parallelism.sharding=optimizer"});
  const TrainingReport four = run_sharded_scenario({"parallelism.sharding=optimizer", "model.micro_batches=4"});
  CHECK(four.per_worker[0].compute == one.per_worker[0].compute * 4);
  CHECK(four.per_worker[0].optimizer == one.per_worker[0].optimizer);
  CHECK(four.global_batch == 4 * one.global_batch);
}

TEST_CASE("HSDP: the shard group's collectives, plus 2 (r - 1)/r x G/s across the r replicas") {
  for (const auto& [sharding, passes] : {std::pair{"optimizer", 2.0}, std::pair{"full", 3.0}}) {
    const TrainingReport r =
        run_sharded_scenario({fmt::format("parallelism.sharding={}", sharding), "parallelism.shard_group=4"});
    REQUIRE(r.group_communication.size() == 1);
    const double s = 4;
    const double replicas = kRanks / s;
    const double expected = passes * (s - 1) / s * kGradientBytes + 2 * (replicas - 1) / replicas * kGradientBytes / s;
    CHECK(r.group_communication[0].bytes_per_gpu == Approx(expected).epsilon(1e-6));
    CHECK_THAT(r.group_communication[0].collectives, Catch::Contains("across replicas"));
    // Each rank steps 1/s of the optimizer.
    const TrainingReport plain = run_sharded_scenario({fmt::format("parallelism.sharding={}", sharding)});
    CHECK(r.per_worker[0].optimizer > plain.per_worker[0].optimizer);
  }
  CHECK_THROWS_WITH(run_sharded_scenario({"parallelism.sharding=full", "parallelism.shard_group=1"}),
                    Catch::Contains("a shard group of 1 shards nothing"));
}

TEST_CASE("a sharded optimizer steps 1/d of the parameters, and full sharding waits longer on its gathers") {
  const TrainingReport none = run_sharded_scenario({"parallelism.sharding=none"});
  const TrainingReport zero1 = run_sharded_scenario({"parallelism.sharding=optimizer"});
  const TrainingReport zero3 = run_sharded_scenario({"parallelism.sharding=full"});
  const auto step = [](const TrainingReport& r) { return r.per_worker.at(0).optimizer.ps() / r.iterations; };
  CHECK(step(zero1) == (step(none) + 7) / 8);  // ceil(step / 8)
  CHECK(zero3.group_communication[0].exposed >= zero1.group_communication[0].exposed);
  // The report's shares still add up: compute, optimizer, interference and exposed communication.
  for (const TrainingReport* r : {&zero1, &zero3}) {
    const WorkerReport& w = r->per_worker.at(0);
    CHECK(w.compute + w.optimizer + w.overlap_interference + w.exposed_communication == r->total);
  }
}

TEST_CASE("what sharded runs do not simulate yet is refused at its key") {
  CHECK_THROWS_WITH(run_sharded_scenario({"parallelism.sharding=full",
                                          "faults=[{at: 1ms, kind: worker_down, rank: 1, policy: elastic}]"}),
                    Catch::Contains("faults[0].policy: elastic recovery is not simulated yet with sharding"));
  CHECK_THROWS_WITH(run_sharded_scenario({"parallelism.sharding=full", "training.communication=parameter_server"}),
                    Catch::Contains("parameter servers are not simulated yet with sharding"));
  CHECK_THROWS_WITH(run_sharded_scenario({"parallelism.tensor=2"}),
                    Catch::Contains("parallelism.tensor: model 'resnet50' has no transformer blocks"));
}
