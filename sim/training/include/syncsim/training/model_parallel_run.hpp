#pragma once
// run_model_parallel: synchronous training under a tensor x context x data x pipeline layout (rank_layout.hpp),
// Megatron-LM's way, one engine beside the DDP and sharded ones. The ranks of one pipeline stage are alike, so one
// timeline per stage is every rank's of that stage.
//
//   passes       each stage runs its micro-batches' forward and backward passes in the schedule's order
//                (pipeline_schedule.hpp); a pass is the rank's share of its chunk's compute (the layers' work
//                divided by tensor x context) plus the tensor-, context- and expert-parallel collectives inside
//                it, which Megatron runs on the compute stream: exposed
//   transfers    between stages, each micro-batch's activation forward and its gradient backward
//   gradients    each stage's data-parallel gradient buckets are reduced on the stage's communication stream as the
//                chunk's last backward pass produces them (Megatron's overlapped grad reduce): an AllReduce, or
//                under sharding a ReduceScatter (Megatron's distributed optimizer, ZeRO-1/2)
//   step         once the stage's last bucket is reduced: the optimizer on the rank's share (1/d of it when
//                sharded); under sharding the updated parameters are then all-gathered chunk by chunk, and the
//                next iteration's first forward through a chunk waits for its gather (overlapped param gather)
//   full         (ZeRO-3, FSDP FULL_SHARD under pipelining) as the above, plus the first iteration's gathers, since
//                the parameters start as shards: each chunk is gathered once before its first forward and kept
//                through the iteration's micro-batches, its gradients reduce-scattered after its last backward
//                (torchtitan's default with a pipeline, reshard_after_forward off, gradient sync on the last
//                micro-batch; gathering again for each pass would move 2m times the parameters instead)
//   beside       a stage's passes that run while its own data-parallel collectives do (the last micro-batches'
//                backward beside the reductions, the first forward beside the next iteration's gathers) run
//                (1 + overlap_slowdown) times slower over that time (NCCL's kernels hold SMs and memory bandwidth;
//                training.overlap_slowdown, as the DDP and sharded engines): the stage's step starts that much
//                later, reported as interference; the causal rerun without data-parallel traffic keeps it, so the
//                data group's exposed time is its wait only
//
// An iteration ends when every stage has stepped; a stage starts the next one as soon as its own step (not the
// others') is done.
//
// Stragglers (StragglerModel: a slow GPU, jitter) make the data-parallel replicas differ. A tensor (or context) group
// waits for its slowest member at every collective inside a pass, so the group computes at its slowest member's
// factor: replica r's stage d runs its passes' compute x F(r, d) = max over its tensor x context ranks of
// factor(rank, iteration) (the collectives inside a pass keep their time, the optimizer step is not scaled, as in
// the DDP engine). A slow stage stretches every micro-batch behind it in its replica's pipeline, and stage d's
// data-parallel collectives, which join every replica, start when the last replica has produced the bucket. Replicas
// whose factors are alike at every stage are one class with one pipeline timeline, so a layout with one slow GPU
// runs two timelines whatever its size (with jitter, up to one per replica). With one class the run is exactly the
// run without stragglers. Not modelled: a slow replica's wait at expert all-to-alls with other replicas. What each kind
// of communication costs is measured causally: the iteration run again with that kind free, over a few iterations.
#include <cstdint>
#include <functional>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/training/pipeline_schedule.hpp"
#include "syncsim/training/straggler_model.hpp"

namespace syncsim {

// One micro-batch through one chunk on one rank of its stage.
struct ChunkWork {
  SimTime forward_compute;
  SimTime backward_compute;
  SimTime forward_tensor;  // tensor-parallel collectives inside the forward pass
  SimTime backward_tensor;
  SimTime forward_context;  // context-parallel gathers (K, V) inside the forward pass
  SimTime backward_context;
  SimTime forward_expert;  // expert parallelism's all-to-alls (dispatch, combine) inside the forward pass
  SimTime backward_expert;
  // Data-parallel collectives inside the pass, on the compute stream: Transformer Engine's FP8 amax all-reduce at its
  // end, over the stage's tensor x data x context ranks (LayoutCommunication)
  SimTime forward_data;
  SimTime backward_data;
  SimTime backward_recompute;  // the part of backward_compute that runs forward again (activation checkpointing)
  // The chunk's data-parallel gradient buckets, in the order backward completes them: `ready` is the share of the
  // chunk's backward compute done when the bucket's last gradient exists (1 for the last bucket).
  struct Unit {
    Bytes bytes;
    double ready = 1;
    bool expert = false;  // routed experts' gradients: reduced over the expert data-parallel group
    // What the distributed optimizer's all-gather of these parameters moves, where it differs from the reduced
    // gradients' bytes (Megatron's FP8 parameters, parallelism.fp8_all_gather); zero: the same bytes.
    Bytes gathered{};
    Bytes gather_bytes() const { return gathered.value > 0 ? gathered : bytes; }
    // What a collective `op` on this unit moves: its parameters' gather, or its gradients' reduction.
    Bytes moved_by(CollectiveOp op) const { return op == CollectiveOp::all_gather ? gather_bytes() : bytes; }
  };
  std::vector<Unit> units;
};

struct ModelParallelSetup {
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t stages = 1;
  std::int64_t chunks = 1;  // model chunks per stage (the interleaved schedule's virtual stages)
  std::int64_t micro_batches = 1;
  std::vector<std::vector<ChunkWork>> work;  // [stage][chunk]
  SimTime transfer;                          // one micro-batch's activation between adjacent stages
  ShardingLevel sharding = ShardingLevel::none;
  std::int64_t data = 1;  // d, the data-parallel size
  // c, the context-parallel size: a replica's c context ranks compute the same weights' gradients on different
  // tokens, so the dense gradients are reduced, and ZeRO shards, over d x c ranks (RankLayout::gradient_groups)
  std::int64_t context = 1;
  std::int64_t expert_data = 1;         // the expert data-parallel size: d / expert parallelism
  std::vector<SimTime> optimizer_step;  // per stage: the rank's parameters' step without sharding
  std::int64_t iterations = 1;
  // A data-parallel collective of `bytes` (all of the data-parallel groups at once, or with `expert` the expert
  // data-parallel ones): allreduce, reduce_scatter or all_gather. Not called for a group of 1.
  std::function<SimTime(CollectiveOp op, Bytes bytes, bool expert)> data_collective;
  // Per-rank compute factors over the layout's ranks in Megatron's order (rank_layout.hpp): rank g + group x (r +
  // data x d) is member g of replica r's stage d, `group` = tensor x context. Default: none.
  StragglerModel stragglers;
  std::int64_t group = 1;
  double overlap_slowdown = 0;  // s: compute beside the stage's data-parallel collectives runs (1 + s) times slower
};

struct ModelParallelResult {
  std::vector<SimTime> iteration_times;
  SimTime total;
  // Per stage, over all iterations; the times sum to `total`. With stragglers, each is the mean over the stage's
  // data-parallel replicas.
  struct Stage {
    SimTime compute;       // the passes' compute (x the replica's straggler factor)
    SimTime recompute;     // the part of compute that is forward run again (activation checkpointing)
    SimTime tensor;        // tensor-parallel collectives inside the passes
    SimTime context;       // context-parallel collectives inside the passes
    SimTime expert;        // expert all-to-alls inside the passes
    SimTime data_wait;     // the gradients' reduction after the last pass, the parameters' gathers before the first
    SimTime data_inline;   // data-parallel collectives inside the passes (ChunkWork::forward_data)
    SimTime optimizer;     // the steps
    SimTime interference;  // the passes' extra time beside the stage's data-parallel collectives (overlap_slowdown)
    // Waiting for slower replicas: from the replica's last pass to the slowest replica's (stragglers only).
    SimTime straggler_wait;
    // The rest is waiting on other stages: for their transfers (the iteration's causal loss to them, exposed_pipeline
    // x iterations, at most the rest) and for their work (the pipeline bubble).
    SimTime pipeline;
    SimTime bubble;
    double data_bytes_per_iteration = 0;  // bus bytes one GPU moves in data-parallel collectives
  };
  std::vector<Stage> stages;
  double bubble_fraction = 0;       // the last iteration's pipeline (pipeline_schedule.hpp), of its slowest replica
  std::size_t replica_classes = 1;  // the most pipeline timelines one iteration ran (replicas alike are one)
  // Per iteration, what the iteration would lose without each kind of communication (a rerun with it free).
  SimTime exposed_tensor;
  SimTime exposed_context;
  SimTime exposed_pipeline;
  SimTime exposed_data;
  SimTime exposed_expert;
  // The traced iterations' spans: the last ones, at most about 1,024 passes; with stragglers, the slowest replica's.
  struct PassSpan {
    std::int64_t iteration = 0;
    std::int64_t stage = 0;
    PipelinePass pass;
    SimTime start;
    SimTime end;
  };
  struct CollectiveSpan {
    std::int64_t iteration = 0;
    std::int64_t stage = 0;
    CollectiveOp op = CollectiveOp::allreduce;
    std::size_t chunk = 0;
    Bytes bytes;
    SimTime start;
    SimTime end;
  };
  struct StepSpan {
    std::int64_t iteration = 0;
    std::int64_t stage = 0;
    SimTime start;
    SimTime end;
  };
  std::vector<PassSpan> passes;
  std::vector<CollectiveSpan> collectives;
  std::vector<StepSpan> steps;
};

// Throws InputError for a setup whose tables disagree with its sizes, a negative time, or a slow rank beyond the
// layout's group x data x stages ranks.
ModelParallelResult run_model_parallel(const ModelParallelSetup& setup);

}  // namespace syncsim
