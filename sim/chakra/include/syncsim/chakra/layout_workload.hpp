#pragma once
// LayoutWorkload: one iteration of a model-parallel layout (tensor x context x data x pipeline, Megatron's rank
// order, rank_layout.hpp; expert parallelism inside the data-parallel groups) as Chakra execution traces hold it, one
// file per rank, and as the model-parallel engine runs it (model_parallel_run.hpp). All micro-batches of a chunk are
// alike, and the ranks of a stage too but for their peers and groups.
//
// A rank of stage d runs its passes in the schedule's order (pipeline_order), each pass a chain on the device:
//
//   forward of micro-batch j through its chunk c (global chunk g = c x p + d):
//     [COMM_RECV activation from the stage of g - 1] -> COMP "forward mb j chunk c" -> the pass's collectives
//     (tensor ALL_REDUCEs, context ALL_GATHERs, expert ALL_TO_ALLs, each on its process group) -> [COMM_SEND to g + 1]
//   backward: [COMM_RECV gradient from g + 1] -> COMP segments "backward mb j chunk c segment k" -> collectives
//     (tensor ALL_REDUCEs, context REDUCE_SCATTERs and ALL_GATHERs, expert ALL_TO_ALLs) -> [COMM_SEND to g - 1]
//
// Under tp_comm_overlap a pass's tensor collectives hang beside its GEMM segments instead (LayoutOverlap, below).
// The backward compute is cut where the chunk's data-parallel buckets become complete (the last layers first), so
// that bucket k of the chunk's last backward pass depends on segment k: an ALL_REDUCE (or, sharded, a
// REDUCE_SCATTER) on the data-parallel group (the expert data-parallel group for routed experts' gradients), one
// after another on one stream; then the optimizer step COMP "optimizer step"; sharded (ZeRO-1/2), an ALL_GATHER per
// bucket after it; fully sharded, the ALL_GATHERs come first instead and each chunk's first forward waits for its
// own. Every node of a pass carries syncsim_micro_batch, syncsim_chunk and syncsim_backward; send and receive carry
// comm_src, comm_dst and comm_tag as ASTRA-sim reads them; a METADATA_NODE (id 0) describes the rank's process
// groups (process_groups.hpp), named "0" (every rank) then per kind in Megatron's order, the same names in every
// rank's file.
//
// Read back (layout_workload), the traces of one rank per stage give the same workload: the pass order must be one
// of the schedules syncsim runs (gpipe, 1f1b, interleaved), and micro-batches that differ are refused.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/chakra/layout_groups.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/rank_layout.hpp"

namespace syncsim::chakra {

// tp_comm_overlap (Transformer Engine's userbuffers and PyTorch's async TP, as syncsim models them:
// run/tensor_overlap.hpp): a tensor collective of the b x s x h activation split in `chunks` chunks on the tensor
// group, a pipelined one's first chunk before its GEMM, the others beside it, the pass going on after both:
//
//   ... -> chunk 0 -> GEMM segments --------------> next
//                  \-> chunk 1 -> ... -> chunk k-1 -/
//
// so that a replayer overlaps them as syncsim does (a first chunk exposed, the rest hidden while the GEMM lasts).
// `beside` (syncsim_overlap_ps, on chunk 0) is the GEMM time syncsim's model overlaps the collective with: the
// GEMMs' forward, twice it in backward; `gemm` the pass's segments that are its GEMM (the export's; the import
// leaves it empty).
//
// `method` and `sms` (syncsim_overlap_method, syncsim_overlap_sms) say how the collective runs beside its GEMM, as
// the frameworks run it (run/tensor_overlap.hpp): chunked, the GEMM after the first chunk; sm_margin, chunked with
// the GEMM on the SMs the collective leaves; bulk, one piece beside a GEMM that does not wait for it (the writer gives
// the GEMM the collective's own dependencies); ring_exchange, Transformer Engine's and PyTorch's ring of t - 1
// exchanges beside a GEMM that starts on the rank's own shard (written as bulk is: `chunks` are the exchanges, t - 1);
// ring_exchange_pairs, TE's `aggregate`, the GEMM after the first of the t - 1 exchanges. A trace without them reads
// as syncsim wrote such traces before: chunked, reduce-scatters on 20 SMs.
enum class OverlapMethod { chunked, sm_margin, bulk, ring_exchange, ring_exchange_pairs };
struct LayoutOverlap {
  CollectiveKind op = CollectiveKind::all_gather;  // ALL_GATHER, or REDUCE_SCATTER
  std::int64_t bytes = 0;                          // the whole collective's: the chunks' sum
  std::int64_t chunks = 1;
  SimTime beside;
  std::vector<std::size_t> gemm = {};
  OverlapMethod method = OverlapMethod::chunked;
  std::optional<std::int64_t> sms = std::nullopt;  // the SMs its kernels take from the GEMM (0: the copy engines)
};

// One micro-batch through one chunk in one direction, on one rank.
struct LayoutPass {
  std::vector<SimTime> segments;  // the compute; forward: one; backward: cut where the buckets become complete
  SimTime recompute;              // backward: the part of the compute that runs forward again
  NodeWork work;                  // the pass's roofline work (num_ops, tensor_size), on its first segment
  std::vector<LayoutCollective> collectives = {};  // after the compute, in this order
  std::vector<LayoutOverlap> overlaps = {};        // beside the compute (tp_comm_overlap)
  SimTime compute() const;
};

// A data-parallel bucket of a chunk: complete after its backward's segment `segment`.
struct LayoutUnit {
  LayoutCollective collective;  // its reduction (ALL_REDUCE, or REDUCE_SCATTER when sharded)
  std::size_t segment = 0;
  bool expert = false;  // routed experts' gradients, over the expert data-parallel group
  // What its parameters' ALL_GATHER moves (sharded) where it differs from the reduction's bytes (FP32 gradients
  // beside 16-bit parameters, FP8 parameters); 0: the same bytes.
  std::int64_t gather_bytes = 0;
};

struct LayoutChunk {
  LayoutPass forward;
  LayoutPass backward;
  std::vector<LayoutUnit> units = {};  // in the order backward completes them
};

struct LayoutStage {
  std::vector<LayoutChunk> chunks;  // the device's chunks, 0 .. v - 1
  SimTime step;                     // the rank's optimizer step (its shard's, when sharded)
  NodeWork step_work;
};

struct LayoutWorkload {
  std::string name;
  LayoutSizes sizes;
  std::int64_t expert = 1;  // expert parallelism (inside each data-parallel group)
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t micro_batches = 1;
  std::int64_t chunks = 1;  // v, model chunks per stage
  ShardingLevel sharding = ShardingLevel::none;
  std::int64_t transfer_bytes = 0;  // one micro-batch's activation between stages (pipeline > 1)
  bool amax = false;                // its passes reduce FP8 amaxes over the amax role's groups (METADATA lists them)
  std::vector<LayoutStage> stages;
};

// Rank `rank`'s execution trace.
ExecutionTrace execution_trace(const LayoutWorkload& workload, std::int64_t rank);

// The workload in the traces of one rank per stage (`traces[d]` of stage d, read from `sources[d]`), whose layout the
// caller knows (`sizes`, `expert`). A collective's role is the kind of the layout's group its process group's ranks
// are (a group of no kind is refused). Throws InputError naming the file and node (id, name, kind) for what does not
// fit the graph above.
LayoutWorkload layout_workload(const std::vector<ExecutionTrace>& traces, const std::vector<std::string>& sources,
                               const LayoutSizes& sizes, std::int64_t expert);

}  // namespace syncsim::chakra
