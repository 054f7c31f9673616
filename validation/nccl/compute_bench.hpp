#pragma once
// Compute calibration of one GPU: cuBLAS GEMM throughput per precision and size, and device memory bandwidth.
//
//   precision  cuBLAS call                                    operands       accumulate
//   fp32       cublasGemmEx, CUBLAS_COMPUTE_32F               float          float (no tensor cores)
//   tf32       cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32     float          float (tensor cores, TF32 inputs)
//   fp16       cublasGemmEx, CUBLAS_COMPUTE_32F               half           float
//   bf16       cublasGemmEx, CUBLAS_COMPUTE_32F               bfloat16       float
//
// Square GEMMs m = n = k: TFLOP/s = 2 m n k / time. Memory bandwidth = 2 x bytes / time of a copy (each byte read
// once and written once), by a copy kernel and by cudaMemcpy device-to-device; GB = 1e9 bytes.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace syncsim::cuda {

struct GemmResult {
  std::string precision;  // fp32, tf32, fp16, bf16
  int size = 0;           // m = n = k
  double time_us = 0;
  double tflops = 0;
};

struct MemoryResult {
  std::int64_t bytes = 0;  // copied per operation
  double copy_kernel_gbps = 0;
  double memcpy_gbps = 0;
};

struct ComputeCalibration {
  int device = 0;
  std::string device_name;
  std::vector<GemmResult> gemm;
  MemoryResult memory;
};

// Runs on `device`; each measurement: `warmup` untimed runs, then `iters` timed with CUDA events.
ComputeCalibration measure_compute(int device, const std::vector<int>& gemm_sizes, int warmup, int iters);
void print_compute(std::ostream& out, const ComputeCalibration& calibration);
nlohmann::json to_json(const ComputeCalibration& calibration);

}  // namespace syncsim::cuda
