#pragma once
// The batch a plan trains at each GPU count.
//
// Held (LLM training states its batch so: Llama 3 405B trained 16M tokens per step at 8K and at 16K GPUs): with
// `plan --global-batch N`, or model.global_batch, or a transformer's own global batch at the scenario's size
// (data-parallel size x batch_per_gpu x micro_batches). Each count's micro-batches per data-parallel rank are then
// derived (global_batch.hpp), and a count that cannot hold it is skipped with its reason.
//
// Grown (weak scaling): a model without transformer blocks keeps its per-GPU work, so the global batch is the
// scenario's layout's at each count: (GPUs / (tensor x pipeline x context)) x batch_per_gpu x micro_batches.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::planner {

struct PlanBatch {
  std::optional<std::int64_t> held;  // samples per iteration at every count
  std::int64_t model_parallel = 1;   // the scenario's tensor x pipeline x context
  std::int64_t per_rank = 1;         // and batch_per_gpu x micro_batches, for the grown batch
  std::int64_t sequence = 0;         // a transformer's tokens per sample (0: not a transformer)

  std::int64_t at(std::int64_t gpus) const;  // samples per iteration at `gpus`
  std::string describe() const;              // the plan header's line
};

// `flag`: --global-batch. Throws InputError at it when the scenario's model has a global batch of another size.
PlanBatch plan_batch(const Scenario& base, std::optional<std::int64_t> flag);

// The GPU count of a plan point (plan_points' third label).
std::int64_t point_gpus(const SweepPoint& point);

// The points under the scenario's own layout with a held batch: each with the micro-batches that hold it, or left
// out with the reason ("4096 GPUs: ..."), in `skipped`.
std::vector<SweepPoint> hold_batch(const Scenario& base, const PlanBatch& batch, std::vector<SweepPoint> points,
                                   std::vector<std::string>& skipped);

}  // namespace syncsim::planner
