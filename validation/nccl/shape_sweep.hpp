#pragma once
// The compute calibration's shape sweep: each (M, N, K) timed as one cuBLASLt GEMM in the TN layout at one
// precision (lt_matmul.hpp), `warmup` untimed runs then `iters` timed with CUDA events. The operands are allocated
// once, for the largest A, B and D among the shapes, and filled with pseudo-random values (kernels.hpp).
#include <cuda_runtime.h>

#include <vector>

#include "gemm_shapes.hpp"
#include "lt_matmul.hpp"

namespace syncsim::cuda {

std::vector<GemmResult> measure_gemm_shapes(const std::vector<GemmShape>& shapes, const LtPrecision& precision,
                                            cudaStream_t stream, int warmup, int iters);

}  // namespace syncsim::cuda
