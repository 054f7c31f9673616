// Strategy sync under ZeRO sharding (parallelism.sharding) without model parallelism: the scenario turned into a
// ShardedRunSetup, run_sharded, and its result turned into the report (with its `communication` section) and a
// trace of one rank, which is every rank's.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "convergence_run.hpp"
#include "engines.hpp"
#include "recompute_share.hpp"
#include "replayed_faults.hpp"
#include "sharded_paces.hpp"
#include "sharded_trace.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/sharded_run.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

void check_sharded_data_supported(const Scenario& s) {
  refuse_what_layouts_lack(s, "with sharding");
  refuse_unsimulated_overheads(s, "with sharding", true);
}

std::string collectives_text(ShardingLevel level, bool hybrid) {
  const std::string text = level == ShardingLevel::full
                               ? "all_gather (forward) + all_gather (backward) + reduce_scatter per unit"
                               : "reduce_scatter + all_gather per unit";
  return hybrid ? text + " in the shard group, allreduce of the shard across replicas" : text;
}

}  // namespace

RunOutput run_sharded_data(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_sharded_data_supported(s);
  degrade_for_whole_run(context);
  const std::int64_t ranks = context.workers();
  if (ranks < 2) throw s.parallelism.sharding.error("sharding needs at least 2 data-parallel ranks");
  ShardedRunSetup setup;
  setup.layers = context.layer_times();
  setup.units = context.bucket_plan();  // the model's buckets, or model.chakra's
  setup.level = s.parallelism.sharding.value;
  setup.gather_bytes = context.gather_bytes(setup.units);
  const std::int64_t shard_group = s.parallelism.shard_group ? s.parallelism.shard_group->value : ranks;
  if (shard_group < 2)
    throw s.parallelism.shard_group->error("a shard group of 1 shards nothing (sharding: none does that)");
  setup.ranks = shard_group;
  setup.replicas = ranks / shard_group;
  setup.optimizer_step = context.optimizer_step();
  setup.iterations = s.training.iterations;
  setup.micro_batches = s.model.micro_batches;
  setup.overlap_slowdown = s.training.overlap_slowdown_or_default();
  setup.overlap = s.training.overlap;
  // HSDP: shard groups of consecutive ranks (a node's GPUs first), all at once; replicas across them.
  std::vector<std::vector<std::size_t>> shard_groups(static_cast<std::size_t>(setup.replicas));
  std::vector<std::vector<std::size_t>> replica_groups(static_cast<std::size_t>(shard_group));
  for (std::int64_t r = 0; r < ranks; ++r) {
    shard_groups[static_cast<std::size_t>(r / shard_group)].push_back(static_cast<std::size_t>(r));
    replica_groups[static_cast<std::size_t>(r % shard_group)].push_back(static_cast<std::size_t>(r));
  }
  setup.collective_time = [&](CollectiveOp op, Bytes bytes) {
    if (setup.replicas > 1) return context.group_collective(op, bytes, shard_groups).time;
    return context.collective(op, bytes).time;
  };
  setup.replica_allreduce_time = [&](Bytes bytes) {
    return context.group_collective(CollectiveOp::allreduce, bytes, replica_groups).time;
  };
  const StragglerModel stragglers = context.stragglers();
  setup.slowest = slowest_pace(stragglers, ranks);
  const ShardedRunResult result = run_sharded(setup);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  for (const RankPace& pace : rank_paces(stragglers, 1, ranks, s.training.iterations, result)) {
    r.per_worker.push_back({.compute = pace.compute,
                            .optimizer = result.optimizer,
                            .exposed_communication = result.exposed,
                            .straggler_wait = pace.straggler_wait,
                            .framework_overhead = SimTime::zero(),
                            .overlap_interference = result.interference,
                            .pipeline_bubble = SimTime::zero(),
                            .updates = std::nullopt});
  }
  const std::vector<SimTime> times = fill_run_timeline(context, r, result.iteration_times, result.total);
  split_recompute(r, context, setup.layers);
  compute_shares(r);
  r.group_communication.push_back({.group = "data",
                                   .collectives = collectives_text(setup.level, setup.replicas > 1),
                                   .bytes_per_gpu = result.bytes_per_gpu_per_iteration,
                                   .exposed = SimTime::from_ps(result.exposed.ps() / s.training.iterations)});
  if (const auto stragglers_cost = sharded_straggler_cause(setup, result)) r.causes.push_back(*stragglers_cost);
  if (schedule != nullptr) *schedule = synchronous_schedule(ranks, times);
  out.trace = sharded_trace(s, result);
  return out;
}

}  // namespace syncsim::run
