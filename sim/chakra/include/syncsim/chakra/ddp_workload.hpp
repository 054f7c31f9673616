#pragma once
// DdpWorkload: one synchronous data-parallel iteration of one rank, as a Chakra execution trace holds it (the
// export) and as the DDP engine runs it (the import): layer times, the optimizer step and the gradient buckets.
//
// Export, one rank's graph (ids in this order, every dependency on an earlier id; id 0 is the METADATA_NODE that
// describes the process groups, process_groups.hpp):
//
//   F0 -> F1 -> ... -> F(L-1) -> B(L-1) -> ... -> B1 -> B0 -> OPT        COMP_NODEs "<layer> forward|backward"
//                                  |              |                ^
//                                  v              v                |     COMM_COLL_NODE ALL_REDUCE per bucket,
//                                 AR0  ------->  AR1 --> ... --> AR(n-1) "bucket <j> all_reduce", comm_size bytes
//
// Bucket j's AllReduce depends on the backward of its ready_after_layer and on AllReduce j-1 (DDP's one
// communication stream: buckets run one at a time, in plan order); the optimizer step on the last backward and on
// every AllReduce. ASTRA-sim replays the same overlap: communication under the rest of backward. Compute nodes carry
// num_ops and tensor_size (the roofline's FLOPs and bytes at the batch), collectives pg_name "0" (all ranks).
//
// Import, the mapping back (any trace of COMP_NODEs and ALL_REDUCE COMM_COLL_NODEs over every rank, in any order:
// nodes are indexed by id and walked dependencies first, trace_graph.hpp; METADATA_NODEs skipped; CPU ops, is_cpu_op,
// are not on the GPU's compute stream and pass their dependencies through; a forward, or a PyTorch ProfilerStep#,
// that comes after a collective begins the next iteration, and only the first iteration is read):
//   - a COMP_NODE that depends (through any chain) on a collective is optimizer work: their times add up to the
//     optimizer step;
//   - the other COMP_NODEs, in file order, are the compute stream. Backward begins at the first node whose name
//     ends in " backward" (or else at the first node a collective depends on); before it each node is a layer's
//     forward. A backward node "X backward" whose "X forward" came earlier is that layer's backward when every
//     backward node pairs so, in reverse layer order (syncsim's own traces); otherwise every backward node becomes
//     a layer of its own, with no forward, laid out so that DDP's reverse walk runs them in file order;
//   - each ALL_REDUCE, in file order, is a bucket of comm_size bytes, ready after the latest backward node it
//     depends on (through any chain; the first backward node when it depends on none).
// A node's time is syncsim_duration_ps when present (exact), else duration_micros.
//
// Hence a trace syncsim exported, read back, gives the layer times, optimizer step and buckets it was written
// from, to the picosecond, and the same iteration on the same cluster.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/chakra/layout_groups.hpp"
#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/ddp_iteration.hpp"

namespace syncsim::chakra {

// What a compute node does, for a simulator that times it itself (ASTRA-sim's roofline mode): its floating-point
// operations (num_ops) and the bytes it moves through memory (tensor_size).
struct NodeWork {
  std::int64_t ops = 0;
  std::uint64_t bytes = 0;
};

struct DdpWorkload {
  std::string name;                 // the workload, for the trace's metadata
  std::int64_t ranks = 1;           // the data-parallel ranks (one file each)
  std::vector<std::string> layers;  // names, forward order
  LayerTimes times;                 // per layer, forward order
  SimTime optimizer;
  BucketPlan buckets;  // in launch order; each bucket's ready_after_layer indexes `layers`
  // Per layer, its forward's and backward's work, and the optimizer step's: written as num_ops and tensor_size when
  // given (the export's), empty when not (the import keeps the times only).
  std::vector<NodeWork> forward_work = {};
  std::vector<NodeWork> backward_work = {};
  std::optional<NodeWork> optimizer_work = std::nullopt;
  // Gradient accumulation: k forward and backward passes of the layers, the buckets reduced in the last one's
  // backward only. The export writes every pass (syncsim_micro_batch on each compute node, k > 1); the import reads
  // the first micro-batch's nodes as the layers and counts the micro-batches.
  std::int64_t micro_batches = 1;
  // ZeRO over the ranks (the sharded engine's): each bucket REDUCE_SCATTERed instead of AllReduced, the step the
  // rank's shard's (ceil(step / ranks)); ZeRO-1/2 then ALL_GATHER each bucket after the step, first layers first;
  // full sharding gathers each bucket before its first forward and again, a bucket ahead, for backward. The import
  // tells none, sharded (`optimizer`) and `full` apart.
  ShardingLevel sharding = ShardingLevel::none;
  // HSDP (PyTorch's HYBRID_SHARD): the ranks each bucket is sharded over, s consecutive ranks (0: all of them). Each
  // bucket's REDUCE_SCATTER and ALL_GATHER run on the rank's shard group, and after each REDUCE_SCATTER the rank's
  // shard (ceil(bytes / s)) is AllReduced across the d / s replicas holding it, on a second stream that the step
  // waits for; the step is ceil(step / s). The groups are those of PyTorch's DeviceMesh (replicas, s)
  // (ddp_process_groups). The import reads s from the reductions' group.
  std::int64_t shard_group = 0;
  // Per bucket, what its ALL_GATHER moves when that is not the bucket's bytes (FSDP's FP8 all-gather gathers FP8
  // weights and reduces 16-bit gradients); empty: the bucket's. The export writes them as the gathers' comm_size; the
  // import reads them back from a trace that names each layer's bucket (syncsim_bucket).
  std::vector<Bytes> gather_bytes = {};
  // Full sharding beside tensor or context parallelism without a pipeline (torchtitan's FSDP + TP, the sharded engine
  // over a layout's ranks): the layout, whose data-parallel groups the buckets' collectives run on (`ranks` is every
  // rank; the step is ceil(step / data)), and per layer the collectives its forward and its backward run on the
  // compute stream after it, each on its group (tensor AllReduces, context gathers and scatters). The import reads
  // them when given the layout.
  std::optional<LayoutSizes> layout = std::nullopt;
  std::vector<std::vector<LayoutCollective>> forward_inline = {};
  std::vector<std::vector<LayoutCollective>> backward_inline = {};
  std::int64_t iterations_in_trace = 1;  // the import's: how many iterations the trace held (the first is read)
};

// The process group every collective of a DDP trace runs on: PyTorch's default group, all ranks ("0", as the
// PyTorch execution trace names it and Chakra's converter copies it into pg_name).
inline constexpr std::string_view kDefaultProcessGroup = "0";

// Rank `rank`'s process groups: the default one ("0", every rank); under HSDP then its replica group and its shard
// group, numbered as PyTorch's DeviceMesh creates them (the replicate dimension's s groups "1" .. "s", the shard
// dimension's "s + 1" ..), pg_desc "mesh_dp_replicate" and "mesh_dp_shard" (torchtitan's dimension names).
// With a layout, the layout's groups (layout_process_groups), in `roles` by role.
std::vector<ProcessGroup> ddp_process_groups(const DdpWorkload& workload, std::int64_t rank,
                                             std::map<GroupRole, std::string>* roles = nullptr);

// One rank's execution trace of `workload` (every rank's is the same but for its rank number).
ExecutionTrace execution_trace(const DdpWorkload& workload, std::int64_t rank);

// `trace` mapped as above; with `layout` (FSDP + TP), a collective on one of the layout's tensor or context groups
// is the compute stream's, after the layer it follows, and the buckets' run on its data-parallel groups. Throws
// InputError at `source` naming the node (id, name and kind) for a node kind or a collective other than COMP_NODE and
// ALL_REDUCE, a collective without a positive comm_size or over a subgroup, a dependency on an id no node has, a
// dependency cycle, a repeated id, or a time past the clock.
DdpWorkload ddp_workload(const ExecutionTrace& trace, const std::string& source,
                         const std::optional<LayoutSizes>& layout = std::nullopt);

}  // namespace syncsim::chakra
