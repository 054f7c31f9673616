#pragma once
// model.global_batch: the batch a job trains on, held whatever the GPU count, as LLM training states it (Llama 3
// 405B: 16M tokens = 2,048 sequences of 8,192 at 8K and at 16K GPUs).
//
//   micro_batches = global_batch / (data x batch_per_gpu),   data = workers / (tensor x pipeline x context)
//
// Every data-parallel rank runs `micro_batches` micro-batches of `batch_per_gpu` samples per iteration (gradient
// accumulation, and the pipeline's micro-batches). A global batch the data-parallel size and per-GPU batch do not
// divide is an error, as Megatron-LM refuses it; so is a model.micro_batches that says another number.
#include <cstdint>
#include <optional>
#include <string>

#include "syncsim/scenario/scenario.hpp"

namespace syncsim {

inline constexpr std::int64_t kMaxMicroBatches = std::int64_t{1} << 20;  // model.micro_batches' bound
inline constexpr std::int64_t kMaxGlobalBatch = std::int64_t{1} << 40;   // model.global_batch's

// The micro-batches of `global_batch` over `data` ranks of `batch_per_gpu` samples, or why there are none (the
// division's remainder, or more than the 2^20 micro-batches a scenario may have).
struct MicroBatchSplit {
  std::int64_t micro_batches = 0;
  std::optional<std::string> refusal;
};
MicroBatchSplit split_global_batch(std::int64_t global_batch, std::int64_t data, std::int64_t batch_per_gpu);

// With model.global_batch: sets model.micro_batches for `workers` GPUs under the scenario's parallelism, or throws
// InputError at model.global_batch. Either way, an interleaved schedule's micro-batches that are not a multiple of
// its pipeline stages are an InputError at parallelism.schedule.
void derive_micro_batches(Scenario& scenario, std::int64_t workers);

}  // namespace syncsim
