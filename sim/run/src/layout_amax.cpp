// Transformer Engine's FP8 amax all-reduces in Megatron's layouts (layout_communication.hpp). Under delayed scaling
// (model.precision fp8, Megatron's default FP8 recipe) TE reduces the current amax of every FP8 tensor of an
// fp8_autocast region when the region's forward ends (the autocast's exit) and when its backward ends (in the first
// module's backward): a blocking MAX all-reduce on the compute stream (TE v1.8-v1.10 fp8.py,
// reduce_and_update_fp8_tensors, async_op=False). Megatron wraps each model chunk's blocks in one region
// (transformer_block.py) over get_amax_reduction_group: in Megatron Core 0.9 and later the pipeline stage's tensor x
// data x context ranks, with tp_only_amax_red (and always in Core 0.8) its tensor x context ranks. Each TE module (a
// chunk's GEMM layers less those sharing an input: QKV, projection, FC1, FC2) reduces 3 amaxes forward (input, weight,
// output) and 2 backward (output gradient, input gradient), 4 bytes each.
#include <fmt/format.h>

#include "layout_communication.hpp"
#include "syncsim/compute/precision.hpp"

namespace syncsim::run {

namespace {

constexpr std::int64_t kAmaxBytes = 4;
constexpr std::int64_t kForwardAmaxes = 3;
constexpr std::int64_t kBackwardAmaxes = 2;

}  // namespace

void LayoutCommunication::setup_amax() {
  const ParallelismConfig& p = context_.scenario().parallelism;
  const LayoutSizes& n = layout_.sizes();
  if (!context_.megatron_layout() || context_.precision() != Precision::fp8) return;
  const bool tp_only = p.tp_only_amax_red.value;
  amax_groups_ = layout_.amax_groups(tp_only);
  if (amax_groups_.empty()) return;
  amax_ = !tp_only && n.data > 1 ? AmaxGroup::stage : n.tensor > 1 ? AmaxGroup::tensor : AmaxGroup::context;
}

std::pair<std::int64_t, std::int64_t> LayoutCommunication::amax_bytes(std::pair<std::size_t, std::size_t> range) const {
  if (amax_ == AmaxGroup::none) return {0, 0};
  const std::vector<Layer>& layers = context_.model().layers();
  std::int64_t modules = 0;
  for (std::size_t l = range.first; l < range.second; ++l) {
    if (layers[l].kind == LayerKind::gemm && !layers[l].shape.shares_input) ++modules;
  }
  return {kForwardAmaxes * kAmaxBytes * modules, kBackwardAmaxes * kAmaxBytes * modules};
}

SimTime& LayoutCommunication::amax_slot(ChunkWork& w, bool backward) const {
  switch (amax_) {
    case AmaxGroup::stage:
      return backward ? w.backward_data : w.forward_data;
    case AmaxGroup::context:
      return backward ? w.backward_context : w.forward_context;
    default:
      return backward ? w.backward_tensor : w.forward_tensor;
  }
}

void LayoutCommunication::add_amax(ChunkWork& w, std::pair<std::size_t, std::size_t> range) {
  const auto [forward, backward] = amax_bytes(range);
  if (forward == 0) return;
  const auto allreduce = [&](std::int64_t bytes) {
    amax_bytes_per_iteration_ += amax_per_iteration() * static_cast<double>(bytes);
    return amax_time(Bytes{bytes});
  };
  amax_slot(w, false) += allreduce(forward);
  amax_slot(w, true) += allreduce(backward);
}

double LayoutCommunication::amax_per_iteration() const {
  // Each stage's chunk runs m passes each way per iteration; the groups span every stage.
  return static_cast<double>(context_.scenario().model.micro_batches) / static_cast<double>(layout_.sizes().pipeline);
}

SimTime LayoutCommunication::amax_time(Bytes bytes) {
  // The planner's bound (floor_) counts none: still a bound, and a floor per candidate's own groups would cost the
  // bound as much as the rest of it.
  if (floor_) return SimTime::zero();
  if (const auto seen = amax_asked_.find(bytes.value); seen != amax_asked_.end()) return seen->second;
  SimTime time;
  if (amax_trace_role() == chakra::GroupRole::amax) {
    // A few hundred bytes over a stage: latency, not bandwidth, so one group's all-reduce is every group's (all of a
    // 16K-GPU layout's stage-wide groups at once cost an FP8 plan 30 times its time), run as NCCL's tuner runs so
    // small an all-reduce past a node, a tree; their bytes are left off the links.
    const std::vector<std::vector<std::size_t>> one{amax_groups_.front()};
    time = context_.group_collective(CollectiveOp::allreduce, bytes, one, Algorithm::tree).time;
  } else {
    // Tensor (or context) groups, as their other collectives are timed and a trace's read back times them.
    time = timed(amax_ == AmaxGroup::context ? "context" : "tensor", CollectiveOp::allreduce, bytes, amax_groups_,
                 amax_per_iteration());
  }
  amax_asked_[bytes.value] = time;
  return time;
}

std::optional<chakra::GroupRole> LayoutCommunication::amax_trace_role() const {
  const LayoutSizes& n = layout_.sizes();
  const bool stage_wide = !context_.scenario().parallelism.tp_only_amax_red.value || n.data == 1;
  const bool no_data = !stage_wide || n.data == 1;
  // The role a trace reader finds first for these ranks (tensor, context, then the stage's).
  if (no_data && n.context == 1) return chakra::GroupRole::tensor;
  if (no_data && n.tensor == 1) return chakra::GroupRole::context;
  if (stage_wide) return chakra::GroupRole::amax;
  return std::nullopt;
}

chakra::GroupRole LayoutCommunication::amax_role() const {
  if (const std::optional<chakra::GroupRole> role = amax_trace_role()) return *role;
  throw context_.scenario().parallelism.tp_only_amax_red.error(
      "a Chakra trace of FP8 amax all-reduces over tensor x context groups beside data parallelism is not written "
      "yet (no role of its METADATA names those groups)");
}

std::string LayoutCommunication::amax_collectives() const {
  const bool context = layout_.sizes().context > 1;
  const char* over = amax_ == AmaxGroup::stage     ? "tensor x data x context"
                     : amax_ == AmaxGroup::context ? "context"
                     : context                     ? "tensor x context"
                                                   : "tensor";
  return fmt::format(" + all_reduce of the FP8 amaxes at the end of each pass (delayed scaling) over {}", over);
}

double LayoutCommunication::amax_bus_bytes() const {
  if (amax_groups_.empty()) return 0;
  return amax_bytes_per_iteration_ * bus_factor(CollectiveOp::allreduce, amax_groups_.front().size());
}

}  // namespace syncsim::run
