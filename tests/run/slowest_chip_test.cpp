// cluster.speed_spread end to end (chip_spread.hpp): a synchronous job computes at its slowest chip's pace, every
// layer and the optimizer step x the one factor; one GPU, asynchronous workers and an execution trace's times keep
// their own; hybrid's groups wait on their members; the key reads, writes back and refuses at its place.
#include <catch2/catch.hpp>

#include <string>

#include "resolved_scenario.hpp"
#include "syncsim/compute/chip_spread.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

// `gpus` of DGX nodes of 8 (the first `gpus` of one node below 8), ResNet-50 data parallel under `training`.
std::string chip_yaml(int gpus, const std::string& training, const std::string& cluster = "") {
  const int nodes = gpus < 8 ? 1 : gpus / 8;
  return "name: chips\n"
         "cluster: {gpu: A100-SXM4-80GB, topology: \"dgx:nodes=" +
         std::to_string(nodes) + ",gpus=8\", workers: " + std::to_string(gpus) + cluster +
         "}\n"
         "model: {name: resnet50, batch_per_gpu: 32, precision: fp16}\n"
         "training: {iterations: 2, " +
         training + "}\n";
}

struct Paced {
  double pace;
  LayerTimes layers;
  SimTime optimizer;
  SimTime single_gpu;
};

Paced resolve(const std::string& text) {
  const Scenario s = parse_scenario(text, "chips.yaml");
  run::Workspace workspace;
  const run::ResolvedScenario context(s, workspace);
  return {context.pace(), context.layer_times(), context.optimizer_step(), context.single_gpu_iteration()};
}

}  // namespace

TEST_CASE("a synchronous job's layers and optimizer step run at its slowest chip's pace, one GPU at the median's") {
  // 64 GPUs at the default 1% spread: 1 + 0.01 x 2.3437 (the expected maximum of 64 standard normals).
  const Paced identical = resolve(chip_yaml(64, "strategy: sync", ", speed_spread: 0"));
  const Paced paced = resolve(chip_yaml(64, "strategy: sync"));
  CHECK(identical.pace == 1);
  CHECK(paced.pace == slowest_chip_factor(0.01, 64));
  CHECK(paced.pace == Approx(1.023437).margin(1e-6));
  REQUIRE(paced.layers.forward.size() == identical.layers.forward.size());
  for (std::size_t l = 0; l < paced.layers.forward.size(); ++l) {
    CHECK(paced.layers.forward[l] == identical.layers.forward[l].scaled(paced.pace));
    CHECK(paced.layers.backward[l] == identical.layers.backward[l].scaled(paced.pace));
  }
  CHECK(paced.optimizer == identical.optimizer.scaled(paced.pace));
  // The scaling baseline is one median chip: the job's loss to its slowest one shows in the scaling efficiency.
  CHECK(paced.single_gpu == identical.single_gpu);
}

TEST_CASE("one GPU and asynchronous workers keep their own pace, hybrid's groups their members'") {
  CHECK(resolve(chip_yaml(1, "strategy: sync")).pace == 1);
  CHECK(resolve(chip_yaml(64, "strategy: async, communication: parameter_server")).pace == 1);
  // Hybrid: AllReduce inside each node's 8 GPUs, asynchronous between nodes.
  CHECK(resolve(chip_yaml(64, "strategy: hybrid, communication: parameter_server")).pace ==
        slowest_chip_factor(0.01, 8));
  CHECK(resolve(chip_yaml(64, "strategy: ssp, communication: parameter_server, staleness_bound: 3")).pace ==
        slowest_chip_factor(0.01, 64));
  CHECK(resolve(chip_yaml(64, "strategy: local_sgd, sync_every: 4")).pace == slowest_chip_factor(0.01, 64));
}

TEST_CASE("the report carries the slowest chip, and a wider spread slows the run by its factor") {
  const TrainingReport none =
      run::run_scenario(parse_scenario(chip_yaml(16, "strategy: sync", ", speed_spread: 0"), "a.yaml")).report;
  const TrainingReport wide =
      run::run_scenario(parse_scenario(chip_yaml(16, "strategy: sync", ", speed_spread: 0.05"), "b.yaml")).report;
  CHECK_FALSE(none.slowest_chip);
  REQUIRE(wide.slowest_chip);
  CHECK(wide.slowest_chip->gpus == 16);
  CHECK(wide.slowest_chip->speed_spread == 0.05);
  CHECK(wide.slowest_chip->factor == slowest_chip_factor(0.05, 16));
  CHECK(wide.iteration_mean > none.iteration_mean);
  CHECK(wide.single_gpu_iteration == none.single_gpu_iteration);
  CHECK(wide.scaling_efficiency < none.scaling_efficiency);
}

TEST_CASE("cluster.speed_spread writes back as read, and a spread outside [0, 0.2] is refused at its key") {
  const Scenario s = parse_scenario(chip_yaml(8, "strategy: sync", ", speed_spread: 0.03"), "c.yaml");
  REQUIRE(s.cluster.speed_spread);
  const Scenario again = parse_scenario(to_yaml(s), "again.yaml");
  REQUIRE(again.cluster.speed_spread);
  CHECK(again.cluster.speed_spread->value == 0.03);
  const auto error = [](const std::string& spread) {
    try {
      parse_scenario(chip_yaml(8, "strategy: sync", ", speed_spread: " + spread), "bad.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error("0.5"), Catch::Contains("bad.yaml:2") && Catch::Contains("cluster.speed_spread") &&
                               Catch::Contains("from 0 to 0.2"));
  CHECK_THAT(error("-0.01"), Catch::Contains("cluster.speed_spread"));
  CHECK_THAT(error("fast"), Catch::Contains("cluster.speed_spread"));
}
