// The tensor group's collectives of a layout (layout_communication.hpp): what each block's all-gathers and
// reduce-scatters move, their time per block on the compute stream (tensor_overlap.hpp), and their count per
// iteration for the links' bytes.
#include "layout_communication.hpp"
#include "syncsim/collectives/latency_model.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
#include "syncsim/compute/precision.hpp"

namespace syncsim::run {

void LayoutCommunication::setup_tensor(double m, double stages) {
  const ParallelismConfig& p = context_.scenario().parallelism;
  const TransformerStructure& t = *context_.model().transformer();
  const LayoutSizes& n = layout_.sizes();
  const auto blocks = static_cast<double>(t.blocks.size());
  const auto again = static_cast<double>(forward_again_);
  keeps_shard_ = n.tensor > 1 && context_.megatron_layout() && p.sequence_parallel.value;
  userbuffers_ = context_.userbuffers();
  if (keeps_shard_ && p.userbuffers) check_ring_pairs(*p.userbuffers, n.tensor);
  if (userbuffers_ && context_.gpu().multiprocessors) {
    if (auto why = userbuffers_sms_error(*userbuffers_, *context_.gpu().multiprocessors, context_.gpu().name)) {
      throw p.userbuffers ? p.userbuffers->error(std::move(*why))
                          : p.tp_comm_overlap.error(*why + " (NeMo's H100 configuration, which `true` runs)");
    }
  }
  if (n.tensor > 1) {
    // Per block 2 allreduces' worth forward, 2 (1 + again) backward, one more under selective_op (its two all-gathers
    // again) and one more for Megatron's wgrad re-gathers (tensor_overlap.hpp); the embedding's and the head's.
    const double per_block = 2 * (2 + again) + static_cast<double>(regathers());
    // Under a scaled precision the sequence-parallel all-gathers move the quantized activations: the forward's
    // inputs (again under recomputation and selective_op, and Megatron's re-gathers) and, where Transformer Engine
    // casts them first (Megatron's layouts), the output gradients (tensor_overlap.hpp).
    const bool gathers = !context_.megatron_layout() || p.sequence_parallel.value;
    const Precision precision = context_.precision();
    gathered_ = gathers && is_scaled(precision) ? message(t.hidden, n.context, operand_bytes(precision)) : activation_;
    grad_gathers_scaled_ = context_.megatron_layout();
    fp8_scatters_ = precision == Precision::fp8 && quantized_gathers();
    // Under tp_comm_overlap TE's FP8 userbuffers move the forward's reduce-scatters in FP8 too (fp8_buf): half an
    // allreduce's worth each, forward and again under recomputation.
    if (fp8_scatters_ && userbuffers_) {
      for (const int i : {1, 3}) fp8_buffer_scatters_ += forward_overlap(i, n.tensor, userbuffers_).fp8_buffer ? 1 : 0;
    }
    const double gather_per_block = quantized_gathers()
                                        ? 1 + again + static_cast<double>(regathers()) +
                                              (grad_gathers_scaled_ ? 1 : 0) + 0.5 * fp8_buffer_scatters_ * (1 + again)
                                        : 0;
    tensor_ops_per_iteration_ = m * (blocks * (per_block - gather_per_block) + 2) / stages;
    tensor_gather_ops_per_iteration_ = m * blocks * gather_per_block / stages;
    const auto groups = layout_.groups(GroupKind::tensor);
    // Transformer Engine multicasts (userbuffers-host.cpp: Hopper or newer, its NVLink SHARP) where the whole group
    // hangs off one NVSwitch that reduces, as NCCL's NVLS needs.
    multicast_ =
        reducing_nvlink_domains(context_.topology(), groups.front(), context_.gpu().compute_capability).size() == 1;
    tensor_allreduce_ = timed("tensor", CollectiveOp::allreduce, activation_, groups, tensor_ops_per_iteration_);
    tensor_gather_allreduce_ = quantized_gathers() ? timed("tensor", CollectiveOp::allreduce, gathered_, groups,
                                                           tensor_gather_ops_per_iteration_)
                                                   : tensor_allreduce_;
    for (const auto& block : t.blocks) block_tensor_.push_back(block_tensor(block));
  }
}

BlockTensorTime LayoutCommunication::block_tensor(std::pair<std::size_t, std::size_t> block) const {
  return block_tensor_time(block_tensor_input(block));
}

BlockTensorInput LayoutCommunication::block_tensor_input(std::pair<std::size_t, std::size_t> block) const {
  const LayoutSizes& n = layout_.sizes();
  const std::vector<Layer>& layers = context_.model().layers();
  BlockTensorInput in{.allreduce = tensor_allreduce_,
                      .tensor = n.tensor,
                      .gemm_runs = {},
                      .overlap = context_.scenario().parallelism.tp_comm_overlap.value,
                      .forward_again = forward_again_,
                      .gathers_again = gathers_again_,
                      .keeps_shard = keeps_shard_};
  in.gpu_sms = gpu_sms();
  in.userbuffers = userbuffers_;
  if (quantized_gathers()) {
    in.gather_allreduce = tensor_gather_allreduce_;
    in.grad_gather_allreduce = grad_gathers_scaled_ ? tensor_gather_allreduce_ : tensor_allreduce_;
  }
  if (fp8_scatters_) in.fp8_scatter_allreduce = tensor_gather_allreduce_;
  in.multicast = multicast_;
  in.one_sm = {.scatter = one_sm(tensor_message(false, false)),
               .gather = one_sm(tensor_message(true, false)),
               .grad_gather = one_sm(tensor_message(true, true)),
               .fp8_scatter = one_sm(gathered_)};
  for (const std::vector<std::size_t>& run : block_gemm_runs(layers, block)) {
    SimTime forward;
    for (const std::size_t l : run) forward += layers_.forward[l];
    in.gemm_runs.push_back(forward);
  }
  return in;
}

namespace {
std::string method_name(const OverlapSpec& spec) {
  switch (spec.method) {
    case OverlapMethod::chunked:
      return "pipeline";
    case OverlapMethod::sm_margin:
      return "pipeline (set_sm_margin)";
    case OverlapMethod::bulk:
      return "bulk";
    case OverlapMethod::ring_exchange:
      return "ring_exchange";
    case OverlapMethod::ring_exchange_pairs:
      return "ring_exchange (aggregate)";
  }
  return "?";
}
}  // namespace

std::vector<TensorOverlapReport> LayoutCommunication::tensor_overlap_report() const {
  std::vector<TensorOverlapReport> out;
  const std::optional<TransformerStructure>& t = context_.model().transformer();
  if (block_tensor_.empty() || !t || t->blocks.empty()) return out;
  // The first block's GEMM runs as the overlaps split them, by run (QKV, projection, FC1, FC2), at the layout's pace.
  const std::vector<SplitGemmCost> split = context_.split_gemm_costs(0, context_.batch(), context_.rank_split());
  std::vector<bool> backward_split(split.size(), false);
  for (const LayerOverlap& o : userbuffers_layers(block_tensor_input(t->blocks.front()))) {
    TensorOverlapReport r{.layer = std::string(to_string(o.layer)),
                          .method = method_name(o.spec),
                          .sms = static_cast<std::int64_t>(o.spec.sms),
                          .collective = o.cost.collective,
                          .own_rate = o.own_rate,
                          .gemm = o.gemm,
                          .exposed = o.cost.exposed,
                          .sm_cost = o.cost.sm_cost};
    const std::size_t run = gemm_run(o.layer);
    const bool forward = forward_layer(o.layer);
    if (run < split.size() && gemm_pieces(o.spec) > 1) {
      const SplitGemmCost& c = split[run];
      // A backward run's input gradient splits once, beside the first of its collectives with its pieces.
      const bool splits = forward || (gemm_pieces(o.spec) == c.backward_pieces && !backward_split[run]);
      if (splits) {
        if (!forward) backward_split[run] = true;
        r.pieces = forward ? c.forward_pieces : c.backward_pieces;
        for (const SimTime extra : forward ? c.forward : c.backward) r.split_cost += extra.scaled(context_.pace());
      }
    }
    // One SM's time over the collective's own: the SMs with which the ceiling costs nothing.
    if (o.spec.sms > 0 && o.one_sm > SimTime::zero() && o.own_rate > SimTime::zero()) {
      r.sms_to_keep_pace = (o.one_sm.ps() + o.own_rate.ps() - 1) / o.own_rate.ps();
    }
    out.push_back(std::move(r));
  }
  return out;
}

SimTime LayoutCommunication::one_sm(Bytes message) const {
  const std::optional<int> cc = context_.gpu().compute_capability;
  if (!cc) return SimTime::zero();
  return one_sm_time(message, nccl_channel_ceiling(*cc));
}

double LayoutCommunication::gpu_sms() const {
  const std::optional<int> sms = context_.gpu().multiprocessors;
  return sms && *sms >= 1 ? *sms : BlockTensorInput{}.gpu_sms;
}

}  // namespace syncsim::run
