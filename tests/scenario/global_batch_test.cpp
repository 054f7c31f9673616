// model.global_batch: the batch held whatever the GPU count, the micro-batches derived from it, and the errors when
// the layout cannot hold it.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/global_batch.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

// 64 GPUs, tensor 8 x pipeline 2: 4 data-parallel ranks.
const std::string kLlm = R"(
cluster: {gpu: H100-SXM-80GB, topology: {kind: dgx, nodes: 8, gpus: 8}}
model: {name: llama3-8b, batch_per_gpu: 2, global_batch: 64}
parallelism: {tensor: 8, pipeline: 2}
)";

std::string message_of(const std::string& yaml, const std::vector<std::string>& overrides) {
  try {
    (void)parse_scenario(yaml, "llm.yaml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the micro-batches are the global batch over data-parallel ranks and micro-batch size") {
  CHECK(parse_scenario(kLlm, "llm.yaml").model.micro_batches == 64 / (4 * 2));
  // Twice the GPUs, the same batch: half the micro-batches per rank.
  CHECK(parse_scenario(kLlm, "llm.yaml", {"cluster.topology.nodes=16"}).model.micro_batches == 4);
  // A micro_batches that agrees is accepted.
  CHECK(parse_scenario(kLlm, "llm.yaml", {"model.micro_batches=8"}).model.micro_batches == 8);
}

TEST_CASE("a global batch the layout cannot hold is an error at model.global_batch") {
  const std::string indivisible = message_of(kLlm, {"model.global_batch=100"});
  CHECK(indivisible.find("model.global_batch") != std::string::npos);
  CHECK(indivisible.find("not a multiple of data-parallel size 4 x batch_per_gpu 2 = 8") != std::string::npos);
  const std::string disagree = message_of(kLlm, {"model.micro_batches=3"});
  CHECK(disagree.find("is 8 micro-batches, but model.micro_batches says 3") != std::string::npos);
  CHECK(message_of(kLlm, {"model.global_batch=0"}).find("model.global_batch") != std::string::npos);
}

TEST_CASE("split_global_batch refuses more micro-batches than a scenario may have") {
  CHECK(split_global_batch(kMaxMicroBatches * 2, 1, 1).refusal.has_value());
  const MicroBatchSplit ok = split_global_batch(2048, 128, 1);
  CHECK(ok.micro_batches == 16);
  CHECK_FALSE(ok.refusal);
}

TEST_CASE("a scenario written back keeps its global batch, not the micro-batches it derived") {
  const Scenario s = parse_scenario(kLlm, "llm.yaml");
  const std::string yaml = to_yaml(s);
  CHECK(yaml.find("global_batch: 64") != std::string::npos);
  CHECK(yaml.find("micro_batches") == std::string::npos);
}
