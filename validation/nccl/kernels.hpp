#pragma once
// CUDA kernels of syncsim-bench-nccl, behind plain functions: filling buffers with rank-dependent values, counting
// wrong results, a copy for memory bandwidth, filling GEMM operands. C++17 on both sides (nvcc takes no C++20).
//
// Collective inputs are value(rank, i) = (3 rank + i) mod 11 + 1, small integers whose sums over ranks are exact
// in float, so the check compares for equality. Every function returns the launch's cudaError_t.
#include <cuda_runtime.h>

#include <cstdint>

namespace syncsim::cuda {

// What a result should hold, element j of the checked buffer.
enum class Expect : int {
  sum_over_ranks = 0,  // sum over all ranks q of value(q, offset + j)  (AllReduce, Reduce, ReduceScatter)
  gathered = 1,        // value(j / chunk, j)                           (AllGather)
  root_values = 2,     // value(root, j)                                (Broadcast)
  exchanged = 3,       // value(j / chunk, offset + j mod chunk)        (AllToAll: block q from rank q, offset =
                       //                                                the receiver's rank x chunk)
};

// buf[i] = value(rank, first + i), i < count.
cudaError_t fill_values(float* buf, std::int64_t count, int rank, std::int64_t first, cudaStream_t stream);
// buf[i] = v, i < count.
cudaError_t fill_constant(float* buf, std::int64_t count, float v, cudaStream_t stream);
// Adds to *wrong (device memory) the elements of buf[0..count) that differ from what `expect` says.
cudaError_t count_wrong(const float* buf, std::int64_t count, Expect expect, int ranks, int root, std::int64_t offset,
                        std::int64_t chunk, unsigned long long* wrong, cudaStream_t stream);
// dst = src over `bytes` (a multiple of 16), reading and writing each byte once.
cudaError_t copy_bytes(void* dst, const void* src, std::int64_t bytes, cudaStream_t stream);

enum class MatrixType : int { fp32 = 0, fp16 = 1, bf16 = 2, fp8_e4m3 = 3 };
// `count` elements of pseudo-random values in [-1, 1): GEMM throughput depends on the data (zeros draw less power).
cudaError_t fill_matrix(void* buf, std::int64_t count, MatrixType type, cudaStream_t stream);

}  // namespace syncsim::cuda
