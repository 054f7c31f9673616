#pragma once
// Owners of the CUDA and cuBLAS objects the compute calibration uses: each frees what it holds on scope exit, so
// that a failed call in the middle (a CudaFailure thrown by SYNCSIM_CUDA) leaks nothing.
//
//   Stream stream;                  // cudaStreamCreate / cudaStreamDestroy
//   DeviceBuffer a(bytes);          // cudaMalloc / cudaFree
//   EventTimer timer;               // two CUDA events; seconds_per_call times a callable
//   Blas blas(stream);              // cublasHandle_t bound to a stream
//   LtHandle lt;                    // cublasLtHandle_t
//   LtOwned<cublasLtMatmulDesc_t> d;  // a cuBLASLt descriptor (matmul, matrix layout, preference)
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "cuda_check.hpp"

namespace syncsim::cuda {

struct Stream {
  cudaStream_t stream = nullptr;
  Stream() { SYNCSIM_CUDA(cudaStreamCreate(&stream)); }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { SYNCSIM_CUDA(cudaMalloc(&ptr, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct EventTimer {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  EventTimer() {
    SYNCSIM_CUDA(cudaEventCreate(&start));
    SYNCSIM_CUDA(cudaEventCreate(&stop));
  }
  ~EventTimer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // Seconds per call of `work`, after `warmup` untimed calls.
  template <class F>
  double seconds_per_call(cudaStream_t stream, int warmup, int iters, F&& work) {
    for (int i = 0; i < warmup; ++i) work();
    SYNCSIM_CUDA(cudaEventRecord(start, stream));
    for (int i = 0; i < iters; ++i) work();
    SYNCSIM_CUDA(cudaEventRecord(stop, stream));
    SYNCSIM_CUDA(cudaEventSynchronize(stop));
    return elapsed_seconds() / iters;
  }

  // Seconds from `start` to `stop`, both recorded and `stop` complete.
  double elapsed_seconds() const {
    float ms = 0;
    SYNCSIM_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms) * 1e-3;
  }
};

struct Blas {
  cublasHandle_t handle = nullptr;
  explicit Blas(cudaStream_t stream) {
    SYNCSIM_CUBLAS(cublasCreate(&handle));
    SYNCSIM_CUBLAS(cublasSetStream(handle, stream));
  }
  ~Blas() { cublasDestroy(handle); }
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
};

// One n x n x n product C = A B of column-major operands, as cuBLAS's default algorithm runs it (alpha 1, beta 0).
inline void square_gemm(cublasHandle_t blas, int n, const void* a, const void* b, void* c, cudaDataType_t type,
                        cublasComputeType_t compute) {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  SYNCSIM_CUBLAS(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, type, n, b, type, n, &beta, c, type,
                              n, compute, CUBLAS_GEMM_DEFAULT));
}

// A copy buffer's size: at most `cap` bytes and a quarter of the device's free memory, a multiple of 16.
inline std::int64_t copy_buffer_bytes(std::int64_t cap) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  SYNCSIM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return std::min<std::int64_t>(cap, static_cast<std::int64_t>(free_bytes / 4)) / 16 * 16;
}

struct LtHandle {
  cublasLtHandle_t handle = nullptr;
  LtHandle() { SYNCSIM_CUBLAS(cublasLtCreate(&handle)); }
  ~LtHandle() { cublasLtDestroy(handle); }
  LtHandle(const LtHandle&) = delete;
  LtHandle& operator=(const LtHandle&) = delete;
};

struct LtDestroy {
  void operator()(cublasLtMatmulDescOpaque_t* desc) const { cublasLtMatmulDescDestroy(desc); }
  void operator()(cublasLtMatrixLayoutOpaque_t* layout) const { cublasLtMatrixLayoutDestroy(layout); }
  void operator()(cublasLtMatmulPreferenceOpaque_t* preference) const { cublasLtMatmulPreferenceDestroy(preference); }
};
template <class Handle>
using LtOwned = std::unique_ptr<std::remove_pointer_t<Handle>, LtDestroy>;

}  // namespace syncsim::cuda
