#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels.hpp"

namespace syncsim::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 65535;

__host__ __device__ inline float value(int rank, std::int64_t index) {
  return static_cast<float>((3 * static_cast<std::int64_t>(rank) + index) % 11 + 1);
}

int blocks_for(std::int64_t count) {
  const std::int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

// Grid-stride loops: any count with a bounded grid.
__global__ void fill_values_kernel(float* buf, std::int64_t count, int rank, std::int64_t first) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    buf[i] = value(rank, first + i);
  }
}

__global__ void fill_constant_kernel(float* buf, std::int64_t count, float v) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    buf[i] = v;
  }
}

__global__ void count_wrong_kernel(const float* buf, std::int64_t count, int expect, int ranks, int root,
                                   std::int64_t offset, std::int64_t chunk, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    float want = 0;
    if (expect == static_cast<int>(Expect::sum_over_ranks)) {
      for (int q = 0; q < ranks; ++q) want += value(q, offset + j);
    } else if (expect == static_cast<int>(Expect::gathered)) {
      want = value(static_cast<int>(j / chunk), j);
    } else if (expect == static_cast<int>(Expect::exchanged)) {
      want = value(static_cast<int>(j / chunk), offset + j % chunk);
    } else {
      want = value(root, j);
    }
    if (buf[j] != want) ++mine;
  }
  if (mine != 0) atomicAdd(wrong, mine);
}

__global__ void copy_kernel(float4* dst, const float4* src, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = src[i];
  }
}

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

template <>
__device__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);  // E4M3 holds [-1, 1) with 3 mantissa bits: still every sign and many magnitudes
}

template <typename T>
__global__ void fill_matrix_kernel(T* buf, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    // A cheap integer hash to [-1, 1).
    unsigned int h = static_cast<unsigned int>(i) * 2654435761u;
    h ^= h >> 16;
    buf[i] = from_float<T>(static_cast<float>(h & 0xFFFF) / 32768.0f - 1.0f);
  }
}

}  // namespace

cudaError_t fill_values(float* buf, std::int64_t count, int rank, std::int64_t first, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  fill_values_kernel<<<blocks_for(count), kThreads, 0, stream>>>(buf, count, rank, first);
  return cudaGetLastError();
}

cudaError_t fill_constant(float* buf, std::int64_t count, float v, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  fill_constant_kernel<<<blocks_for(count), kThreads, 0, stream>>>(buf, count, v);
  return cudaGetLastError();
}

cudaError_t count_wrong(const float* buf, std::int64_t count, Expect expect, int ranks, int root, std::int64_t offset,
                        std::int64_t chunk, unsigned long long* wrong, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  count_wrong_kernel<<<blocks_for(count), kThreads, 0, stream>>>(buf, count, static_cast<int>(expect), ranks, root,
                                                                 offset, chunk < 1 ? 1 : chunk, wrong);
  return cudaGetLastError();
}

cudaError_t copy_bytes(void* dst, const void* src, std::int64_t bytes, cudaStream_t stream) {
  const std::int64_t count = bytes / static_cast<std::int64_t>(sizeof(float4));
  if (count <= 0) return cudaSuccess;
  copy_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<float4*>(dst), static_cast<const float4*>(src),
                                                          count);
  return cudaGetLastError();
}

cudaError_t fill_matrix(void* buf, std::int64_t count, MatrixType type, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (type) {
    case MatrixType::fp32:
      fill_matrix_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<float*>(buf), count);
      break;
    case MatrixType::fp16:
      fill_matrix_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<__half*>(buf), count);
      break;
    case MatrixType::bf16:
      fill_matrix_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(buf), count);
      break;
    case MatrixType::fp8_e4m3:
      fill_matrix_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(buf), count);
      break;
  }
  return cudaGetLastError();
}

}  // namespace syncsim::cuda
