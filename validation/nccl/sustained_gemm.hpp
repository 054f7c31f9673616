#pragma once
// A sustained, training-like load: for `seconds`, repeat { one bf16 GEMM 8192 x 8192 x 8192 (cublasGemmEx, as the
// square sweep runs it); one copy kernel over copy_bytes (1 GiB, or a quarter of the free memory if less) }, with
// every GEMM timed by its own pair of CUDA events. The copies keep the HBM busy between GEMMs as a training step's
// memory-bound kernels do, so the board draws a step's power and the clocks settle where they would in training.
//
//   window w (1 s, by when each GEMM ended on the GPU's clock):  gemm_tflops = 2 m n k x gemms / (their summed time)
//
// A GEMM that keeps its quiet rate shows the same TFLOP/s in the last window as in the first; a clock that drops
// under the load shows as a falling series. A few GEMMs stay queued ahead of the host, so the GPU never waits for it.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gemm_shapes.hpp"

namespace syncsim::cuda {

struct SustainedWindow {
  double end_s = 0;  // the window's end, seconds after the loop began
  double gemm_tflops = 0;
  int gemms = 0;  // at least 1: a window in which no GEMM ended is left out
};

struct SustainedResult {
  std::string precision = "bf16";
  GemmShape shape = {};
  std::int64_t copy_bytes = 0;  // per copy kernel (read once and written once)
  int seconds = 0;
  std::string started_utc;  // when the loop began, to line it up with nvidia-smi's samples
  std::vector<SustainedWindow> windows = {};
};

// `warmup` untimed GEMM + copy pairs first.
SustainedResult measure_sustained(cublasHandle_t blas, cudaStream_t stream, int seconds, int warmup);
// First and last window and their ratio; with `quiet_tflops` (the same GEMM timed back to back for a fraction of a
// second, as the square sweep does), the last window against it too.
void print_sustained(std::ostream& out, const SustainedResult& sustained, std::optional<double> quiet_tflops);
nlohmann::json to_json(const SustainedResult& sustained);

}  // namespace syncsim::cuda
