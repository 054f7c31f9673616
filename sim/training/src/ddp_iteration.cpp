#include "syncsim/training/ddp_iteration.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

LayerTimes layer_times(const ComputeModel& compute, const ModelSpec& model, std::int64_t batch, RankSplit split) {
  LayerTimes times;
  times.forward.reserve(model.layers().size());
  times.backward.reserve(model.layers().size());
  for (const Layer& layer : model.layers()) {
    times.forward.push_back(compute.forward(layer, batch, split));
    times.backward.push_back(compute.backward(layer, batch, split));
  }
  return times;
}

CachedAllReduce::CachedAllReduce(Router& router, CollectiveSpec base) : router_(&router), base_(std::move(base)) {}

SimTime CachedAllReduce::operator()(Bytes size) {
  if (const auto found = cache_.find(size.value); found != cache_.end()) return found->second;
  CollectiveSpec spec = base_;
  spec.size = size;
  const SimTime time = simulate_collective(*router_, spec).time;
  cache_.emplace(size.value, time);
  return time;
}

namespace {

void require_non_negative(SimTime t, const std::string& what) {
  if (t < SimTime::zero()) throw InputError(what + " must not be negative");
}

void validate(const DdpSetup& setup) {
  const std::size_t n = setup.layers.forward.size();
  if (setup.layers.backward.size() != n) {
    throw InputError("ddp: " + std::to_string(n) + " forward times but " +
                     std::to_string(setup.layers.backward.size()) + " backward times");
  }
  for (std::size_t i = 0; i < n; ++i) {
    require_non_negative(setup.layers.forward[i], "ddp: forward time of layer " + std::to_string(i));
    require_non_negative(setup.layers.backward[i], "ddp: backward time of layer " + std::to_string(i));
  }
  for (std::size_t b = 0; b < setup.buckets.buckets.size(); ++b) {
    const GradientBucket& bucket = setup.buckets.buckets[b];
    if (bucket.ready_after_layer >= n) {
      throw InputError("ddp: bucket " + std::to_string(b) + " is ready after layer " +
                       std::to_string(bucket.ready_after_layer) + ", but the model has " + std::to_string(n) +
                       " layers");
    }
    if (bucket.bytes.value < 0) throw InputError("ddp: bucket " + std::to_string(b) + " has negative size");
  }
  if (setup.micro_batches < 1) {
    throw InputError("ddp: micro_batches must be at least 1, got " + std::to_string(setup.micro_batches));
  }
  require_non_negative(setup.optimizer_step, "ddp: optimizer step time");
  if (!setup.buckets.buckets.empty() && !setup.collective_time) {
    throw InputError("ddp: buckets to reduce but no collective time function");
  }
  if (!setup.syncs.empty() && setup.syncs.size() != setup.buckets.buckets.size()) {
    throw InputError("ddp: " + std::to_string(setup.syncs.size()) + " bucket synchronizations for " +
                     std::to_string(setup.buckets.buckets.size()) + " buckets");
  }
}

}  // namespace

std::vector<BucketSync> bucket_syncs_of(const DdpSetup& setup) {
  if (!setup.syncs.empty()) return setup.syncs;
  std::vector<BucketSync> syncs;
  syncs.reserve(setup.buckets.buckets.size());
  for (const GradientBucket& bucket : setup.buckets.buckets) syncs.push_back(BucketSync::plain(bucket.bytes));
  return syncs;
}

SimTime sync_time(const BucketSync& sync, const std::function<SimTime(CollectiveOp, Bytes)>& collective_time) {
  SimTime total;
  for (const SyncStep& step : sync.steps) {
    total += step.kind == SyncStep::Kind::compute ? step.time : collective_time(step.op, step.bytes);
  }
  return total;
}

std::vector<SimTime> encode_after_layers(const BucketPlan& plan, const std::vector<BucketSync>& syncs,
                                         std::size_t layers) {
  std::vector<SimTime> encode(layers, SimTime::zero());
  for (std::size_t b = 0; b < plan.buckets.size() && b < syncs.size(); ++b) {
    encode.at(plan.buckets[b].ready_after_layer) += syncs[b].encode;
  }
  return encode;
}

IterationTimeline simulate_ddp_iteration(const DdpSetup& setup) {
  validate(setup);
  const std::vector<SimTime>& forward = setup.layers.forward;
  const std::vector<SimTime>& backward = setup.layers.backward;
  const std::size_t n = forward.size();

  IterationTimeline out;
  out.optimizer = setup.optimizer_step;
  out.phases.reserve(2 * n * static_cast<std::size_t>(setup.micro_batches));

  // Compute stream: k x (forward in order, backward in reverse order). backward_end_of[i]: when layer i's
  // backward ends in the last micro-batch, which is the one that produces the gradients that are reduced (and
  // then encodes the buckets it completes).
  const std::vector<BucketSync> syncs = bucket_syncs_of(setup);
  const std::vector<SimTime> encode = encode_after_layers(setup.buckets, syncs, n);
  std::vector<SimTime> backward_end_of(n);
  SimTime now;
  for (std::int64_t mb = 0; mb < setup.micro_batches; ++mb) {
    for (std::size_t i = 0; i < n; ++i) {
      out.phases.push_back({ComputePhase::forward, mb, i, now, now + forward[i]});
      now += forward[i];
    }
    for (std::size_t i = n; i-- > 0;) {
      const SimTime length = backward[i] + (mb + 1 == setup.micro_batches ? encode[i] : SimTime::zero());
      out.phases.push_back({ComputePhase::backward, mb, i, now, now + length});
      now += length;
      backward_end_of[i] = now;
    }
  }
  out.backward_end = now;
  out.compute = now;

  // Communication stream: one AllReduce at a time, in plan order.
  SimTime stream_free = setup.overlap ? SimTime::zero() : out.backward_end;
  out.buckets.reserve(setup.buckets.buckets.size());
  for (std::size_t b = 0; b < setup.buckets.buckets.size(); ++b) {
    const GradientBucket& bucket = setup.buckets.buckets[b];
    const SimTime duration = sync_time(syncs[b], setup.collective_time);
    require_non_negative(duration, "ddp: synchronization time of bucket " + std::to_string(b));
    const SimTime ready = backward_end_of[bucket.ready_after_layer];
    const SimTime start = std::max(ready, stream_free);
    out.buckets.push_back({b, bucket.bytes, ready, start, start + duration});
    stream_free = start + duration;
    out.communication += duration;
  }

  out.optimizer_start = std::max(out.backward_end, stream_free);
  out.iteration = out.optimizer_start + out.optimizer;
  out.exposed_communication = out.iteration - out.compute - out.optimizer;
  return out;
}

}  // namespace syncsim
