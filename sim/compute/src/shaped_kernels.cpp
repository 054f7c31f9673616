// ComputeModel's kernels by shape (compute_model.hpp, kernel_model.hpp): one rank's GEMMs, flash attention and
// memory-bound layers.
#include <algorithm>

#include "syncsim/compute/compute_model.hpp"

namespace syncsim {

namespace {
// FlashAttention's backward: 2.5x the forward FLOPs (the scores are recomputed), at 0.87 of the forward's rate
// (FlashAttention-3 at head dimension 128 and 16k tokens: 561 against 648 TFLOP/s on an H100), in two kernels (the
// output-gradient dot product, then the main one).
constexpr double kAttentionBackwardFlops = 2.5;
constexpr double kAttentionBackwardRate = 561.0 / 648;
constexpr std::int64_t kAttentionBackwardKernels = 2;

double share(RankSplit split) {
  return 1.0 / static_cast<double>(split.tensor * split.context);
}
}  // namespace

GemmShape ComputeModel::gemm_shape(const Layer& layer, double batch, RankSplit split) const {
  const auto tensor = static_cast<double>(split.tensor);
  const double tokens = batch * static_cast<double>(layer.shape.tokens) / static_cast<double>(split.context);
  const double groups =
      layer.weight_matrices > 1 ? std::max(1.0, static_cast<double>(layer.weight_matrices / split.expert)) : 1.0;
  // A fused projection's layers run as its one GEMM: each its share of the FLOPs at that GEMM's efficiency.
  const std::int64_t width =
      fused_projections() && layer.shape.fused_rows > 0 ? layer.shape.fused_rows : layer.weight_rows;
  const double rows = static_cast<double>(width) / (layer.shape.split == TensorSplit::outputs ? tensor : 1);
  const double cols = static_cast<double>(layer.weight_cols) / (layer.shape.split == TensorSplit::inputs ? tensor : 1);
  return {.m = tokens / groups, .n = rows, .k = cols, .groups = groups};
}

TileChoice ComputeModel::forward_tile(const Layer& layer, std::int64_t batch, RankSplit split) const {
  const double k_scale = (runs_scaled(layer) ? scaled_peak_flops_ : peak_flops_) / peak_flops_;
  return kernels_.gemm(gemm_shape(layer, static_cast<double>(batch), split), k_scale);
}

SimTime ComputeModel::shaped_gemm(const Layer& layer, std::int64_t batch, RankSplit split, bool backward) const {
  const auto b = static_cast<double>(batch);
  const double peak = runs_scaled(layer) ? scaled_peak_flops_ : peak_flops_;
  const double k_scale = peak / peak_flops_;
  const double flops = b * static_cast<double>(layer.forward_flops) * share(split);
  const auto seconds = [&](const GemmShape& g) { return flops / (peak * kernels_.gemm(g, k_scale).efficiency); };
  // The bytes are the constant roofline's, streamed at the measured fraction of the bandwidth.
  const Roofline whole = roofline(layer, batch);
  const double streaming = efficiency() / streaming_fraction() * share(split);
  const double memory = whole.memory_seconds * streaming;
  const double quantize = whole.quantize_seconds * streaming;
  const GemmShape f = gemm_shape(layer, b, split);
  if (!backward) {
    const double cast = (whole.quantize_seconds - whole.cast_in_norm_seconds) * streaming;
    return SimTime::from_seconds(std::max(seconds(f), memory) + cast) + options_.kernel_overhead;
  }
  const double transpose = whole.transpose_seconds * streaming;
  // The input gradient is M x K over N, the weight gradient N x K over M (per group).
  const double input_gradient = seconds({.m = f.m, .n = f.k, .k = f.n, .groups = f.groups});
  const double weight_gradient = seconds({.m = f.n, .n = f.k, .k = f.m, .groups = f.groups});
  return SimTime::from_seconds(std::max(input_gradient + weight_gradient, 2 * memory) + quantize + transpose) +
         options_.kernel_overhead * 2;
}

SimTime ComputeModel::split_gemm_extra(const Layer& layer, std::int64_t batch, RankSplit split, std::int64_t pieces,
                                       bool input_gradient) const {
  const bool gemm = layer.kind == LayerKind::gemm || layer.kind == LayerKind::gemm_kept;
  if (pieces < 2 || !gemm || !gpu_.multiprocessors || *gpu_.multiprocessors < 1 || layer.shape.tokens < 1 ||
      layer.weight_rows < 1 || layer.weight_cols < 1 || layer.weight_matrices < 1) {
    return SimTime::zero();
  }
  const RankSplit rank = layer_split(layer, split);
  const double peak = runs_scaled(layer) ? scaled_peak_flops_ : peak_flops_;
  const double k_scale = peak / peak_flops_;
  GemmShape whole = gemm_shape(layer, static_cast<double>(batch), rank);
  if (input_gradient) whole = {.m = whole.m, .n = whole.k, .k = whole.n, .groups = whole.groups};
  GemmShape piece = whole;
  piece.m = whole.m / static_cast<double>(pieces);
  const double ratio = kernels_.shape_factors(whole, k_scale).efficiency /
                       kernels_.pieces_factors(piece, k_scale, static_cast<double>(pieces)).efficiency;
  if (!(ratio > 1)) return SimTime::zero();
  const double flops = static_cast<double>(batch) * static_cast<double>(layer.forward_flops) * share(rank);
  const double product = shaped(layer) ? flops / (peak * kernels_.gemm(whole, k_scale).efficiency)
                                       : roofline(layer, batch).compute_seconds * share(rank);
  return SimTime::from_seconds(product * (ratio - 1));
}

SimTime ComputeModel::shaped_attention(const Layer& layer, std::int64_t batch, RankSplit split, bool backward) const {
  const double sequence = static_cast<double>(layer.shape.tokens) / static_cast<double>(split.context);
  const double rate = *kernels_.attention(layer.shape.head_dim, sequence, layer.shape.causal);
  const double flops = static_cast<double>(batch) * static_cast<double>(layer.forward_flops) * share(split);
  const double memory = roofline(layer, batch).memory_seconds * efficiency() / streaming_fraction() * share(split);
  const double compute = flops / (peak_flops_ * rate);
  if (!backward) return SimTime::from_seconds(std::max(compute, memory)) + options_.kernel_overhead;
  return SimTime::from_seconds(std::max(compute * kAttentionBackwardFlops / kAttentionBackwardRate, 2 * memory)) +
         options_.kernel_overhead * kAttentionBackwardKernels;
}

SimTime ComputeModel::shaped_streaming(const Layer& layer, std::int64_t batch, RankSplit split) const {
  // shaped() only with kernels set; compiled blocks fuse their own layers, not the ones between them
  const bool compiled = options_.compiled_loss && layer.shape.loss;
  const bool eager = !compiled && (options_.kernels == KernelStyle::eager ||
                                   (options_.kernels == KernelStyle::compiled && !layer.shape.in_block) ||
                                   (options_.kernels == KernelStyle::fused && layer.shape.eager_under_megatron));
  const double traffic = eager ? layer.shape.eager_traffic : layer.shape.fused_traffic;
  const std::int64_t kernels = eager ? layer.shape.eager_kernels : (layer.shape.fused_traffic > 0 ? 1 : 0);
  const Roofline whole = roofline(layer, batch);
  // The constant roofline's seconds at efficiency() back to bytes and FLOPs, then at this model's rates.
  const double memory = whole.memory_seconds * efficiency() / streaming_fraction() * traffic * share(split);
  const double compute = whole.compute_seconds * efficiency() * share(split);
  if (kernels == 0) return SimTime::from_seconds(memory);
  return SimTime::from_seconds(std::max(memory, compute)) + options_.kernel_overhead * kernels;
}

}  // namespace syncsim
