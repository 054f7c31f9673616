#include "cuda_check.hpp"

#include <fmt/format.h>

namespace syncsim::cuda {

namespace {
std::string where(const char* file, int line) {
  std::string path = file;
  const std::size_t slash = path.find_last_of('/');
  return fmt::format("{}:{}", slash == std::string::npos ? path : path.substr(slash + 1), line);
}
}  // namespace

void check(cudaError_t result, const char* call, const char* file, int line) {
  if (result == cudaSuccess) return;
  throw CudaFailure(fmt::format("CUDA error in {} ({}): {} ({})", call, where(file, line), cudaGetErrorString(result),
                                cudaGetErrorName(result)));
}

void check(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  const char* last = ncclGetLastError(nullptr);
  throw CudaFailure(fmt::format("NCCL error in {} ({}): {}{}{}", call, where(file, line), ncclGetErrorString(result),
                                last != nullptr && *last != '\0' ? ": " : "", last != nullptr ? last : ""));
}

void check(cublasStatus_t result, const char* call, const char* file, int line) {
  if (result == CUBLAS_STATUS_SUCCESS) return;
  throw CudaFailure(fmt::format("cuBLAS error in {} ({}): {} ({})", call, where(file, line),
                                cublasGetStatusString(result), static_cast<int>(result)));
}

}  // namespace syncsim::cuda
