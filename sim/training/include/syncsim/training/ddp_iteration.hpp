#pragma once
// One synchronous data-parallel training iteration as PyTorch DDP runs it, seen from one rank (all ranks are
// identical in synchronous DDP without jitter, so one rank's timeline is the job's).
//
// Semantics (docs/architecture.md §6):
//   - forward of every layer in order, then backward in reverse order, on one compute stream;
//   - gradient accumulation over k micro-batches: k forward+backward passes back to back; the first k-1 run under
//     no_sync() and do not communicate; only the last one's buckets are reduced;
//   - overlap on: a bucket's AllReduce starts when the backward of its ready_after_layer ends (in the last
//     micro-batch) AND the single communication stream is free; buckets launch in plan order (FIFO);
//   - overlap off: every bucket's AllReduce runs after the last backward ends, back to back in plan order;
//   - the optimizer step starts when backward has ended and the last AllReduce has ended.
//
// Hence, with F, B the summed forward and backward, r_j the time from the last backward's start until bucket j is
// ready, T_j its AllReduce time and O the optimizer step:
//   overlap off:  iteration = k(F + B) + sum_j T_j + O                                (exactly)
//   overlap on:   iteration = (k-1)(F + B) + F + max(B, max_j (r_j + sum_{i>=j} T_i)) + O
//
// Reported: compute = k(F + B) (the optimizer step apart), communication = sum_j T_j, exposed communication =
// iteration - compute - optimizer (the communication that the compute did not hide).
//
// Gradient compression (gradient_compression.hpp) makes bucket j's synchronization a chain of steps: T_j is then
// the chain's collectives and kernels summed, and its encoding kernels run on the compute stream right after the
// backward of ready_after_layer in the last micro-batch (they are in compute, and delay the layers after them).
//
// The time of a collective depends only on its op and size: collectives of one stream never overlap each other,
// and in synchronous DDP every rank joins each one, so nothing else shares the network at that moment.
// CachedAllReduce wraps simulate_collective with a cache keyed by size.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/gradient_compression.hpp"

namespace syncsim {

// Per-layer times in forward order; backward[i] is layer i's backward (run in reverse order).
struct LayerTimes {
  std::vector<SimTime> forward;
  std::vector<SimTime> backward;
};

// Per-layer forward and backward times of `model` at `batch` samples per rank: one rank's share of each layer.
LayerTimes layer_times(const ComputeModel& compute, const ModelSpec& model, std::int64_t batch, RankSplit split = {});

// simulate_collective with a cache keyed by size. `base` gives everything but the size (op, ranks, algorithm...);
// the router must outlive the cache.
class CachedAllReduce {
 public:
  CachedAllReduce(Router& router, CollectiveSpec base);
  SimTime operator()(Bytes size);
  std::size_t simulated() const { return cache_.size(); }

 private:
  Router* router_;
  CollectiveSpec base_;
  std::map<std::int64_t, SimTime> cache_;
};

struct DdpSetup {
  LayerTimes layers;
  BucketPlan buckets;
  // Per bucket, what its synchronization runs (gradient_compression.hpp); empty: one AllReduce of each bucket.
  std::vector<BucketSync> syncs;
  // The time of `op` of `size` over the ranks; required when there are buckets.
  std::function<SimTime(CollectiveOp op, Bytes size)> collective_time;
  bool overlap = true;
  std::int64_t micro_batches = 1;  // k >= 1
  SimTime optimizer_step;
  // Multi-rank runs only (synchronous_run.hpp; this single-rank timeline ignores both): the framework's own work per
  // iteration on the compute stream, after backward (DDP's bucket bookkeeping, Horovod's negotiation cycle), and
  // the fraction by which backward slows while an AllReduce is in flight beside it (NCCL's kernels hold SMs and
  // memory bandwidth): a layer overlapped for its whole length takes (1 + s) times as long.
  SimTime framework_overhead;
  double overlap_slowdown = 0;
};

enum class ComputePhase { forward, backward };

struct PhaseSpan {
  ComputePhase phase = ComputePhase::forward;
  std::int64_t micro_batch = 0;
  std::size_t layer = 0;  // forward index
  SimTime start;
  SimTime end;
};

struct BucketSpan {
  std::size_t bucket = 0;
  Bytes bytes;
  SimTime ready;  // its last gradient produced
  SimTime start;  // AllReduce launched
  SimTime end;
};

struct IterationTimeline {
  SimTime iteration;
  SimTime compute;                // k x (forward + backward)
  SimTime communication;          // sum of the bucket AllReduce times
  SimTime exposed_communication;  // iteration - compute - optimizer
  SimTime optimizer;              // optimizer step time
  SimTime backward_end;           // end of the last micro-batch's backward
  SimTime optimizer_start;
  std::vector<PhaseSpan> phases;    // in time order
  std::vector<BucketSpan> buckets;  // in plan order
};

// Throws InputError when the forward and backward lists differ in length, a bucket names a layer out of range,
// a time is negative, micro_batches < 1, syncs is neither empty nor one per bucket, or there are buckets but no
// collective_time.
IterationTimeline simulate_ddp_iteration(const DdpSetup& setup);

// Each bucket's synchronization: setup.syncs, or one AllReduce of every bucket when it is empty.
std::vector<BucketSync> bucket_syncs_of(const DdpSetup& setup);
// The time of sync's steps on the communication stream, collectives timed by `collective_time`.
SimTime sync_time(const BucketSync& sync, const std::function<SimTime(CollectiveOp, Bytes)>& collective_time);
// Per layer (forward index), the encoding time `syncs` put on the compute stream after its last backward.
std::vector<SimTime> encode_after_layers(const BucketPlan& plan, const std::vector<BucketSync>& syncs,
                                         std::size_t layers);

}  // namespace syncsim
