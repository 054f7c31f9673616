#include "syncsim/scenario/global_batch.hpp"

#include <fmt/format.h>

namespace syncsim {

MicroBatchSplit split_global_batch(std::int64_t global_batch, std::int64_t data, std::int64_t batch_per_gpu) {
  // data and batch_per_gpu are at most 2^40 and 2^24 (workers and batch bounds): the product cannot overflow.
  const std::int64_t per_micro_batch = data * batch_per_gpu;
  if (global_batch % per_micro_batch != 0) {
    return {0, fmt::format("a global batch of {} is not a multiple of data-parallel size {} x batch_per_gpu {} = {}",
                           global_batch, data, batch_per_gpu, per_micro_batch)};
  }
  const std::int64_t micro = global_batch / per_micro_batch;
  if (micro > kMaxMicroBatches) {
    return {0, fmt::format("a global batch of {} over data-parallel size {} x batch_per_gpu {} is {} micro-batches, "
                           "more than {}",
                           global_batch, data, batch_per_gpu, micro, kMaxMicroBatches)};
  }
  return {micro, std::nullopt};
}

namespace {

// Megatron's interleaved schedule runs the micro-batches in groups of the pipeline's stages; found by fuzzing, the
// engine's own check said so with no place to look.
void check_interleaved_groups(const Scenario& scenario) {
  const ParallelismConfig& p = scenario.parallelism;
  const ModelConfig& m = scenario.model;
  if (p.schedule.value != PipelineSchedule::interleaved || m.micro_batches % p.pipeline.value == 0) return;
  throw p.schedule.error(
      fmt::format("the interleaved schedule needs model.micro_batches in multiples of the {} "
                  "pipeline stages, got {}{}",
                  p.pipeline.value, m.micro_batches, m.global_batch ? " (from model.global_batch)" : ""));
}

}  // namespace

void derive_micro_batches(Scenario& scenario, std::int64_t workers) {
  ModelConfig& m = scenario.model;
  if (!m.global_batch) {
    check_interleaved_groups(scenario);
    return;
  }
  const ParallelismConfig& p = scenario.parallelism;
  const std::int64_t data = workers / (p.tensor.value * p.pipeline.value * p.context.value);
  const MicroBatchSplit split = split_global_batch(m.global_batch->value, data, m.batch_per_gpu.value);
  if (split.refusal) throw m.global_batch->error(*split.refusal + fmt::format(" ({} workers)", workers));
  if (m.micro_batches_given && m.micro_batches != split.micro_batches) {
    throw m.global_batch->error(
        fmt::format("model.global_batch {} over data-parallel size {} x batch_per_gpu {} is {} micro-batches, but "
                    "model.micro_batches says {}: give one of the two",
                    m.global_batch->value, data, m.batch_per_gpu.value, split.micro_batches, m.micro_batches));
  }
  m.micro_batches = split.micro_batches;
  check_interleaved_groups(scenario);
}

}  // namespace syncsim
