#pragma once
// The `parallelism:` section: how the GPUs split the model and its training state (docs/scenarios.md).
//
//   parallelism: {tensor: 8, pipeline: 4, data: auto, sharding: optimizer}
//
// GPUs = tensor x pipeline x context x data. The memory check (`syncsim memory`, memory_check.hpp) reads the whole
// layout; `syncsim run` simulates every layout but expert parallelism (the sharded and model-parallel engines), and
// says so at the key for what it does not.
#include <cstdint>
#include <optional>
#include <string_view>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/scenario/userbuffers_config.hpp"

namespace syncsim {

// The scenario's names: none | optimizer | gradients | full, 1f1b | interleaved | gpipe,
// none | selective | selective_op | full.
std::string_view to_string(ShardingLevel level);
std::string_view to_string(PipelineSchedule schedule);
std::string_view to_string(ActivationCheckpointing checkpointing);

// Megatron's layout: the model split (tensor x pipeline x context x expert above 1) and sharding none, optimizer or
// gradients; full sharding beside a split is PyTorch's (FSDP with torchtitan's plans). Memory, time and the keys
// only Megatron has (sequence_parallel: false, grad_reduce_in_fp32) follow it.
inline bool megatron_layout(std::int64_t model_split, ShardingLevel sharding) {
  return model_split > 1 && sharding != ShardingLevel::full;
}

struct ParallelismConfig {
  Located<std::int64_t> tensor{1, {}, {}};
  Located<std::int64_t> pipeline{1, {}, {}};
  Located<std::int64_t> context{1, {}, {}};
  Located<std::int64_t> expert{1, {}, {}};
  std::optional<Located<std::int64_t>> data;  // nullopt: auto, the GPUs left
  Located<ShardingLevel> sharding{ShardingLevel::none, {}, {}};
  std::optional<Located<std::int64_t>> shard_group;  // nullopt: all of the data-parallel ranks (no HSDP)
  Located<PipelineSchedule> schedule{PipelineSchedule::one_f_one_b, {}, {}};
  std::optional<Located<std::int64_t>> virtual_stages;  // interleaved only
  Located<ActivationCheckpointing> activation_checkpointing{ActivationCheckpointing::none, {}, {}};
  // Megatron's tp_comm_overlap (Transformer Engine's userbuffers): the tensor- and sequence-parallel all-gathers and
  // reduce-scatters run in chunks beside the GEMMs they feed or follow (layout_communication.hpp).
  Located<bool> tp_comm_overlap{false, {}, {}};
  // tp_comm_overlap given as TE's userbuffers configuration (userbuffers_config.hpp; Megatron's layouts); nullopt
  // under `true`: NeMo's H100 one.
  std::optional<Located<UserbuffersConfig>> userbuffers;
  // Megatron's sequence parallelism (--sequence-parallel, on in NeMo's and Megatron-Bridge's LLM recipes): the norms,
  // residual adds and dropouts split the sequence over the tensor group, with an all-gather before each
  // column-parallel run and a reduce-scatter after each row-parallel one. false: Megatron-LM's default without the
  // flag, an AllReduce after each row-parallel run and the residual stream whole on every tensor rank (its time and
  // its activations); Megatron's layouts only (FSDP beside tensor parallelism lays out PyTorch's SequenceParallel).
  Located<bool> sequence_parallel{true, {}, {}};
  // The sharded parameters gathered in FP8 under model.precision fp8 (weight_gather_bytes, bucket_plan.hpp): with
  // sharding full, torchao's float8 all-gather for FSDP (enable_fsdp_float8_all_gather); with sharding optimizer or
  // gradients, Megatron's FP8 parameters (--fp8-param-gather: the GEMMs' weights held in FP8 only).
  Located<bool> fp8_all_gather{false, {}, {}};
  // Megatron's gradient buffer and data-parallel reduction in FP32 (Megatron-LM's default with --bf16,
  // accumulate_allreduce_grads_in_fp32; DistributedDataParallelConfig.grad_reduce_in_fp32; Apex's distributed Adam
  // with grad_sync_dtype unset). false: both in the 16-bit type (--grad-reduce-in-bf16, NeMo's grad_sync_dtype: bf16).
  // Megatron's layouts only; PyTorch's DDP and FSDP reduce their gradients in the 16-bit type here.
  Located<bool> grad_reduce_in_fp32{true, {}, {}};
  // Megatron's tp_only_amax_red: Transformer Engine's FP8 amax all-reduces (delayed scaling, model.precision fp8) over
  // the tensor x context ranks only. false (Megatron Core 0.9 and later): over the pipeline stage's tensor x data x
  // context ranks; Core 0.8 always reduced over tensor x context, which this key writes. Megatron's layouts only.
  Located<bool> tp_only_amax_red{false, {}, {}};
  // Megatron's balanced pipeline splits, by its names (pipeline_split.hpp): blocks on the first and last stages
  // (decoder_first/last_pipeline_num_layers), or the embedding and the loss counted as layers
  // (account_for_embedding/loss_in_pipeline_split). Unset: the blocks evenly (pipeline_split.hpp).
  std::optional<Located<std::int64_t>> first_stage_blocks;
  std::optional<Located<std::int64_t>> last_stage_blocks;
  Located<bool> account_for_embedding{false, {}, {}};
  Located<bool> account_for_loss{false, {}, {}};

  PipelineSplit pipeline_split() const {
    return {.first_stage_blocks = first_stage_blocks ? first_stage_blocks->value : 0,
            .last_stage_blocks = last_stage_blocks ? last_stage_blocks->value : 0,
            .account_for_embedding = account_for_embedding.value,
            .account_for_loss = account_for_loss.value};
  }

  // Whether anything splits the model or shards its state (a plain data-parallel run otherwise).
  bool splits() const {
    return tensor.value > 1 || pipeline.value > 1 || context.value > 1 || expert.value > 1 ||
           sharding.value != ShardingLevel::none;
  }
};

}  // namespace syncsim
