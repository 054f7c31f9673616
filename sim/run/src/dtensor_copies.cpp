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
#include "resolved_scenario.hpp"

namespace syncsim::run {

LayerTimes ResolvedScenario::with_dtensor_copies(LayerTimes times, std::int64_t samples, RankSplit split) const {
  const auto& t = model_.transformer();
  if (split.tensor < 2 || samples < 2 || !t || scenario_->parallelism.sharding.value != ShardingLevel::full) {
    return times;
  }
  const double bytes = 2.0 * static_cast<double>(samples) * static_cast<double>(t->sequence) *
                       static_cast<double>(t->hidden) * static_cast<double>(element_bytes(precision())) /
                       static_cast<double>(split.context);
  const SimTime copy = compute_->streaming_time(bytes);
  const std::vector<Layer>& layers = model_.layers();
  for (std::size_t l = 0; l < layers.size() && l < times.forward.size(); ++l) {
    const Layer& layer = layers[l];
    const bool gemm = layer.kind == LayerKind::gemm || layer.kind == LayerKind::gemm_kept;
    const bool column = gemm && takes_gathered_input(layer);
    const bool row = gemm && layer.shape.split == TensorSplit::inputs;
    if (!column && !row && layer.kind != LayerKind::embedding) continue;
    times.forward[l] += copy;
    times.backward[l] += copy;
  }
  return times;
}

}  // namespace syncsim::run
