#pragma once
// Compute calibration of one GPU: GEMM throughput per precision and shape, device memory bandwidth, and optionally
// a sustained training-like load (sustained_gemm.hpp).
//
// Square GEMMs m = n = k (--gemm-sizes), cublasGemmEx, both operands not transposed ("NN"):
//
//   precision  cuBLAS call                                    operands       accumulate
//   fp32       cublasGemmEx, CUBLAS_COMPUTE_32F               float          float (no tensor cores)
//   tf32       cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32     float          float (tensor cores, TF32 inputs)
//   fp16       cublasGemmEx, CUBLAS_COMPUTE_32F               half           float
//   bf16       cublasGemmEx, CUBLAS_COMPUTE_32F               bfloat16       float
//
// Shapes (M, N, K) (--gemm-shapes; default the Llama 3 forward GEMMs of gemm_shapes.hpp), cublasLtMatmul in the TN
// layout (lt_matmul.hpp) at bf16 and, on compute capability 8.9 and later, fp8 (E4M3 operands, bf16 output).
//
// TFLOP/s = 2 m n k / time. Memory bandwidth = 2 x bytes / time of a copy (each byte read once and written once),
// by a copy kernel and by cudaMemcpy device-to-device; GB = 1e9 bytes.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gemm_shapes.hpp"
#include "sustained_gemm.hpp"

namespace syncsim::cuda {

struct ComputeOptions {
  std::vector<int> gemm_sizes = {};
  std::vector<GemmShape> gemm_shapes = {};
  int sustained_seconds = 0;  // 0: no sustained loop
  int warmup = 1;             // untimed runs before each measurement
  int iters = 20;             // timed runs per measurement
};

struct MemoryResult {
  std::int64_t bytes = 0;  // copied per operation
  double copy_kernel_gbps = 0;
  double memcpy_gbps = 0;
};

struct ComputeCalibration {
  int device = 0;
  std::string device_name;
  std::vector<GemmResult> gemm = {};  // squares (fp32, tf32, fp16, bf16), then shapes (bf16, fp8)
  std::string fp8_skipped;            // why no fp8 GEMM was timed; empty when they were (or no shapes were asked)
  MemoryResult memory = {};
  std::optional<SustainedResult> sustained = {};
};

ComputeCalibration measure_compute(int device, const ComputeOptions& options);
void print_compute(std::ostream& out, const ComputeCalibration& calibration);
nlohmann::json to_json(const ComputeCalibration& calibration);

}  // namespace syncsim::cuda
