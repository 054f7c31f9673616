#pragma once
// KernelModel: how close to the GPU's peak a kernel of a given shape runs (docs/compute.md, "Kernels by shape").
//
// A GEMM of M x N x K (per group of a grouped GEMM) is tiled as cuBLAS and CUTLASS tile it: the output cut into
// thread-block tiles of Tm x Tn, one tile per SM at a time. Of the candidate tiles (NVIDIA's 256x128, 128x256,
// 128x128, 128x64 and 64x128; AMD's 256x256, 256x128, 128x256, 128x128) the model takes the one that runs fastest:
//
//   efficiency = core x reuse(T) x u_tile x u_wave x u_K
//   reuse(T)  = (Tm·Tn / (Tm + Tn)) / the same of the set's largest tile   operands loaded per FLOP: smaller tiles
//                                                                          feed the tensor cores less
//   u_tile    = M·N / (⌈M/Tm⌉·Tm · ⌈N/Tn⌉·Tn)                               partial tiles at the edges
//   u_wave    = C / (⌈C/S⌉ · S),  C = groups·⌈M/Tm⌉·⌈N/Tn⌉, S = SMs            the last wave's idle SMs
//   u_K       = K / (K + K0),  K0 = 128 x the format's speed-up over BF16    the pipeline's fill and epilogue
//
// NVIDIA's "Matrix Multiplication Background User's Guide" (2023, 2.3, 3.1, 3.2) describes the tiles and both
// quantizations. `core` is set per GPU so that the model reproduces the GPU's one published best-shape measurement
// (GpuSpec::best_gemm), or, on a profiled GPU, fitted to the shapes the profile timed (GpuSpec::gemm_core,
// gemm_fit.hpp): nothing is fitted to a training run. Both are bursts on a quiet GPU; core and the attention rates
// below run at the share of them a saturated board sustains (GpuSpec::sustained_matmul).
//
// Flash attention runs at the GPU's published rate for its kernel (GpuSpec::flash_attention: fused = cuDNN, eager =
// PyTorch's FlashAttention-2) scaled by head dimension and sequence length as FlashAttention-3's H100 charts scale:
//
//   efficiency = rate x head(d) x s/(s + 200) / (16384/(16384 + 200))
//   head(d)    = 1 at d = 128, 0.767 at 64, 1.167 at 256 (497, 648, 756 TFLOP/s at 16k), linear in log2 d
//   causal:    the kernel skips the tiles above the diagonal: of n = ⌈s/128⌉ rows of tiles it computes n(n+1)/2,
//              so its time is (n+1)/(2n) of the unmasked one on the same FLOP count
#include <cstdint>
#include <optional>

#include "syncsim/compute/gpu_spec.hpp"

namespace syncsim {

// How the framework runs the memory-bound layers and which attention kernel it calls (model.kernels):
//   fused     Transformer Engine and Megatron's fusions: fused memory-bound layers, cuDNN's attention
//   eager     PyTorch without torch.compile: every elementwise op its own kernel, scaled_dot_product_attention
//   compiled  PyTorch with each transformer block compiled (torchtitan's torch.compile): the blocks' memory-bound
//             layers fused, the final norm and the loss eager, attention still scaled_dot_product_attention (Inductor
//             calls the same SDPA kernel; it does not replace it)
enum class KernelStyle { fused, eager, compiled };

struct GemmShape {
  double m = 0;
  double n = 0;
  double k = 0;
  double groups = 1;  // a grouped GEMM's independent products (a MoE layer's experts on one rank)
};

struct TileChoice {
  std::int64_t rows = 0;  // Tm
  std::int64_t cols = 0;  // Tn
  double tiles = 0;       // C
  double efficiency = 0;  // of the peak, all factors included
};

class KernelModel {
 public:
  // GEMMs are shaped when the GPU has multiprocessors and a best GEMM; attention when it has a rate for `style`.
  KernelModel(const GpuSpec& gpu, KernelStyle style);

  bool shapes_gemms() const { return core_.has_value(); }
  // The GPU's constant (see above), nullopt where GEMMs are not shaped.
  std::optional<double> core() const { return core_; }
  // The tile the model picks for `shape` and the efficiency it reaches; k_scale is the format's peak over BF16's
  // (2 for FP8 on Hopper), which lengthens the start-up in K. Requires shapes_gemms().
  TileChoice gemm(const GemmShape& shape, double k_scale = 1) const;
  bool has_attention_rate() const { return attention_rate_.has_value(); }
  // Flash attention's efficiency on the layer's counted (unmasked) FLOPs, or nullopt without a rate.
  std::optional<double> attention(std::int64_t head_dim, double sequence, bool causal) const;
  // The shape factors alone (core excluded), for the candidate tiles: what core multiplies.
  TileChoice shape_factors(const GemmShape& shape, double k_scale) const;
  // The same for `pieces` products of shape `piece` run on streams of their own, as the tensor-parallel overlaps run
  // a GEMM's chunks: each piece takes the tile that is best for it alone (cuBLAS chooses per call), and the pieces'
  // tiles fill the waves together (one piece's last wave beside the next one's first). 1 piece: shape_factors.
  TileChoice pieces_factors(const GemmShape& piece, double k_scale, double pieces) const;

 private:
  int multiprocessors_ = 0;
  bool amd_ = false;
  std::optional<double> core_;
  std::optional<double> attention_rate_;
};

}  // namespace syncsim
