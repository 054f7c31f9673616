#include "syncsim/planner/plan_batch.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/global_batch.hpp"

namespace syncsim::planner {

std::int64_t PlanBatch::at(std::int64_t gpus) const {
  if (held) return *held;
  return std::max<std::int64_t>(1, gpus / model_parallel) * per_rank;
}

std::string PlanBatch::describe() const {
  if (!held) {
    return "batch: each data-parallel rank keeps the scenario's batch_per_gpu x micro_batches: the global batch "
           "grows with the GPU count";
  }
  const std::string tokens =
      sequence > 0 ? fmt::format(" = {:.1f}M tokens", static_cast<double>(*held * sequence) / 1e6) : std::string();
  return fmt::format(
      "batch: a global batch of {} samples{} per iteration at every GPU count (micro-batches per "
      "data-parallel rank derived)",
      *held, tokens);
}

PlanBatch plan_batch(const Scenario& base, std::optional<std::int64_t> flag) {
  const ParallelismConfig& p = base.parallelism;
  PlanBatch out;
  out.model_parallel = p.tensor.value * p.pipeline.value * p.context.value;
  out.per_rank = base.model.batch_per_gpu.value * base.model.micro_batches;
  const ModelSpec model = run::scenario_model(base);
  out.sequence = model.transformer() ? model.transformer()->sequence : 0;
  if (flag && base.model.global_batch && base.model.global_batch->value != *flag) {
    throw InputError(fmt::format("{} samples, but the scenario's model.global_batch is {}: give one of them", *flag,
                                 base.model.global_batch->value),
                     SourceLocation{"--global-batch"});
  }
  if (flag) {
    out.held = *flag;
  } else if (base.model.global_batch) {
    out.held = base.model.global_batch->value;
  } else if (model.transformer()) {
    const std::int64_t workers = base.cluster.workers
                                     ? base.cluster.workers->value
                                     : static_cast<std::int64_t>(base.cluster.built->topology.gpu_count());
    out.held = std::max<std::int64_t>(1, workers / out.model_parallel) * out.per_rank;
  }
  return out;
}

std::int64_t point_gpus(const SweepPoint& point) {
  return std::stoll(point.labels.at(2));
}

std::vector<SweepPoint> hold_batch(const Scenario& base, const PlanBatch& batch, std::vector<SweepPoint> points,
                                   std::vector<std::string>& skipped) {
  if (!batch.held) return points;
  const ParallelismConfig& p = base.parallelism;
  std::vector<SweepPoint> out;
  for (SweepPoint& point : points) {
    const std::int64_t gpus = point_gpus(point);
    const std::string where = fmt::format("{} / {} / {} GPUs", point.labels[0], point.labels[1], gpus);
    if (gpus % batch.model_parallel != 0) {
      skipped.push_back(
          fmt::format("{}: tensor x pipeline x context = {} does not divide the GPUs", where, batch.model_parallel));
      continue;
    }
    const MicroBatchSplit split =
        split_global_batch(*batch.held, gpus / batch.model_parallel, base.model.batch_per_gpu.value);
    if (split.refusal) {
      skipped.push_back(fmt::format("{}: {}", where, *split.refusal));
      continue;
    }
    if (p.schedule.value == PipelineSchedule::interleaved && split.micro_batches % p.pipeline.value != 0) {
      skipped.push_back(
          fmt::format("{}: the interleaved schedule needs micro-batches in multiples of the {} stages, "
                      "and the global batch gives {}",
                      where, p.pipeline.value, split.micro_batches));
      continue;
    }
    point.overrides.push_back(fmt::format("model.micro_batches={}", split.micro_batches));
    if (base.model.global_batch) point.overrides.push_back(fmt::format("model.global_batch={}", *batch.held));
    point.index = out.size();
    out.push_back(std::move(point));
  }
  return out;
}

}  // namespace syncsim::planner
