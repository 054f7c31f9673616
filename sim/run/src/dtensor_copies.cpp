// ResolvedScenario::with_dtensor_copies: the copies PyTorch's tensor parallelism makes beside its collectives.
//
// PyTorch's tensor parallelism (full sharding beside a tensor split: torchtitan's FSDP + TP) gathers and scatters the
// sequence, dimension 1 of its (batch, sequence, hidden) activations, where NCCL's collectives work on dimension 0:
// funcol's all_gather_tensor concatenates the gathered chunks into place after the collective, and
// reduce_scatter_tensor concatenates its input's chunks into rank order before it (torch.cat of torch.chunk,
// torch/distributed/_functional_collectives.py; torchtitan's apply_tp notes the cost). Each is a memory-bound
// kernel on the compute stream that reads and writes the micro-batch's whole activation, b x s x h / c elements.
// Megatron's [s, b, h] activations gather along dimension 0 and copy nothing, and with a batch of 1 the chunks are
// already in place (PyTorch views them in its newer releases): neither has copies here.
//
// Per layer, one copy forward and one backward: a column-parallel product that takes the gathered input (QKV, FC1,
// the LM head) after its forward's all-gather and before its backward's reduce-scatter of the input gradient; a
// row-parallel one (the attention projection, FC2) and the embedding (row-parallel onto sequence shards) before
// their forward's reduce-scatter and after their backward's all-gather of the output gradient.
//
// Under tp_comm_overlap (torchtitan's async TP, torch/distributed/_symmetric_memory) the collectives beside a
// block's products (tensor_overlap.hpp) add two kernels of their own on the compute stream. Each all-gather-matmul
// first copies the rank's shard, 1/t of the micro-batch's b x s x h / c activation, into its exchange buffer (it does
// not overlap that copy with the first product, on purpose: _pipelined_multi_all_gather_and_consume): before the
// forward's column-parallel products (QKV, FC1) and the backward's row-parallel ones (the attention projection, FC2:
// their output gradients). Each matmul-reduce-scatter ends with the sum of the t partial chunks it received
// (reduce_fn over the stacked partials), which reads the activation and writes its 1/t: after the forward's
// row-parallel products and the backward's column-parallel ones (their input gradients).
#include "resolved_scenario.hpp"

namespace syncsim::run {

LayerTimes ResolvedScenario::with_dtensor_copies(LayerTimes times, std::int64_t samples, RankSplit split) const {
  const auto& t = model_.transformer();
  if (split.tensor < 2 || !t || scenario_->parallelism.sharding.value != ShardingLevel::full) return times;
  // The micro-batch's activation on one rank: b x s x h / c elements.
  const double activation = static_cast<double>(samples) * static_cast<double>(t->sequence) *
                            static_cast<double>(t->hidden) * static_cast<double>(element_bytes(precision())) /
                            static_cast<double>(split.context);
  const std::vector<Layer>& layers = model_.layers();
  const auto gemm = [&](std::size_t l) {
    return layers[l].kind == LayerKind::gemm || layers[l].kind == LayerKind::gemm_kept;
  };
  if (samples >= 2) {
    const SimTime copy = compute_->streaming_time(2 * activation);
    for (std::size_t l = 0; l < layers.size() && l < times.forward.size(); ++l) {
      const Layer& layer = layers[l];
      const bool column = gemm(l) && takes_gathered_input(layer);
      const bool row = gemm(l) && layer.shape.split == TensorSplit::inputs;
      if (!column && !row && layer.kind != LayerKind::embedding) continue;
      times.forward[l] += copy;
      times.backward[l] += copy;
    }
  }
  if (scenario_->parallelism.tp_comm_overlap.value) {
    const double shard = activation / static_cast<double>(split.tensor);
    const SimTime own_shard = compute_->streaming_time(2 * shard);  // read and written
    const SimTime sum = compute_->streaming_time(activation + shard);
    for (const auto& [first, last] : t->blocks) {
      for (std::size_t l = first; l < last && l < times.forward.size(); ++l) {
        if (!gemm(l)) continue;
        if (layers[l].shape.split == TensorSplit::inputs) {
          times.forward[l] += sum;
          times.backward[l] += own_shard;
        }
        if (takes_gathered_input(layers[l])) {
          times.forward[l] += own_shard;
          times.backward[l] += sum;
        }
      }
    }
  }
  return times;
}

}  // namespace syncsim::run
