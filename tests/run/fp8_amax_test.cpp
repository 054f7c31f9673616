// Transformer Engine's FP8 amax all-reduces in Megatron's layouts (layout_amax.cpp): one at the end of each pass,
// over the stage's tensor x data x context ranks (Megatron Core 0.9 and later) or, with tp_only_amax_red, its tensor x
// context ranks (Core 0.8); none in BF16. Llama 3 8B at 2,048 tokens on two DGX H100s, TP 4 x PP 2 x DP 2.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

TrainingReport run_layout(const std::string& precision, const std::string& parallelism_extra) {
  const std::string text =
      "name: amax\n"
      "cluster: {gpu: H100-SXM-80GB, topology: \"dgx:nodes=2,gpus=8\", speed_spread: 0}\n"
      "model: {name: llama3-8b, batch_per_gpu: 1, micro_batches: 4, sequence_length: 2048, precision: " +
      precision +
      ", optimizer: adam}\n"
      "training: {strategy: sync, iterations: 1}\n"
      "parallelism: {tensor: 4, pipeline: 2, data: auto, sharding: optimizer" +
      parallelism_extra + "}\n";
  return run::run_scenario(parse_scenario(text, "amax.yaml")).report;
}

const GroupCommunication& group(const TrainingReport& r, const std::string& name) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == name) return g;
  }
  FAIL("no group " << name);
  return r.group_communication.front();
}

}  // namespace

TEST_CASE("FP8 passes all-reduce their amaxes over the stage's tensor x data x context ranks") {
  const TrainingReport fp8 = run_layout("fp8", "");
  const TrainingReport tp_only = run_layout("fp8", ", tp_only_amax_red: true");
  const TrainingReport bf16 = run_layout("bf16", "");
  const std::string amax = "all_reduce of the FP8 amaxes";
  CHECK(group(fp8, "data")
            .collectives.find(amax + " at the end of each pass (delayed scaling) over tensor x data x "
                                     "context") != std::string::npos);
  CHECK(group(fp8, "tensor").collectives.find(amax) == std::string::npos);
  CHECK(group(tp_only, "tensor").collectives.find(amax) != std::string::npos);
  CHECK(group(tp_only, "data").collectives.find(amax) == std::string::npos);
  CHECK(group(bf16, "data").collectives.find(amax) == std::string::npos);
  CHECK(group(bf16, "tensor").collectives.find(amax) == std::string::npos);
  // Each chunk of 16 blocks has 64 TE modules (QKV, projection, FC1, FC2: K, V and up share their input), 3 amaxes
  // of 4 bytes each forward and 2 backward: 768 and 512 bytes a pass. A rank runs 4 passes each way per iteration:
  // 5,120 bytes, in bus bytes 2 (n - 1)/n of them over the 8 ranks of a stage (TP 4 x DP 2), or the 4 of a tensor
  // group.
  CHECK(group(fp8, "data").bytes_per_gpu - group(tp_only, "data").bytes_per_gpu ==
        Approx(5120.0 * 2 * 7 / 8).epsilon(1e-9));
  CHECK(group(tp_only, "tensor").bytes_per_gpu - group(fp8, "tensor").bytes_per_gpu ==
        Approx(5120.0 * 2 * 3 / 4).epsilon(1e-9));
  // Across the two nodes the stage-wide all-reduce takes longer than the tensor group's on NVLink, and every pass
  // waits for it.
  CHECK(group(fp8, "data").exposed > group(tp_only, "data").exposed);
  CHECK(fp8.iteration_mean > tp_only.iteration_mean);
}

TEST_CASE("tp_only_amax_red is Megatron's, refused outside its layouts") {
  const std::string text =
      "name: amax\n"
      "cluster: {gpu: H100-SXM-80GB, topology: \"dgx:nodes=1,gpus=8\"}\n"
      "model: {name: llama3-8b, batch_per_gpu: 1, sequence_length: 2048, precision: fp8, optimizer: adam}\n"
      "training: {strategy: sync, iterations: 1}\n"
      "parallelism: {sharding: optimizer, tp_only_amax_red: true}\n";
  CHECK_THROWS_WITH(run::run_scenario(parse_scenario(text, "amax.yaml")),
                    Catch::Contains("parallelism.tp_only_amax_red: sets where Megatron's Transformer Engine reduces "
                                    "its FP8 amaxes: it needs Megatron's layout"));
}
