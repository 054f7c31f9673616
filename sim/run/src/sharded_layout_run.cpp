// Strategy sync under full sharding (ZeRO-3, FSDP FULL_SHARD) with tensor or context parallelism and no pipeline,
// torchtitan's FSDP + TP: the sharded engine (sharded_run.hpp) over one rank's layers with the layout's tensor and
// context collectives inside them (LayoutCommunication::rank_layer_times), each unit's gathers and reduce-scatter
// run in all data-parallel groups at once on the topology. Each kind's exposed time is measured causally, as the
// model-parallel engine measures it: the run again with that kind free.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "chakra_layer_work.hpp"
#include "convergence_run.hpp"
#include "engines.hpp"
#include "layout_communication.hpp"
#include "recompute_share.hpp"
#include "replayed_faults.hpp"
#include "sharded_paces.hpp"
#include "sharded_trace.hpp"
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/sharded_run.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

// The iterations the causal reruns simulate: the first has no step before it, the later ones do.
constexpr std::int64_t kCausalIterations = 4;

void check_sharded_layout_supported(const Scenario& s) {
  refuse_what_layouts_lack(s, "with a model-parallel layout");
  refuse_unsimulated_overheads(s, "with sharding", true);
  const ParallelismConfig& p = s.parallelism;
  if (p.shard_group) {
    throw p.shard_group->error("HSDP's shard groups are not simulated yet with a model-parallel layout");
  }
  if (p.expert.value > 1) {
    throw p.expert.error(
        "expert parallelism with full sharding and no pipeline is not simulated yet: use sharding: optimizer, or "
        "a pipeline");
  }
}

// The ranks FSDP shards over, data x context (torchtitan's dp_shard_cp mesh, RankLayout::gradient_groups); InputError
// at parallelism.sharding when that is one rank.
std::int64_t shard_ranks(const Scenario& s, const RankLayout& layout) {
  const std::int64_t shards = layout.sizes().gradient_ranks();
  if (shards < 2) {
    throw s.parallelism.sharding.error(
        "full sharding needs at least 2 ranks to shard over (data x context); this layout leaves 1");
  }
  return shards;
}

// The units: the whole model's gradient buckets (training.bucket_size, as without a layout), each rank holding
// 1/tensor of every layer's.
BucketPlan rank_units(const ResolvedScenario& context, std::int64_t tensor) {
  BucketPlan plan = make_buckets(context.model(), context.scenario().training.bucket_size, context.precision());
  for (GradientBucket& b : plan.buckets) b.bytes = Bytes{(b.bytes.value + tensor - 1) / tensor};
  return plan;
}

// The time the layers' tensor and context collectives add to `iterations` iterations of one rank's passes.
SimTime inline_communication(const LayerTimes& with, const LayerTimes& without, std::int64_t passes) {
  SimTime t;
  for (std::size_t l = 0; l < with.forward.size(); ++l) {
    t += (with.forward[l] - without.forward[l]) + (with.backward[l] - without.backward[l]);
  }
  return t * passes;
}

// The layers with their tensor and context collectives, and those collectives apart (not slowed by stragglers).
void set_layers(ShardedRunSetup& setup, const LayerTimes& layers, const LayerTimes& bare) {
  setup.layers = layers;
  setup.layer_communication = {};
  for (std::size_t l = 0; l < bare.forward.size(); ++l) {
    setup.layer_communication.forward.push_back(layers.forward[l] - bare.forward[l]);
    setup.layer_communication.backward.push_back(layers.backward[l] - bare.backward[l]);
  }
}

// One rank's layers with (or without) their tensor and context collectives: LayoutCommunication::rank_layer_times,
// or the same from a trace.
using RankLayers = std::function<LayerTimes(bool tensor, bool context)>;

// What each kind costs per iteration: the run again, over up to kCausalIterations, with that kind free.
LayoutExposure causal_exposure(const ShardedRunSetup& setup, const ShardedRunResult& result,
                               const RankLayers& rank_layer_times) {
  const std::int64_t n = std::min(setup.iterations, kCausalIterations);
  const auto short_total = [&](ShardedRunSetup variant) {
    variant.iterations = n;
    return run_sharded(variant).total;
  };
  const SimTime base = setup.iterations <= kCausalIterations ? result.total : short_total(setup);
  const auto lost = [&](ShardedRunSetup variant) {
    return SimTime::from_ps(std::max<std::int64_t>(0, (base - short_total(std::move(variant))).ps()) / n);
  };
  LayoutExposure exposure;
  exposure.data_bytes_per_gpu = result.bytes_per_gpu_per_iteration;
  exposure.data_collectives = "all_gather (forward) + all_gather (backward) + reduce_scatter per unit";
  ShardedRunSetup variant = setup;
  variant.collective_time = [](CollectiveOp, Bytes) { return SimTime::zero(); };
  exposure.data = lost(variant);
  const LayerTimes bare = rank_layer_times(false, false);
  variant = setup;
  set_layers(variant, rank_layer_times(false, true), bare);
  exposure.tensor = lost(variant);
  set_layers(variant, rank_layer_times(true, false), bare);
  exposure.context = lost(variant);
  return exposure;
}

// model.chakra's trace (any rank's: all hold the same graph but for their groups) as one rank's layers, their
// collectives, the units and the step; InputError at model.chakra naming the file for a trace of another layout,
// sharding or micro-batches, and what the import refuses.
chakra::DdpWorkload read_sharded_layout_trace(const Scenario& s, const RankLayout& layout) {
  return at_value(*s.model.chakra, [&] {
    const std::filesystem::path path = s.model.chakra->value;
    chakra::DdpWorkload w = chakra::ddp_workload(chakra::read_execution_trace(path), path.string(), layout.sizes());
    const auto fail = [&](const std::string& what) { return InputError(what, SourceLocation{path.string(), 0, 0}); };
    if (w.ranks != layout.ranks()) {
      throw fail(fmt::format("the trace holds {} ranks, the scenario's layout {}", w.ranks, layout.ranks()));
    }
    if (w.sharding != ShardingLevel::full) throw fail("the trace's buckets are not fully sharded, the scenario's are");
    if (w.micro_batches != s.model.micro_batches) {
      throw fail(
          fmt::format("the trace holds {} micro-batches per iteration, model.micro_batches {} (set it to the "
                      "trace's)",
                      w.micro_batches, s.model.micro_batches));
    }
    return w;
  });
}

// With model.chakra, the trace's layers and their collectives costed here; else the scenario's.
RankLayers rank_layers(const Scenario& s, LayoutCommunication& comm, std::optional<chakra::DdpWorkload>& imported) {
  if (!s.model.chakra) return [&comm](bool tensor, bool context) { return comm.rank_layer_times(tensor, context); };
  imported = read_sharded_layout_trace(s, comm.layout());
  auto [tensor_part, context_part] = comm.imported_rank_collectives(*imported);
  return [bare = imported->times, tensor_part, context_part](bool tensor, bool context) {
    LayerTimes out = bare;
    for (std::size_t l = 0; l < out.forward.size(); ++l) {
      if (tensor) {
        out.forward[l] += tensor_part.forward[l];
        out.backward[l] += tensor_part.backward[l];
      }
      if (context) {
        out.forward[l] += context_part.forward[l];
        out.backward[l] += context_part.backward[l];
      }
    }
    return out;
  };
}

}  // namespace

chakra::DdpWorkload sharded_layout_chakra_workload(ResolvedScenario& context) {
  const Scenario& s = context.scenario();
  check_sharded_layout_supported(s);
  // The trace holds sizes, not times: no collective needs simulating.
  const LayoutCommunication comm(
      context, [](CollectiveOp, Bytes, const std::vector<std::vector<std::size_t>>&) { return SimTime::zero(); });
  const RankLayout& layout = comm.layout();
  const std::int64_t shards = shard_ranks(s, layout);
  const std::int64_t tensor = layout.sizes().tensor;
  chakra::DdpWorkload w;
  w.name = s.name;
  w.ranks = layout.ranks();
  w.layout = layout.sizes();
  w.times = comm.rank_layer_times(false, false);
  comm.chakra_rank_collectives(w.forward_inline, w.backward_inline);
  for (const Layer& layer : context.model().layers()) {
    w.layers.push_back(layer.name);
    const auto [forward, backward] = chakra_layer_work(context, layer, tensor * layout.sizes().context);
    w.forward_work.push_back(forward);
    w.backward_work.push_back(backward);
  }
  w.buckets = rank_units(context, tensor);
  w.gather_bytes = context.gather_bytes(w.buckets, tensor);
  w.optimizer = context.optimizer_step().scaled(1.0 / static_cast<double>(tensor));
  const std::int64_t params = context.model().params() / tensor / shards;
  w.optimizer_work =
      chakra::NodeWork{params, static_cast<std::uint64_t>(params * optimizer_step_bytes(s.model.optimizer.value))};
  w.micro_batches = s.model.micro_batches;
  w.sharding = ShardingLevel::full;
  return w;
}

RunOutput run_sharded_layout(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_sharded_layout_supported(s);
  degrade_for_whole_run(context);
  LayoutCommunication comm(context);
  const RankLayout& layout = comm.layout();
  const std::int64_t data = layout.sizes().data;
  const std::int64_t shards = shard_ranks(s, layout);
  const std::int64_t tensor = layout.sizes().tensor;
  const std::int64_t m = s.model.micro_batches;
  std::optional<chakra::DdpWorkload> imported;
  const RankLayers rank_layer_times = rank_layers(s, comm, imported);
  ShardedRunSetup setup;
  const LayerTimes bare = rank_layer_times(false, false);
  set_layers(setup, rank_layer_times(true, true), bare);
  setup.units = imported ? imported->buckets : rank_units(context, tensor);
  // Each rank gathers 1/tensor of each unit's layers, as the units hold.
  setup.gather_bytes = imported ? imported->gather_bytes : context.gather_bytes(setup.units, tensor);
  setup.level = ShardingLevel::full;
  setup.ranks = shards;
  setup.optimizer_step =
      imported ? imported->optimizer : context.optimizer_step().scaled(1.0 / static_cast<double>(tensor));
  setup.iterations = s.training.iterations;
  setup.micro_batches = m;
  setup.overlap_slowdown = s.training.overlap_slowdown_or_default();
  setup.overlap = s.training.overlap;
  // Per unit and micro-batch: two gathers (forward, backward) and a reduce-scatter.
  std::map<std::pair<CollectiveOp, std::int64_t>, SimTime> times;
  for (std::size_t u = 0; u < setup.units.buckets.size(); ++u) {
    const Bytes reduced = setup.units.buckets[u].bytes;
    const Bytes gathered = setup.gather_bytes.empty() ? reduced : setup.gather_bytes[u];
    times[{CollectiveOp::reduce_scatter, reduced.value}] =
        comm.data_collective(CollectiveOp::reduce_scatter, reduced, static_cast<double>(m));
    times[{CollectiveOp::all_gather, gathered.value}] =
        comm.data_collective(CollectiveOp::all_gather, gathered, static_cast<double>(2 * m));
  }
  setup.collective_time = [&times](CollectiveOp op, Bytes bytes) { return times.at({op, bytes.value}); };
  const StragglerModel stragglers = context.stragglers();
  setup.slowest = slowest_pace(stragglers, layout.ranks());
  const ShardedRunResult result = run_sharded(setup);

  const LayoutExposure exposure = causal_exposure(setup, result, rank_layer_times);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  r.global_batch = data * context.batch() * m;
  // The layers' tensor and context collectives run on the compute stream: exposed communication, not compute.
  const std::int64_t passes = m * s.training.iterations;
  const SimTime inline_comm = inline_communication(setup.layers, bare, passes);
  const SimTime inline_tensor = inline_communication(rank_layer_times(true, false), bare, passes);
  const std::int64_t group = layout.sizes().tensor * layout.sizes().context;
  for (const RankPace& pace : rank_paces(stragglers, group, layout.ranks(), s.training.iterations, result)) {
    r.per_worker.push_back({.compute = pace.compute - inline_comm,
                            .optimizer = result.optimizer,
                            .exposed_communication = result.exposed + inline_comm,
                            .straggler_wait = pace.straggler_wait,
                            .framework_overhead = SimTime::zero(),
                            .overlap_interference = result.interference,
                            .pipeline_bubble = SimTime::zero(),
                            .updates = std::nullopt,
                            .exposed_tensor = inline_tensor,
                            .exposed_context = inline_comm - inline_tensor});
  }
  const std::vector<SimTime> run_times = fill_run_timeline(context, r, result.iteration_times, result.total);
  split_recompute(r, context, bare);
  r.layout = comm.layout_report(r, 0);
  compute_shares(r);
  r.group_communication = comm.group_reports(exposure);
  for (const GroupCommunication& g : r.group_communication) {
    r.causes.push_back({.cause = "communication", .group = g.group, .per_iteration = g.exposed, .measured = true});
  }
  if (const auto stragglers_cost = sharded_straggler_cause(setup, result)) r.causes.push_back(*stragglers_cost);
  comm.fill_links(r, s.training.iterations);
  if (schedule != nullptr) *schedule = synchronous_schedule(data, run_times);
  out.trace = sharded_trace(s, result);
  return out;
}

}  // namespace syncsim::run
