// ResolvedScenario::memory: the scenario's parallelism as the memory check's layout, in the framework whose buffers
// it follows (memory_check.hpp), and whose layout it is: Megatron's or PyTorch's (megatron_layout).
#include "resolved_scenario.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "tensor_overlap.hpp"

namespace syncsim::run {

MemoryReport ResolvedScenario::memory() const {
  const Scenario& s = *scenario_;
  const ParallelismConfig& p = s.parallelism;
  at_value(p.expert, [&] { check_experts(model_, p.expert.value); });
  at_value(p.tensor, [&] { check_model_split(model_, p.tensor.value, 1); });
  at_value(p.context, [&] { check_model_split(model_, 1, p.context.value); });
  MemoryLayout layout{.tensor = p.tensor.value,
                      .pipeline = p.pipeline.value,
                      .context = p.context.value,
                      .sharding = p.sharding.value,
                      .micro_batches = s.model.micro_batches,
                      .schedule = p.schedule.value,
                      .virtual_stages = p.virtual_stages ? p.virtual_stages->value : 1,
                      .checkpointing = p.activation_checkpointing.value,
                      .expert = p.expert.value};
  at_value(p.activation_checkpointing, [&] { check_checkpointing(model_, p.activation_checkpointing.value); });
  const std::int64_t data = workers_ / (p.tensor.value * p.pipeline.value * p.context.value);
  layout.shards = p.shard_group ? p.shard_group->value : data;
  layout.data = data;
  layout.framework = megatron_layout() ? MemoryFramework::megatron : MemoryFramework::pytorch;  // memory_check.hpp
  layout.split = p.pipeline_split();
  layout.compiled_loss = s.model.compile_loss.value;
  layout.sequence_parallel = p.sequence_parallel.value;
  layout.fp8_params = p.fp8_all_gather.value && p.sharding.value != ShardingLevel::full;
  layout.fp32_gradients = p.grad_reduce_in_fp32.value;
  // Transformer Engine's userbuffers, each of the b x s / c x h activation (NeMo's initialize_ub shape).
  const auto& t = model_.transformer();
  if (const UserbuffersConfig* config = userbuffers(); config && t) {
    const double elements = static_cast<double>(batch()) * static_cast<double>(t->sequence) /
                            static_cast<double>(p.context.value) * static_cast<double>(t->hidden);
    layout.userbuffers = userbuffers_bytes(*config, p.tensor.value, is_scaled(precision()), elements);
  }
  return at_pipeline_split(
      p, [&] { return memory_check(model_, gpu_, batch(), precision(), s.model.optimizer.value, layout); });
}

void ResolvedScenario::check_sequence_parallel() const {
  const ParallelismConfig& p = scenario_->parallelism;
  if (p.sequence_parallel.value || p.tensor.value == 1 || megatron_layout()) return;
  throw p.sequence_parallel.error(
      "full sharding beside tensor parallelism lays out PyTorch's (torchtitan's plan shards the norms' sequence with "
      "SequenceParallel); sequence_parallel: false is Megatron's layout, with sharding none, optimizer or gradients");
}

void ResolvedScenario::check_grad_reduce() const {
  const ParallelismConfig& p = scenario_->parallelism;
  if (!p.grad_reduce_in_fp32.key.empty() && !megatron_layout()) {
    throw p.grad_reduce_in_fp32.error(
        "sets Megatron's gradient buffer and reduction: it needs Megatron's layout (tensor, pipeline, context or "
        "expert parallelism, with sharding none, optimizer or gradients); PyTorch's DDP and FSDP reduce in the "
        "16-bit type here");
  }
  if (!p.tp_only_amax_red.key.empty() && !megatron_layout()) {
    throw p.tp_only_amax_red.error(
        "sets where Megatron's Transformer Engine reduces its FP8 amaxes: it needs Megatron's layout (tensor, "
        "pipeline, context or expert parallelism, with sharding none, optimizer or gradients); torchao's FP8 "
        "scales reduce no activation amaxes");
  }
}

const UserbuffersConfig* ResolvedScenario::userbuffers() const {
  const ParallelismConfig& p = scenario_->parallelism;
  if (!megatron_layout() || p.tensor.value < 2 || !p.tp_comm_overlap.value || !p.sequence_parallel.value) {
    return nullptr;
  }
  return p.userbuffers ? &p.userbuffers->value : &nemo_h100_userbuffers();
}

bool ResolvedScenario::megatron_layout() const {
  const ParallelismConfig& p = scenario_->parallelism;
  return syncsim::megatron_layout(p.tensor.value * p.pipeline.value * p.context.value * p.expert.value,
                                  p.sharding.value);
}

}  // namespace syncsim::run
