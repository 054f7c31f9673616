#include "syncsim/run/chakra_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <type_traits>

#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/precision.hpp"

#include "chakra_layer_work.hpp"
#include "engines.hpp"
#include "layout_communication.hpp"
#include "resolved_scenario.hpp"

namespace syncsim::run {

bool chakra_layout(const Scenario& s) {
  const ParallelismConfig& p = s.parallelism;
  return p.tensor.value > 1 || p.pipeline.value > 1 || p.context.value > 1 || p.expert.value > 1;
}

std::optional<InputError> chakra_mismatch(const Scenario& s) {
  const ParallelismConfig& p = s.parallelism;
  const TrainingConfig& t = s.training;
  if (t.strategy.value != StrategyKind::sync || t.communication.value != Communication::allreduce) {
    return t.strategy.error(
        fmt::format("a Chakra execution trace of syncsim holds strategy sync over allreduce, not "
                    "'{}' over '{}'",
                    to_string(t.strategy.value), to_string(t.communication.value)));
  }
  if (t.gradient_compression.value.enabled()) {
    return t.gradient_compression.error("a Chakra execution trace of syncsim holds plain AllReduces: no compression");
  }
  if (p.tensor.value > 1 && p.tp_comm_overlap.value && p.sharding.value == ShardingLevel::full &&
      p.pipeline.value == 1) {
    return p.tp_comm_overlap.error(
        "a Chakra execution trace of FSDP + TP holds each tensor-parallel collective after its layer; "
        "tp_comm_overlap's collectives beside the GEMMs are written for the model-parallel engine's layouts (with a "
        "pipeline, or without full sharding) only");
  }
  return std::nullopt;
}

std::pair<chakra::NodeWork, chakra::NodeWork> chakra_layer_work(const ResolvedScenario& context, const Layer& layer,
                                                                std::int64_t parts) {
  const std::int64_t batch = context.batch();
  const std::int64_t element = element_bytes(context.precision());
  const double backward = context.scenario().model.backward_factor;
  const double share = 1.0 / static_cast<double>(parts);
  const double ops = share * static_cast<double>(batch) * static_cast<double>(layer.forward_flops);
  const double bytes = share * static_cast<double>(element) *
                       (static_cast<double>(layer.weight_elements_read) +
                        static_cast<double>(batch) * static_cast<double>(layer.activation_elements_moved));
  return {{std::llround(ops), static_cast<std::uint64_t>(std::llround(bytes))},
          {std::llround(backward * ops), static_cast<std::uint64_t>(std::llround(backward * bytes))}};
}

namespace {

// The roofline's work (compute_model.hpp) at the batch, for ASTRA-sim's roofline mode: a layer's forward does
// B x forward_flops operations and moves e x (weights read + B x activations moved) bytes, its backward
// backward_factor times both; the optimizer step moves params x step bytes (optimizer.hpp) and counts one operation
// per parameter (it is memory-bound: the bytes time it).
void fill_work(const ResolvedScenario& context, chakra::DdpWorkload& w) {
  const Scenario& s = context.scenario();
  for (const Layer& layer : context.model().layers()) {
    const auto [forward, backward] = chakra_layer_work(context, layer, 1);
    w.forward_work.push_back(forward);
    w.backward_work.push_back(backward);
  }
  const std::int64_t params = context.model().params();
  w.optimizer_work =
      chakra::NodeWork{params, static_cast<std::uint64_t>(params * optimizer_step_bytes(s.model.optimizer.value))};
}

}  // namespace

chakra::DdpWorkload scenario_chakra_workload(const Scenario& s) {
  if (std::optional<InputError> mismatch = chakra_mismatch(s)) throw *mismatch;
  if (chakra_layout(s)) throw s.parallelism.tensor.error("a model-parallel layout's trace is not a DDP workload");
  Workspace workspace;
  const ResolvedScenario context(s, workspace);
  chakra::DdpWorkload w;
  w.name = s.name;
  w.ranks = context.workers();
  for (const Layer& layer : context.model().layers()) w.layers.push_back(layer.name);
  w.times = context.layer_times();
  w.optimizer = context.optimizer_step();
  w.buckets = context.bucket_plan();
  w.gather_bytes = context.gather_bytes(w.buckets);
  w.micro_batches = s.model.micro_batches;
  w.sharding = s.parallelism.sharding.value;
  if (s.parallelism.shard_group) w.shard_group = s.parallelism.shard_group->value;
  fill_work(context, w);
  if (!s.training.overlap) {
    // Without overlap every AllReduce waits for the whole backward, whose last layer is layer 0.
    for (GradientBucket& bucket : w.buckets.buckets) bucket.ready_after_layer = 0;
  }
  if (w.ranks == 1) {  // one worker reduces nothing (the engine's single-GPU baseline)
    w.buckets.buckets.clear();
    w.gather_bytes.clear();
  }
  return w;
}

std::int64_t ChakraExport::ranks() const {
  return std::visit(
      [](const auto& w) -> std::int64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(w)>, chakra::DdpWorkload>) {
          return w.ranks;
        } else {
          return RankLayout(w.sizes).ranks();
        }
      },
      workload_);
}

chakra::ExecutionTrace ChakraExport::trace(std::int64_t rank) const {
  return std::visit([&](const auto& w) { return chakra::execution_trace(w, rank); }, workload_);
}

std::pair<std::size_t, std::size_t> ChakraExport::nodes() const {
  // Ranks of one stage hold the same nodes: one rank per stage is every file's count.
  const auto* layout = std::get_if<chakra::LayoutWorkload>(&workload_);
  const std::int64_t stages = layout ? layout->sizes.pipeline : 1;
  const std::int64_t per_stage = ranks() / stages;
  std::pair<std::size_t, std::size_t> out = {SIZE_MAX, 0};
  for (std::int64_t d = 0; d < stages; ++d) {
    const std::size_t n = trace(d * per_stage).nodes.size();
    out = {std::min(out.first, n), std::max(out.second, n)};
  }
  return out;
}

// model.chakra's trace as the iteration's workload; what does not fit (a run that is not plain DDP, a file that is
// not a trace, a node kind it cannot map) is an error at the key, naming the file and the node.
std::optional<chakra::DdpWorkload> imported_chakra_workload(const Scenario& s) {
  if (std::optional<InputError> mismatch = chakra_mismatch(s)) {
    throw s.model.chakra->error(fmt::format("an execution trace is imported into the runs a trace holds: {} ({})",
                                            mismatch->message(), mismatch->key()));
  }
  // What the trace's gathers move is what its ALL_GATHER nodes say (an FP8 all-gather's trace holds the FP8 sizes).
  if (s.parallelism.fp8_all_gather.value) {
    throw s.parallelism.fp8_all_gather.error(
        "an imported trace's weight gathers move what its ALL_GATHER nodes hold (comm_size): set it false with "
        "model.chakra");
  }
  // A layout's traces are the model-parallel engine's to read (LayoutCommunication::imported_setup).
  if (chakra_layout(s)) return std::nullopt;
  return at_value(*s.model.chakra, [&] {
    const std::filesystem::path path = s.model.chakra->value;
    chakra::DdpWorkload w = chakra::ddp_workload(chakra::read_execution_trace(path), path.string());
    const ShardingLevel level = s.parallelism.sharding.value;
    const bool sharded = level != ShardingLevel::none;
    if ((w.sharding != ShardingLevel::none) != sharded ||
        (w.sharding == ShardingLevel::full) != (level == ShardingLevel::full)) {
      throw InputError(fmt::format("the trace's buckets are {}, parallelism.sharding is {}",
                                   w.sharding == ShardingLevel::none   ? "AllReduced (no sharding)"
                                   : w.sharding == ShardingLevel::full ? "fully sharded (gathered before each forward)"
                                                                       : "reduce-scattered (ZeRO-1 or 2)",
                                   to_string(level)),
                       SourceLocation{path.string(), 0, 0});
    }
    const std::int64_t shard_group = s.parallelism.shard_group ? s.parallelism.shard_group->value : 0;
    if ((w.shard_group > 1 ? w.shard_group : 0) != (shard_group < w.ranks ? shard_group : 0)) {
      throw InputError(fmt::format("the trace's buckets are sharded over {}, parallelism.shard_group is {}",
                                   w.shard_group > 1 ? fmt::format("shard groups of {} ranks (HSDP)", w.shard_group)
                                                     : std::string("every rank"),
                                   shard_group > 0 ? std::to_string(shard_group) : std::string("not set")),
                       SourceLocation{path.string(), 0, 0});
    }
    if (w.micro_batches != s.model.micro_batches) {
      throw InputError(fmt::format("the trace holds {} micro-batches per iteration, model.micro_batches {} (set it "
                                   "to the trace's)",
                                   w.micro_batches, s.model.micro_batches),
                       SourceLocation{path.string(), 0, 0});
    }
    return std::optional(std::move(w));
  });
}

ChakraExport scenario_chakra_export(const Scenario& s) {
  if (!chakra_layout(s)) return ChakraExport(scenario_chakra_workload(s));
  if (std::optional<InputError> mismatch = chakra_mismatch(s)) throw *mismatch;
  Workspace workspace;
  ResolvedScenario context(s, workspace);
  // Full sharding without a pipeline is the sharded engine's (FSDP + TP).
  const ParallelismConfig& p = s.parallelism;
  if (p.sharding.value == ShardingLevel::full && p.pipeline.value == 1) {
    return ChakraExport(sharded_layout_chakra_workload(context));
  }
  // The trace holds sizes, not times: no collective needs simulating.
  const LayoutCommunication comm(
      context, [](CollectiveOp, Bytes, const std::vector<std::vector<std::size_t>>&) { return SimTime::zero(); });
  return ChakraExport(comm.chakra_workload());
}

}  // namespace syncsim::run
