// parallelism.sequence_parallel: false, Megatron's tensor parallelism without sequence parallelism (Megatron-LM's
// default without --sequence-parallel, and the SC'21 runs): every tensor rank runs the residual stream's norms and
// adds whole and keeps its activations whole, an AllReduce replaces each all-gather and reduce-scatter pair, and
// the backward gathers nothing again. Hand-worked on Llama 3 8B at TP 4.
#include <catch2/catch.hpp>

#include <string>

#include "resolved_scenario.hpp"
#include "syncsim/compute/compute_model.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

// Llama 3 8B (32 blocks, h = 4,096) at 2,048 tokens, TP 4 x DP 2 on one DGX H100, Megatron's distributed optimizer.
std::string sp_yaml(const std::string& parallelism_extra) {
  return "name: sp\n"
         "cluster: {gpu: H100-SXM-80GB, topology: \"dgx:nodes=1,gpus=8\", speed_spread: 0}\n"
         "model: {name: llama3-8b, batch_per_gpu: 1, sequence_length: 2048, precision: bf16, optimizer: adam}\n"
         "training: {strategy: sync, iterations: 1}\n"
         "parallelism: {tensor: 4, data: auto, sharding: optimizer" +
         parallelism_extra + "}\n";
}

std::string error_of(const std::string& text) {
  try {
    run::run_scenario(parse_scenario(text, "sp.yaml"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const GroupCommunication& tensor_group(const TrainingReport& r) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == "tensor") return g;
  }
  FAIL("no tensor group");
  return r.group_communication.front();
}

}  // namespace

TEST_CASE("without sequence parallelism every tensor rank runs the residual stream's norms and adds whole") {
  const Scenario with = parse_scenario(sp_yaml(""), "with.yaml");
  const Scenario without = parse_scenario(sp_yaml(", sequence_parallel: false"), "without.yaml");
  run::Workspace workspace;
  const run::ResolvedScenario on(with, workspace);
  const run::ResolvedScenario off(without, workspace);
  const LayerTimes sp = on.layer_times();
  const LayerTimes whole = off.layer_times();
  const std::vector<Layer>& layers = on.model().layers();
  REQUIRE(whole.forward.size() == layers.size());
  int stream = 0;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    INFO(layers[l].name);
    if (!layers[l].shape.sequence_region) {
      CHECK(whole.forward[l] == sp.forward[l]);
      CHECK(whole.backward[l] == sp.backward[l]);
      continue;
    }
    // 2 RMSNorms and 2 residual adds a block, and the final norm: a quarter of the tokens each with, all without.
    ++stream;
    CHECK(sp.forward[l] == on.compute().forward(layers[l], 1, RankSplit{.tensor = 4}));
    CHECK(whole.forward[l] == on.compute().forward(layers[l], 1, RankSplit{.tensor = 1}));
    CHECK(whole.forward[l] > sp.forward[l]);
  }
  CHECK(stream == 32 * 4 + 1);
}

TEST_CASE("without sequence parallelism a tensor rank keeps the residual stream's activations whole") {
  // Per block the two norms' inputs and the first column-parallel products' (q and gate) inputs, and the final
  // norm's and the LM head's: 130 tensors of s x h at 2 bytes, of which a rank keeps a quarter with sequence
  // parallelism (Korthikanti et al.'s 10 sbh that it divides by t).
  const MemoryReport with = run::scenario_memory(parse_scenario(sp_yaml(""), "with.yaml"));
  const MemoryReport without = run::scenario_memory(parse_scenario(sp_yaml(", sequence_parallel: false"), "w.yaml"));
  const std::int64_t tensor = 2048LL * 4096 * 2;
  CHECK(without.activations.value - with.activations.value == 130 * (tensor - tensor / 4));
  CHECK(without.weights == with.weights);
  CHECK(without.optimizer_state == with.optimizer_state);
  // Full recomputation keeps each block's input: whole without sequence parallelism (2sbhL against 2sbhL / t).
  const std::string full = ", activation_checkpointing: full";
  const MemoryReport checkpointed = run::scenario_memory(parse_scenario(sp_yaml(full), "c.yaml"));
  const MemoryReport checkpointed_whole =
      run::scenario_memory(parse_scenario(sp_yaml(full + ", sequence_parallel: false"), "cw.yaml"));
  CHECK(checkpointed_whole.activations > checkpointed.activations);
}

TEST_CASE("without sequence parallelism the backward gathers nothing again, and the tensor group moves less") {
  const TrainingReport with = run::run_scenario(parse_scenario(sp_yaml(""), "with.yaml")).report;
  const TrainingReport without =
      run::run_scenario(parse_scenario(sp_yaml(", sequence_parallel: false"), "without.yaml")).report;
  const GroupCommunication& sp = tensor_group(with);
  const GroupCommunication& ar = tensor_group(without);
  CHECK_THAT(sp.collectives, Catch::Contains("all-gathered again"));
  CHECK_THAT(ar.collectives, !Catch::Contains("all-gathered again"));
  // Four AllReduces' worth a block and micro-batch either way, and with sequence parallelism its backward's two
  // column-parallel inputs gathered again: one more AllReduce's worth.
  CHECK(ar.bytes_per_gpu < sp.bytes_per_gpu);
  CHECK(ar.exposed < sp.exposed);
}

TEST_CASE("sequence_parallel: false writes back, and is refused beside tp_comm_overlap or PyTorch's layout") {
  const Scenario s = parse_scenario(sp_yaml(", sequence_parallel: false"), "w.yaml");
  CHECK_FALSE(parse_scenario(to_yaml(s), "again.yaml").parallelism.sequence_parallel.value);
  CHECK_THAT(error_of(sp_yaml(", tp_comm_overlap: true, sequence_parallel: false")),
             Catch::Contains("sp.yaml:5") && Catch::Contains("parallelism.sequence_parallel") &&
                 Catch::Contains("tp_comm_overlap needs sequence parallelism"));
  std::string fsdp = sp_yaml(", sequence_parallel: false");
  fsdp.replace(fsdp.find("sharding: optimizer"), 19, "sharding: full");
  CHECK_THAT(error_of(fsdp), Catch::Contains("parallelism.sequence_parallel") && Catch::Contains("PyTorch's"));
  CHECK_THAT(error_of(sp_yaml(", sequence_parallel: maybe")), Catch::Contains("parallelism.sequence_parallel"));
}
