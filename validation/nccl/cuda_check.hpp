#pragma once
// Checks for every CUDA runtime, NCCL and cuBLAS call of syncsim-bench-nccl: a failed call throws CudaFailure
// naming the call, where it was made and the library's own description of the error.
//
//   SYNCSIM_CUDA(cudaMalloc(&buf, bytes));
//   SYNCSIM_NCCL(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream));
//   SYNCSIM_CUBLAS(cublasGemmEx(...));
//   SYNCSIM_CUBLAS(cublasLtMatmul(...));   // cuBLASLt returns cuBLAS's own cublasStatus_t
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace syncsim::cuda {

class CudaFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check(cudaError_t result, const char* call, const char* file, int line);
void check(ncclResult_t result, const char* call, const char* file, int line);
void check(cublasStatus_t result, const char* call, const char* file, int line);

}  // namespace syncsim::cuda

#define SYNCSIM_CUDA(call) ::syncsim::cuda::check((call), #call, __FILE__, __LINE__)
#define SYNCSIM_NCCL(call) ::syncsim::cuda::check((call), #call, __FILE__, __LINE__)
#define SYNCSIM_CUBLAS(call) ::syncsim::cuda::check((call), #call, __FILE__, __LINE__)
