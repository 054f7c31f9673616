#pragma once
// run_sharded: synchronous data parallelism under ZeRO sharding over d identical ranks (parallelism.sharding),
// one engine beside the DDP one (synchronous_run.hpp). Units are the gradient buckets (bucket_plan.hpp: contiguous
// layers, the last layers first); every collective runs over all d ranks on one in-order communication stream,
// and a unit of S bytes moves (d - 1)/d x S per GPU per collective.
//
//   optimizer, gradients  (ZeRO-1/2, Megatron's distributed optimizer, FSDP SHARD_GRAD_OP)
//       backward: each unit's gradient is reduce-scattered as soon as backward produced it;
//       step:     each rank updates its 1/d of the parameters, after the last reduce-scatter;
//       then:     the updated parameters are all-gathered unit by unit, first layers first, and the next
//                 forward runs each layer once its unit has arrived (Megatron's overlapped param gather).
//       Per GPU and iteration: 2 (d - 1)/d x G bytes, G the gradient bytes.
//   full  (ZeRO-3, FSDP FULL_SHARD)
//       forward:  each unit's parameters are all-gathered before its first layer (issued back to back, so
//                 later units are prefetched while earlier ones compute);
//       backward: gathered again, one unit ahead of the one computing (FSDP's BACKWARD_PRE prefetch), and each
//                 unit's gradient reduce-scattered once its backward is done, in stream order;
//       step:     1/d of the parameters, after the last reduce-scatter, before the next forward's gathers.
//       Per GPU and iteration: 3 (d - 1)/d x G bytes.
//   With m micro-batches (gradient accumulation): ZeRO-1 reduce-scatters after the last one only (2 (d - 1)/d x G),
//   ZeRO-2 after every one ((m + 1)(d - 1)/d x G), ZeRO-3 gathers and reduce-scatters for every one (3m (d - 1)/d x G).
//
// HSDP (`parallelism.shard_group`): the state is sharded over groups of s ranks and replicated across the d/s
// groups; after each reduce-scatter the rank's shard (1/s of the unit) is AllReduced across the replicas that hold
// it, on a second in-order stream, so that the next gathers do not wait for it (PyTorch's HYBRID_SHARD); the step
// waits for both streams. Per GPU and iteration add 2 (r - 1)/r x G/s, r = d/s.
//
// Stragglers: every collective joins every rank, so a rank that computes slower holds every later collective, and
// the job runs at its slowest rank's pace. By induction over the in-order stream a slower rank reaches each
// collective no earlier than a faster one, so one timeline, the slowest rank's, is the job's: iteration i's
// layers compute `slowest(i)` times slower (the collectives, the optimizer step and the layers' inline
// communication keep their time); the other ranks wait the difference (straggler wait, filled by the caller).
// docs/strategies.md, "Sharded data parallelism".
#include <cstdint>
#include <functional>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/ddp_iteration.hpp"

namespace syncsim {

struct ShardedRunSetup {
  LayerTimes layers;  // one rank's forward and backward per layer
  BucketPlan units;   // buckets: unit b holds buckets[b].layers
  ShardingLevel level = ShardingLevel::optimizer;
  std::int64_t ranks = 2;     // s: the ranks each unit is sharded over (d without HSDP)
  std::int64_t replicas = 1;  // r = d / s: HSDP's groups holding the same shards
  SimTime optimizer_step;     // the whole model's step on one GPU: a rank runs ceil(1/d) of it
  std::int64_t iterations = 1;
  // Gradient accumulation: forward and backward this many times per step. ZeRO-1 reduce-scatters after the last
  // only, ZeRO-2 after every one, ZeRO-3 gathers and reduce-scatters for every one.
  std::int64_t micro_batches = 1;
  // Backward runs (1 + s) times slower once the collectives beside it started (the DDP engine's rule,
  // training.overlap_slowdown): in ZeRO-1/2 from the first reduce-scatter, in ZeRO-3 all of it (gathers from its
  // start). Forward is not slowed.
  double overlap_slowdown = 0;
  // training.overlap: false holds every reduce-scatter of a micro-batch until its whole backward has run (the DDP
  // engine's rule); the gathers, which the next layers need, run as they do.
  bool overlap = true;
  // Per unit, the bytes its weight all-gather moves (weight_gather_bytes: fewer under FP8 all-gather); empty: the
  // unit's bytes, as its reduce-scatter.
  std::vector<Bytes> gather_bytes;
  // A collective over the s ranks of a unit of `bytes` (reduce_scatter or all_gather).
  std::function<SimTime(CollectiveOp op, Bytes bytes)> collective_time;
  // With replicas > 1: the AllReduce of a shard of `bytes` across the r replicas.
  std::function<SimTime(Bytes bytes)> replica_allreduce_time;
  // The slowest rank's compute factor in an iteration (replica_classes.hpp's slowest_factor); empty: 1.
  std::function<double(std::int64_t iteration)> slowest;
  // Per layer, the part of `layers` that is communication on the compute stream (a layout's tensor and context
  // collectives, rank_layer_times), not slowed; empty: none.
  LayerTimes layer_communication;
};

struct ShardedCollective {
  std::int64_t iteration = 0;
  CollectiveOp op = CollectiveOp::all_gather;
  std::size_t unit = 0;
  Bytes bytes;  // the unit's, whole (the shard's for the replicas' allreduce)
  SimTime start;
  SimTime end;
};

struct ShardedRunResult {
  std::vector<SimTime> iteration_times;
  SimTime total;
  SimTime compute;                         // the slowest rank's forward + backward, all iterations
  SimTime nominal_compute;                 // the same at factor 1
  SimTime optimizer;                       // its optimizer steps
  SimTime interference;                    // backward's extra time beside the collectives (overlap_slowdown)
  SimTime exposed;                         // total - compute - optimizer - interference: waiting on the stream
  double bytes_per_gpu_per_iteration = 0;  // what one GPU sends (and receives) per iteration
  // The collectives and compute spans of the traced iterations: all of them while iterations x 3 x units stays
  // under about 1,024 spans, else the last ones.
  std::vector<ShardedCollective> collectives;
  // One rank's compute spans: (iteration, layer, backward?, start, end); optimizer steps as layer SIZE_MAX.
  struct ComputeSpan {
    std::int64_t iteration = 0;
    bool backward = false;
    bool optimizer = false;
    SimTime start;
    SimTime end;
  };
  std::vector<ComputeSpan> compute_spans;  // merged per phase: one forward, one backward, one step per iteration
};

// Throws InputError for level none, fewer than 2 ranks, no units, layers and units that disagree, or a negative
// collective time.
ShardedRunResult run_sharded(const ShardedRunSetup& setup);

}  // namespace syncsim
