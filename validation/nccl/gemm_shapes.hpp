#pragma once
// The (M, N, K) shapes of the compute calibration's GEMMs, D (M x N) = A (M x K) B (K x N) in 2 M N K flops, and
// the shape sweep's defaults.
//
// The defaults are the forward GEMMs of one transformer block of Llama 3 as Megatron runs it on one tensor-parallel
// rank, M tokens (micro-batch x sequence) in {2048, 4096, 8192, 16384}; the weights are split by the TP degree t
// (column-parallel QKV and gate+up split N, row-parallel out-proj and down split K):
//
//   model (hidden h, ffn f, heads q, kv heads g, head dim d = h / q)    TP t
//   QKV       N = (q + 2 g) d / t   K = h          out-proj  N = h   K = q d / t
//   gate+up   N = 2 f / t           K = h          down      N = h   K = f / t
//
//   Llama 3 8B    h 4096,  f 14336, q 32,  g 8, t 1: (6144, 4096)  (4096, 4096)  (28672, 4096)  (4096, 14336)
//   Llama 3 70B   h 8192,  f 28672, q 64,  g 8, t 4: (2560, 8192)  (8192, 2048)  (14336, 8192)  (8192, 7168)
//   Llama 3 405B  h 16384, f 53248, q 128, g 8, t 8: (2304, 16384) (16384, 2048) (13312, 16384) (16384, 6656)
//
// Model sizes: the models' config.json (Hugging Face meta-llama/Meta-Llama-3-8B, Meta-Llama-3-70B,
// Llama-3.1-405B). TP degrees: NVIDIA dgxc-benchmarking's Llama 3.1 layouts on DGX H100 (llama3.1/README_8b.md,
// README_70b.md, README_405b.md: 8B TP 1, 70B TP 4, 405B TP 8). With sequence parallelism the sequence is gathered
// before each column-parallel GEMM, so M is micro-batch x sequence / context-parallel degree on every TP rank (8192 /
// CP 2 = 4096 in those layouts).
#include <cstdint>
#include <string>
#include <vector>

namespace syncsim::cuda {

struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

// One timed GEMM: 2 M N K flops in time_us.
struct GemmResult {
  std::string precision;  // fp32, tf32, fp16, bf16, fp8
  std::string layout;     // "NN": cublasGemmEx, neither operand transposed; "TN": cuBLASLt, A transposed
  GemmShape shape;
  double time_us = 0;
  double tflops = 0;
};
GemmResult timed_gemm(std::string precision, std::string layout, const GemmShape& shape, double seconds);

// Each dimension at most this: beyond any one GEMM of a training step, and far from overflowing element counts.
inline constexpr std::int64_t kMaxGemmDimension = std::int64_t{1} << 20;

// The 48 Llama shapes above, M-major within each model.
std::vector<GemmShape> default_gemm_shapes();

// "MxNxK" per entry (e.g. "4096x6144x4096"), each a positive integer up to kMaxGemmDimension; a single "none"
// gives no shapes. Throws InputError naming `flag` and the entry that is wrong.
std::vector<GemmShape> parse_gemm_shapes(const std::vector<std::string>& entries, const std::string& flag);

std::string to_string(const GemmShape& shape);  // "MxNxK"

}  // namespace syncsim::cuda
