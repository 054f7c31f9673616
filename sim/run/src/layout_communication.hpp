#pragma once
// LayoutCommunication: what a model-parallel layout's ranks compute and communicate, as the model-parallel
// engine's setup (model_parallel_run.hpp), with every collective simulated once on the topology with all groups of
// its kind at once (ResolvedScenario::group_collective), Megatron-LM's way:
//
//   stages      the model cut into pipeline x virtual_stages chunks as Megatron builds them (the blocks evenly, or
//               as the scenario's split says; pipeline_split.hpp's pipeline_chunk_ranges); stage d holds chunks d,
//               d + p, ...
//   compute     a chunk's layers at the per-replica micro-batch b, divided by tensor x context
//   tensor      per block and micro-batch, 2 AllReduces of the b x s x h activation (/ context) forward and 2
//               backward (attention and MLP output; with sequence parallelism a ReduceScatter and an AllGather
//               move the same bytes), exposed, or beside the block's GEMMs with tp_comm_overlap
//               (tensor_overlap.hpp); one more forward for the vocabulary-parallel embedding and one backward for
//               the head's input
//   context     per block and micro-batch, an AllGather of K and V (2 x b x s x kv_width / tensor) forward and a
//               ReduceScatter of their gradients backward (Llama 3's all-gather context parallelism)
//   pipeline    per micro-batch and chunk boundary, the b x s x h / (tensor x context) activation forward and its
//               gradient backward, a two-rank transfer between the ranks of adjacent stages with the same
//               coordinates (the even boundaries simulated at once)
//   expert      per MoE block and micro-batch, the dispatch and combine all-to-alls of the routed token copies
//               (b x s x k x h / (tensor x context)) forward and their gradients backward, in the expert groups
//               (expert consecutive data-parallel ranks, rank_layout.hpp); the routed experts' weights / expert
//   data        the stage's gradient buckets (training.bucket_size, the layers' gradients / tensor, the last layers
//               first), over all data x context groups at once (RankLayout::gradient_groups: a replica's context
//               ranks reduce theirs too); the routed experts' in buckets of their own, over the expert
//               data-parallel groups
//   step        the model's optimizer step x the stage's share of the parameters / tensor
//   recompute   under full activation checkpointing each block's backward runs its forward again first, with its
//               tensor AllReduces and context gathers (the layer times already hold the compute)
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "resolved_scenario.hpp"
#include "syncsim/chakra/layout_workload.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/training/model_parallel_run.hpp"
#include "syncsim/training/rank_layout.hpp"
#include "syncsim/training/training_report.hpp"
#include "tensor_overlap.hpp"

namespace syncsim::run {

// What each kind of a layout's communication costs per iteration (causal: the run again with that kind free), and
// the data-parallel bus bytes one GPU moves per iteration, with the collectives that move them.
struct LayoutExposure {
  SimTime data;
  SimTime tensor;
  SimTime context;
  SimTime pipeline;
  SimTime expert;
  double data_bytes_per_gpu = 0;
  std::string data_collectives;
};

class LayoutCommunication {
 public:
  // A collective's time without simulating it, over all of its groups (layout_probe.hpp's floor).
  using CollectiveFloor = std::function<SimTime(CollectiveOp, Bytes, const std::vector<std::vector<std::size_t>>&)>;

  // Throws InputError at parallelism.tensor (context) for a model without a transformer structure. With `floor`,
  // every collective takes floor's time instead of being simulated (and no link carries traffic): the setup is then a
  // lower bound of the simulated one's times, for the planner to prune by.
  explicit LayoutCommunication(ResolvedScenario& context, CollectiveFloor floor = {});

  const RankLayout& layout() const { return layout_; }
  // The engine's setup; simulates the collectives it needs (once each).
  ModelParallelSetup setup();
  // The iteration as Chakra traces hold it (chakra/layout_workload.hpp): sizes and groups, no collective's time.
  chakra::LayoutWorkload chakra_workload() const;
  // The engine's setup from model.chakra's traces (one rank per stage, their files beside the one named) in place of
  // the model's: every collective the traces name costed on this cluster as setup() costs it. InputError at
  // model.chakra naming the file and node for what does not fit the scenario's layout (chakra_layout.cpp).
  ModelParallelSetup imported_setup();
  // One rank's forward and backward per layer without a pipeline: the layers' compute / (tensor x context), each
  // block's tensor and context collectives added to its last layer (they run on the compute stream), the
  // embedding's AllReduce to the first layer and the head's to the last; `tensor` or `context` false leaves that
  // kind out (the causal reruns). The sharded engine's layers under a layout.
  LayerTimes rank_layer_times(bool tensor, bool context) const;
  // Per layer, the tensor and context collectives rank_layer_times adds to it, one node each (the Chakra export of
  // the sharded engine's layers under a layout, sharded_layout_run.cpp).
  void chakra_rank_collectives(std::vector<std::vector<chakra::LayoutCollective>>& forward,
                               std::vector<std::vector<chakra::LayoutCollective>>& backward) const;
  // A trace's per-layer collectives (chakra_rank_collectives' read back) costed on this cluster as
  // rank_layer_times costs them: per layer, the tensor collectives' time, then the context collectives'.
  std::pair<LayerTimes, LayerTimes> imported_rank_collectives(const chakra::DdpWorkload& workload);
  // A data-parallel collective over all data-parallel groups at once, run `per_iteration` times per iteration (for
  // the links' traffic).
  SimTime data_collective(CollectiveOp op, Bytes bytes, double per_iteration);
  // The report's communication_by_group: data, tensor, context, expert, pipeline (the kinds of size above 1).
  std::vector<GroupCommunication> group_reports(const LayoutExposure& exposure) const;
  // The report's layout section: sizes, the pipeline's bubble, MFU and HFU of `report`'s throughput.
  LayoutReport layout_report(const TrainingReport& report, double bubble_fraction) const;
  // The report's busiest links, and each group's own busiest link (GroupCommunication::busiest_link).
  void fill_links(TrainingReport& report, std::int64_t iterations) const;

 private:
  // A dense gradient collective over the data x context groups (RankLayout::gradient_groups). NCCL keeps a dp x cp
  // ring's inter-node hops on one rail each (its graph search; PXN), so on the network it moves what the context
  // ranks' own data-parallel rings would with each GPU's share (dc - 1)/dc in place of (d - 1)/d: timed so, on
  // those rail-aligned groups, which the collective simulator runs on its fast path (a ring with several members
  // per node and cross-rail hops falls to flow-by-flow simulation, 10-30x slower at frontier counts), time and link
  // bytes x ((dc - 1)/dc) / ((d - 1)/d). Exact when either size is 1: the data groups, or the context groups.
  SimTime gradient_collective(CollectiveOp op, Bytes bytes, double per_iteration);
  SimTime timed(std::string_view kind, CollectiveOp op, Bytes bytes,
                const std::vector<std::vector<std::size_t>>& groups, double per_iteration);
  ChunkWork chunk_work(std::int64_t stage, std::int64_t chunk);
  // With `segments`, also the chunk's backward compute cut where each bucket becomes complete.
  std::vector<ChunkWork::Unit> units(std::pair<std::size_t, std::size_t> range,
                                     std::vector<SimTime>* segments = nullptr) const;
  std::int64_t stage_params(std::int64_t stage) const;  // the stage's parameters (routed experts' / expert)
  std::vector<SimTime> optimizer_steps() const;         // per stage: its ranks' step without sharding
  // The pipeline's transfers (of `transfer` bytes) and the data-parallel collectives of `out`'s units.
  void add_communication(ModelParallelSetup& out, Bytes transfer);
  chakra::LayoutChunk chakra_chunk(std::int64_t stage, std::int64_t chunk) const;
  SimTime imported_time(const chakra::LayoutCollective& c, double per_iteration);
  // tp_comm_overlap: the chunk's tensor collectives beside its blocks' GEMMs, its passes' compute cut at the GEMM
  // runs (chakra_tensor_overlap.cpp); and a pass's read back, costed as block_tensor_time costs them.
  void chakra_overlaps(std::pair<std::size_t, std::size_t> range, chakra::LayoutChunk& out) const;
  // One of them: an all-gather (of output gradients: `grad`) or a reduce-scatter run by `spec` beside `gemm`.
  chakra::LayoutOverlap tensor_overlap(bool gather, const OverlapSpec& spec, SimTime beside,
                                       std::vector<std::size_t> gemm, bool grad = false) const;
  // `blocks` blocks' tensor collectives on the compute stream, as block_tensor_time counts them without overlap:
  // AllReduces of activation_, or where the all-gathers move another type (gathered_) each all-gather and
  // reduce-scatter as it runs.
  void chakra_block_tensor(std::vector<chakra::LayoutCollective>& forward,
                           std::vector<chakra::LayoutCollective>& backward, std::int64_t blocks) const;
  SimTime imported_overlaps(const chakra::LayoutPass& pass, double per_iteration);
  bool is_expert(std::size_t layer) const;  // a routed experts' layer, split over expert parallelism
  BlockTensorTime block_tensor(std::pair<std::size_t, std::size_t> block) const;
  BlockTensorInput block_tensor_input(std::pair<std::size_t, std::size_t> block) const;
  // The first block's userbuffers overlaps under Megatron's tp_comm_overlap, for the layout's report.
  std::vector<TensorOverlapReport> tensor_overlap_report() const;
  // The tensor group's messages, their times and counts, and each block's time (layout_tensor_collectives.cpp), for
  // m micro-batches per iteration over `stages` pipeline stages.
  void setup_tensor(double m, double stages);
  // Transformer Engine's FP8 amax all-reduces (layout_amax.cpp): which ranks they join, then per chunk the ones at the
  // end of its forward and backward passes, added to `w` on the compute stream.
  void setup_amax();
  void add_amax(ChunkWork& w, std::pair<std::size_t, std::size_t> range);
  // Where the amax all-reduces run: none, the stage's tensor x data x context ranks (reported with the data group),
  // or its tensor x context ranks (with the tensor group, or the context group without tensor parallelism).
  enum class AmaxGroup { none, stage, tensor, context };
  // Their part of communication_by_group: what the group's collectives say of them, and their bus bytes per GPU.
  std::string amax_collectives() const;
  double amax_bus_bytes() const;
  // The bytes a chunk's passes reduce, forward and backward (0 where none run).
  std::pair<std::int64_t, std::int64_t> amax_bytes(std::pair<std::size_t, std::size_t> range) const;
  // Their role in a Chakra trace: the stage-wide amax groups, or under tp_only_amax_red beside data parallelism the
  // tensor (or context) groups; InputError at the key where they are tensor x context groups, which no role names.
  chakra::GroupRole amax_role() const;
  // The same, nullopt where no role names them; their time follows it (amax_time).
  std::optional<chakra::GroupRole> amax_trace_role() const;
  // Where a pass's amax all-reduce goes in `w`: with the data, tensor or context collectives inside it.
  SimTime& amax_slot(ChunkWork& w, bool backward) const;
  // One all-reduce of `bytes` on one of amax_groups_ (amax_groups_ must not be empty).
  SimTime amax_time(Bytes bytes);
  double amax_per_iteration() const;  // how often each chunk's all-reduce runs per iteration, over all stages
  // b x s x width x element bytes / parts, refused at the batch past 2^62 bytes (an absurd batch or sequence); by
  // default the precision's 16- or 32-bit elements.
  Bytes message(std::int64_t width, std::int64_t parts, double element = 0) const;

  ResolvedScenario& context_;
  CollectiveFloor floor_;
  RankLayout layout_;
  std::int64_t chunks_ = 1;
  std::int64_t forward_again_ = 0;  // 1 under full checkpointing: each block's forward runs again in backward
  std::int64_t gathers_again_ = 0;  // 1 under selective_op: each block's tensor all-gathers run again in backward
  bool keeps_shard_ = false;        // Megatron's sequence parallelism: inputs all-gathered again for wgrad
  // Transformer Engine's userbuffers configuration where its overlaps run (ResolvedScenario::userbuffers).
  const UserbuffersConfig* userbuffers_ = nullptr;
  // Under model.precision fp8 with quantized gathers: a reduce-scatter of TE's FP8 userbuffer moves gathered_.
  bool fp8_scatters_ = false;
  bool multicast_ = false;       // the tensor group on one NVSwitch that multicasts (BlockTensorInput::multicast)
  int fp8_buffer_scatters_ = 0;  // of a block's two forward reduce-scatters, those TE runs from FP8 userbuffers
  // Per block and micro-batch, the allreduces' worth of all-gathers the backward runs beyond its own two:
  // selective_op's and Megatron's re-gathers, as block_tensor_time counts them.
  std::int64_t regathers() const { return gathers_again_ + (keeps_shard_ ? 1 : 0); }
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;  // per global chunk
  LayerTimes layers_;
  std::vector<bool> recomputed_;  // per layer: its forward runs again in backward (ResolvedScenario::recomputed)
  Bytes activation_;              // b x s x h / context: the tensor-parallel message
  Bytes kv_;                      // 2 x b x s x kv_width / tensor: the context-parallel gather
  // The tensor all-gathers' message: activation_'s elements in the scaled format's operand bytes under fp8, mxfp8,
  // nvfp4 or mxfp4 with sequence-parallel gathers (tensor_overlap.hpp); activation_ otherwise.
  Bytes gathered_;
  bool grad_gathers_scaled_ = false;  // the output gradients gathered in it too (Transformer Engine's, Megatron's)
  bool quantized_gathers() const { return gathered_ != activation_; }
  double gpu_sms() const;  // the GEMMs' SMs that tp_comm_overlap's kernels share (an H100's 132 where unknown)
  // What one SM takes to move the rank's share of a tensor collective of `message` at NCCL's per-channel ceiling for
  // the GPU (nccl_channel_ceiling); zero for a GPU whose architecture is not known.
  SimTime one_sm(Bytes message) const;
  // What a tensor collective moves: a reduce-scatter activation_, an all-gather of inputs gathered_, of output
  // gradients (`grad`) gathered_ where grad_gathers_scaled_.
  Bytes tensor_message(bool gather, bool grad) const {
    return !gather || (grad && !grad_gathers_scaled_) ? activation_ : gathered_;
  }
  // The same for a collective run by `spec`: a reduce-scatter of TE's FP8 userbuffer gathered_ under fp8.
  Bytes tensor_message(bool gather, bool grad, const OverlapSpec& spec) const {
    return !gather && spec.fp8_buffer && fp8_scatters_ ? gathered_ : tensor_message(gather, grad);
  }
  SimTime tensor_allreduce_;
  SimTime tensor_gather_allreduce_;            // an allreduce of gathered_ (tensor_allreduce_ when the same message)
  std::vector<BlockTensorTime> block_tensor_;  // per block: its tensor collectives on the compute stream
  SimTime context_gather_;
  SimTime context_scatter_;
  double tensor_ops_per_iteration_ = 0;         // per rank: AllReduces' worth of activation_
  double tensor_gather_ops_per_iteration_ = 0;  // per rank: AllReduces' worth of gathered_ (0 when the same)
  double context_ops_per_iteration_ = 0;        // per rank: AllGathers and ReduceScatters of kv_
  std::int64_t expert_ = 1;                     // expert parallelism
  std::vector<std::vector<std::size_t>> expert_groups_;
  // The groups gradient_collective times on (the data groups, or the context groups without data parallelism),
  // made on its first call: a layout asks for one per bucket size.
  std::vector<std::vector<std::size_t>> gradient_timing_groups_;
  Bytes routed_;  // b x s x k x h / (tensor x context): a rank's routed token copies, each all-to-all's buffer
  SimTime expert_alltoall_;
  double expert_ops_per_iteration_ = 0;  // per rank: all-to-alls of routed_
  AmaxGroup amax_ = AmaxGroup::none;
  std::vector<std::vector<std::size_t>> amax_groups_;
  std::map<std::int64_t, SimTime> amax_asked_;  // by bytes: an amax all-reduce's time
  double amax_bytes_per_iteration_ = 0;         // per rank: their bytes
  struct Use {
    std::string kind;
    const CollectiveOutcome* outcome;
    double per_iteration;  // how many times per iteration all groups run it, averaged over stages
  };
  std::vector<Use> uses_;
};

}  // namespace syncsim::run
