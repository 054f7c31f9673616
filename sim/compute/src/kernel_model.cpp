#include "syncsim/compute/kernel_model.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace syncsim {

namespace {

struct Tile {
  std::int64_t rows;
  std::int64_t cols;
};
// cuBLAS's tiles from most to least efficient (NVIDIA's Matrix Multiplication Background guide, 2.3) as Hopper's
// kernels name them (sm90_xmma_gemm_..._tilesize128x128x64 and 256x128x64 in public Nsight profiles); hipBLASLt's
// on CDNA 3 reach 256x256 (AMD, "Measuring Max-Achievable FLOPs - Part 2").
constexpr Tile kNvidiaTiles[] = {{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}};
constexpr Tile kAmdTiles[] = {{256, 256}, {256, 128}, {128, 256}, {128, 128}};
// A mainloop k-step of 64 with a pipeline of two stages to fill and an epilogue: about 128 of K at BF16 speed.
constexpr double kKStart = 128;
// FlashAttention-3's H100 forward at 16k tokens, no mask: 497, 648 and 756 TFLOP/s for head dimensions 64, 128, 256.
constexpr double kHead64 = 497.0 / 648;
constexpr double kHead256 = 756.0 / 648;
constexpr double kSequenceHalf = 200;    // tokens at which the kernel reaches half its long-sequence rate
constexpr double kRateSequence = 16384;  // the sequence the rates were measured at
constexpr double kCausalTile = 128;      // the flash kernels' query/key tile

double reuse(Tile t) {
  return static_cast<double>(t.rows * t.cols) / static_cast<double>(t.rows + t.cols);
}

std::span<const Tile> tiles(bool amd) {
  if (amd) return kAmdTiles;
  return kNvidiaTiles;
}

double head_factor(std::int64_t head_dim) {
  const double x = std::log2(static_cast<double>(std::max<std::int64_t>(head_dim, 1)));
  // Linear in log2 d through the three measured points; below 64 on the 64-128 slope, above 256 flat.
  const double f = x <= 7 ? 1 + (x - 7) * (1 - kHead64) : 1 + std::min(x - 7, 1.0) * (kHead256 - 1);
  return std::max(f, 0.25);
}

}  // namespace

KernelModel::KernelModel(const GpuSpec& gpu, KernelStyle style)
    : multiprocessors_(gpu.multiprocessors.value_or(0)), amd_(!gpu.compute_capability.has_value()) {
  // Both anchors are bursts on a quiet GPU; a training step holds the board at its power limit.
  const double sustained = gpu.sustained_matmul.value_or(1);
  if (multiprocessors_ > 0 && gpu.gemm_core) {
    core_ = *gpu.gemm_core * sustained;  // a profile's fit to its own shapes (gemm_fit.hpp)
  } else if (multiprocessors_ > 0 && gpu.best_gemm) {
    const BestGemm& b = *gpu.best_gemm;
    const TileChoice at_best =
        shape_factors({.m = static_cast<double>(b.m), .n = static_cast<double>(b.n), .k = static_cast<double>(b.k)}, 1);
    core_ = b.fraction / at_best.efficiency * sustained;
  }
  const FlashAttentionRates& r = gpu.flash_attention;
  const bool pytorch_attention = style == KernelStyle::eager || style == KernelStyle::compiled;
  attention_rate_ = pytorch_attention && r.eager ? r.eager : r.fused;
  if (attention_rate_) *attention_rate_ *= sustained;
}

TileChoice KernelModel::shape_factors(const GemmShape& shape, double k_scale) const {
  return pieces_factors(shape, k_scale, 1);
}

TileChoice KernelModel::pieces_factors(const GemmShape& piece, double k_scale, double pieces) const {
  const auto sms = static_cast<double>(multiprocessors_);
  const std::span<const Tile> candidates = tiles(amd_);
  const double best_reuse = reuse(candidates.front());
  const double u_k = piece.k / (piece.k + kKStart * k_scale);
  TileChoice best;
  double pooled_wave = 1;
  for (const Tile& t : candidates) {
    const double rows = std::ceil(piece.m / static_cast<double>(t.rows));
    const double cols = std::ceil(piece.n / static_cast<double>(t.cols));
    const double tiles = piece.groups * rows * cols;
    const double u_tile = piece.m * piece.n / (rows * static_cast<double>(t.rows) * cols * static_cast<double>(t.cols));
    const double u_wave = tiles / (std::ceil(tiles / sms) * sms);
    const double efficiency = reuse(t) / best_reuse * u_tile * u_wave * u_k;
    if (efficiency > best.efficiency) {
      best = {.rows = t.rows, .cols = t.cols, .tiles = tiles, .efficiency = efficiency};
      const double all = tiles * pieces;
      pooled_wave = all / (std::ceil(all / sms) * sms) / u_wave;
    }
  }
  best.tiles *= pieces;
  best.efficiency *= pooled_wave;
  return best;
}

TileChoice KernelModel::gemm(const GemmShape& shape, double k_scale) const {
  TileChoice choice = shape_factors(shape, k_scale);
  choice.efficiency *= core_.value_or(0);
  return choice;
}

std::optional<double> KernelModel::attention(std::int64_t head_dim, double sequence, bool causal) const {
  if (!attention_rate_) return std::nullopt;
  const double length = sequence / (sequence + kSequenceHalf) / (kRateSequence / (kRateSequence + kSequenceHalf));
  double efficiency = *attention_rate_ * head_factor(head_dim) * length;
  if (causal) {
    const double n = std::ceil(sequence / kCausalTile);
    efficiency /= (n + 1) / (2 * n);
  }
  return efficiency;
}

}  // namespace syncsim
