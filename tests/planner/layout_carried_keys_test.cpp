// The layout search keeps the scenario's parallelism keys it does not search (layout_space.hpp): Megatron's pipeline
// splits and FSDP's FP8 all-gather go with every candidate they apply to, and a candidate's overrides restate them, so
// `syncsim run` of the chosen layout splits the stages as the plan did.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

const std::string kLayoutsScenario = SYNCSIM_PLANNER_DATA "/llama3-8b-layouts.yaml";  // 32 blocks

std::vector<LayoutChoice> candidates_of(const std::string& parallelism, std::int64_t gpus, SkipCounts& skipped,
                                        const std::string& precision = "bf16") {
  const Scenario written =
      load_scenario(kLayoutsScenario, {"parallelism=" + parallelism, "model.precision=" + precision});
  return layout_choices(layout_space(written), gpus, 64, skipped);
}

// The candidate's overrides, loaded, give back the keys it carries.
void check_round_trip(const LayoutChoice& c, const std::string& precision = "bf16") {
  std::vector<std::string> overrides = overrides_of(c, false);
  overrides.push_back("model.precision=" + precision);
  const Scenario s = load_scenario(kLayoutsScenario, overrides);
  const PipelineSplit split = s.parallelism.pipeline_split();
  CHECK(split.first_stage_blocks == c.split.first_stage_blocks);
  CHECK(split.last_stage_blocks == c.split.last_stage_blocks);
  CHECK(split.account_for_embedding == c.split.account_for_embedding);
  CHECK(split.account_for_loss == c.split.account_for_loss);
  CHECK(s.parallelism.fp8_all_gather.value == c.fp8_all_gather);
  CHECK(s.parallelism.sequence_parallel.value == c.sequence_parallel);
  CHECK(s.parallelism.grad_reduce_in_fp32.value == c.grad_reduce_in_fp32);
  CHECK(s.parallelism.tp_comm_overlap.value == c.tp_comm_overlap);
  const bool written = c.tp_comm_overlap && c.userbuffers && c.sharding != ShardingLevel::full;
  REQUIRE(s.parallelism.userbuffers.has_value() == written);
  if (written) CHECK(s.parallelism.userbuffers->value == *c.userbuffers);
}

}  // namespace

TEST_CASE("BF16 gradient reductions go with the candidates in Megatron's layout, and only with them") {
  SkipCounts skipped;
  int megatron = 0;
  int pytorch = 0;
  for (const LayoutChoice& c : candidates_of("{tensor: 2, grad_reduce_in_fp32: false}", 16, skipped)) {
    INFO(label_of(c));
    const bool split = c.tensor * c.pipeline * c.context * c.expert > 1;
    const bool in_megatron_layout = split && c.sharding != ShardingLevel::full;
    CHECK(c.grad_reduce_in_fp32 == !in_megatron_layout);
    (in_megatron_layout ? megatron : pytorch) += 1;
    check_round_trip(c);
  }
  CHECK(megatron > 0);
  CHECK(pytorch > 0);
}

TEST_CASE("an accounted pipeline split goes with every pipelined candidate whose slots divide") {
  SkipCounts skipped;
  const std::vector<LayoutChoice> choices = candidates_of(
      "{pipeline: 2, account_for_embedding_in_pipeline_split: true, account_for_loss_in_pipeline_split: true}", 64,
      skipped);
  // 32 blocks + the embedding + the loss = 34 slots: 2 stages of 17 (and 17 stages, which 64 GPUs do not divide);
  // 4, 8, 16 and 32 stages are refused as Megatron refuses them, and counted.
  int pipelined = 0;
  for (const LayoutChoice& c : choices) {
    INFO(label_of(c));
    if (c.pipeline == 1) {
      CHECK_FALSE(c.split.set());
      continue;
    }
    ++pipelined;
    CHECK(c.split.account_for_embedding);
    CHECK(c.split.account_for_loss);
    CHECK(34 % (c.pipeline * c.virtual_stages) == 0);
  }
  CHECK(pipelined > 0);
  CHECK(skipped.at("the scenario's pipeline split does not divide over these stages") > 0);
  for (const LayoutChoice& c : choices) {
    if (c.pipeline > 1 && c.virtual_stages == 1 && c.tensor == 4 && c.sharding == ShardingLevel::optimizer) {
      check_round_trip(c);
    }
  }
}

TEST_CASE("an uneven pipeline split goes with the candidates of the scenario's own stage count") {
  SkipCounts skipped;
  // 5 + 11 + 11 + 5 blocks over 4 stages; no count of them splits over 2 or more interleaved chunks.
  const std::vector<LayoutChoice> choices = candidates_of(
      "{pipeline: 4, decoder_first_pipeline_num_layers: 5, decoder_last_pipeline_num_layers: 5}", 64, skipped);
  int carried = 0;
  for (const LayoutChoice& c : choices) {
    INFO(label_of(c));
    if (c.pipeline == 4) {
      ++carried;
      CHECK(c.split.first_stage_blocks == 5);
      CHECK(c.split.last_stage_blocks == 5);
      CHECK(c.virtual_stages == 1);
    } else {
      CHECK_FALSE(c.split.set());  // the counts name blocks of 4 stages: other stage counts are cut by FLOPs
    }
  }
  CHECK(carried > 0);
  for (const LayoutChoice& c : choices) {
    if (c.pipeline == 4 && c.tensor == 2 && c.sharding == ShardingLevel::none) check_round_trip(c);
  }
}

TEST_CASE("FP8 all-gathers go with the sharded candidates: FSDP's without a pipeline or experts, and Megatron's") {
  SkipCounts skipped;
  const std::vector<LayoutChoice> choices = candidates_of("{sharding: full, fp8_all_gather: true}", 16, skipped, "fp8");
  int gathered = 0;
  int beside_a_split = 0;  // FSDP + TP or CP, torchtitan's Float8 2D and long-sequence runs
  int megatron = 0;        // the distributed optimizer's FP8 parameters (Megatron's --fp8-param-gather)
  for (const LayoutChoice& c : choices) {
    INFO(label_of(c));
    const bool fsdp = c.sharding == ShardingLevel::full && c.pipeline * c.expert == 1;
    const bool distributed_optimizer = c.sharding == ShardingLevel::optimizer || c.sharding == ShardingLevel::gradients;
    CHECK(c.fp8_all_gather == (fsdp || distributed_optimizer));
    if (c.fp8_all_gather) {
      ++gathered;
      if (fsdp && c.tensor * c.context > 1) ++beside_a_split;
      if (distributed_optimizer && c.pipeline > 1) ++megatron;
      check_round_trip(c, "fp8");
    }
  }
  CHECK(gathered > 0);
  CHECK(beside_a_split > 0);
  CHECK(megatron > 0);
}

TEST_CASE("without the keys, no candidate carries a split or FP8 all-gathers") {
  SkipCounts skipped;
  for (const LayoutChoice& c : candidates_of("{tensor: 8}", 64, skipped)) {
    CHECK_FALSE(c.split.set());
    CHECK_FALSE(c.fp8_all_gather);
  }
  CHECK(skipped.count("the scenario's pipeline split does not divide over these stages") == 0);
}

TEST_CASE("without sequence parallelism every candidate goes without it, and none shards fully beside TP") {
  SkipCounts skipped;
  const std::vector<LayoutChoice> choices = candidates_of("{tensor: 2, sequence_parallel: false}", 16, skipped);
  int tensor_split = 0;
  for (const LayoutChoice& c : choices) {
    INFO(label_of(c));
    CHECK_FALSE(c.sequence_parallel);
    CHECK_FALSE(c.tp_comm_overlap);
    if (c.tensor > 1) {
      ++tensor_split;
      CHECK(c.sharding != ShardingLevel::full);  // PyTorch's layout: its plan has SequenceParallel norms
    }
    check_round_trip(c);
  }
  CHECK(tensor_split > 0);
  CHECK(skipped.at("full sharding beside tensor parallelism without sequence parallelism (PyTorch's layout has it)") >
        0);
}

TEST_CASE("Transformer Engine's userbuffers configuration goes with the tensor-parallel candidates, and reads back") {
  // NeMo's ub_cfg keys on three layers, flags as its files write them (0 and 1); the rest left to TE.
  const std::string userbuffers =
      "{qkv_dgrad: {method: bulk, num_sm: 8, set_sm_margin: 0}, fc2_dgrad: {method: ring_exchange, aggregate: 1}, "
      "proj_fprop: {method: pipeline, num_sm: 20, num_splits: 2, set_sm_margin: 1, fp8_buf: 1}}";
  SkipCounts skipped;
  int megatron = 0;
  int pytorch = 0;
  for (const LayoutChoice& c :
       candidates_of("{tensor: 2, sharding: optimizer, tp_comm_overlap: " + userbuffers + "}", 16, skipped, "fp8")) {
    INFO(label_of(c));
    CHECK(c.tp_comm_overlap == (c.tensor > 1));
    CHECK(c.userbuffers.has_value() == (c.tensor > 1));
    if (c.tensor > 1) (c.sharding == ShardingLevel::full ? pytorch : megatron) += 1;
    check_round_trip(c, "fp8");
  }
  CHECK(megatron > 0);
  CHECK(pytorch > 0);
  // The configuration as read: the three layers with their keys, the other seven left out.
  const Scenario s = load_scenario(kLayoutsScenario, {"parallelism={tensor: 2, tp_comm_overlap: " + userbuffers + "}"});
  REQUIRE(s.parallelism.userbuffers);
  const UserbuffersConfig& config = s.parallelism.userbuffers->value;
  CHECK(config[UbLayer::qkv_dgrad] == UbLayerSettings{.method = UbMethod::bulk, .num_sm = 8, .set_sm_margin = false});
  CHECK(config[UbLayer::fc2_dgrad] == UbLayerSettings{.method = UbMethod::ring_exchange, .aggregate = true});
  CHECK(config[UbLayer::proj_fprop] ==
        UbLayerSettings{
            .method = UbMethod::pipeline, .num_sm = 20, .num_splits = 2, .set_sm_margin = true, .fp8_buf = true});
  int given = 0;
  for (const auto& layer : config.layers) given += layer ? 1 : 0;
  CHECK(given == 3);
  // The resolved scenario writes it back as read (the sweep's cache key, the Python module's to_yaml).
  const std::string yaml = to_yaml(s);
  const Scenario again = parse_scenario(yaml, "again.yaml");
  REQUIRE(again.parallelism.userbuffers);
  CHECK(again.parallelism.userbuffers->value == config);
  CHECK(to_yaml(again) == yaml);
}
