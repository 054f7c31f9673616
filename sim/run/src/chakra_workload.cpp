#include "syncsim/run/chakra_workload.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/precision.hpp"

#include "resolved_scenario.hpp"

namespace syncsim::run {

std::optional<InputError> chakra_mismatch(const Scenario& s) {
  const ParallelismConfig& p = s.parallelism;
  for (const Located<std::int64_t>* degree : {&p.tensor, &p.pipeline, &p.context, &p.expert}) {
    if (degree->value > 1) {
      return degree->error("a Chakra execution trace of syncsim holds plain data parallelism; this layout is not");
    }
  }
  if (p.sharding.value != ShardingLevel::none) {
    return p.sharding.error("a Chakra execution trace of syncsim holds DDP's AllReduces, not sharded collectives");
  }
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
  return std::nullopt;
}

namespace {

// The roofline's work (compute_model.hpp) at the batch, for ASTRA-sim's roofline mode: a layer's forward does
// B x forward_flops operations and moves e x (weights read + B x activations moved) bytes, its backward
// backward_factor times both; the optimizer step moves params x step bytes (optimizer.hpp) and counts one operation
// per parameter (it is memory-bound: the bytes time it).
void fill_work(const ResolvedScenario& context, chakra::DdpWorkload& w) {
  const Scenario& s = context.scenario();
  const std::int64_t batch = context.batch();
  const std::int64_t element = element_bytes(context.precision());
  const double backward = s.model.backward_factor;
  for (const Layer& layer : context.model().layers()) {
    const auto ops = static_cast<double>(batch) * static_cast<double>(layer.forward_flops);
    const double bytes = static_cast<double>(element) * (static_cast<double>(layer.weight_elements_read) +
                                                         static_cast<double>(batch * layer.activation_elements_moved));
    w.forward_work.push_back({std::llround(ops), static_cast<std::uint64_t>(std::llround(bytes))});
    w.backward_work.push_back(
        {std::llround(backward * ops), static_cast<std::uint64_t>(std::llround(backward * bytes))});
  }
  const std::int64_t params = context.model().params();
  w.optimizer_work =
      chakra::NodeWork{params, static_cast<std::uint64_t>(params * optimizer_step_bytes(s.model.optimizer.value))};
}

}  // namespace

chakra::DdpWorkload scenario_chakra_workload(const Scenario& s) {
  if (std::optional<InputError> mismatch = chakra_mismatch(s)) throw *mismatch;
  if (s.model.micro_batches > 1) {
    throw InputError(fmt::format("a Chakra execution trace holds one forward and backward pass, not {} micro-batches",
                                 s.model.micro_batches),
                     SourceLocation{s.source, 0, 0}, "model.micro_batches");
  }
  Workspace workspace;
  const ResolvedScenario context(s, workspace);
  chakra::DdpWorkload w;
  w.name = s.name;
  w.ranks = context.workers();
  for (const Layer& layer : context.model().layers()) w.layers.push_back(layer.name);
  w.times = context.layer_times();
  w.optimizer = context.optimizer_step();
  w.buckets = context.bucket_plan();
  fill_work(context, w);
  if (!s.training.overlap) {
    // Without overlap every AllReduce waits for the whole backward, whose last layer is layer 0.
    for (GradientBucket& bucket : w.buckets.buckets) bucket.ready_after_layer = 0;
  }
  if (w.ranks == 1) w.buckets.buckets.clear();  // one worker reduces nothing (the engine's single-GPU baseline)
  return w;
}

}  // namespace syncsim::run
