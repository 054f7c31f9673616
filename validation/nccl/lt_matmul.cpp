#include "lt_matmul.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "cuda_check.hpp"

namespace syncsim::cuda {

namespace {

LtOwned<cublasLtMatrixLayout_t> column_major(cudaDataType_t type, std::int64_t rows, std::int64_t cols) {
  cublasLtMatrixLayout_t made = nullptr;
  SYNCSIM_CUBLAS(cublasLtMatrixLayoutCreate(&made, type, static_cast<std::uint64_t>(rows),
                                            static_cast<std::uint64_t>(cols), rows));  // column-major, ld = rows
  return LtOwned<cublasLtMatrixLayout_t>(made);
}

template <class T>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  SYNCSIM_CUBLAS(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)));
}

}  // namespace

LtMatmul::LtMatmul(cublasLtHandle_t handle, const LtPrecision& precision, const GemmShape& shape, void* workspace,
                   std::size_t workspace_bytes)
    : handle_(handle), workspace_(workspace), workspace_bytes_(workspace_bytes) {
  cublasLtMatmulDesc_t desc = nullptr;
  SYNCSIM_CUBLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  desc_.reset(desc);
  set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  if (precision.fast_accumulation) set_attribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{1});
  a_ = column_major(precision.operand_type, shape.k, shape.m);  // A stored K x M, used transposed
  b_ = column_major(precision.operand_type, shape.k, shape.n);
  d_ = column_major(CUDA_R_16BF, shape.m, shape.n);  // C has D's layout (beta = 0 never reads it)

  cublasLtMatmulPreference_t made = nullptr;
  SYNCSIM_CUBLAS(cublasLtMatmulPreferenceCreate(&made));
  const LtOwned<cublasLtMatmulPreference_t> preference(made);
  SYNCSIM_CUBLAS(cublasLtMatmulPreferenceSetAttribute(made, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                                      sizeof(workspace_bytes)));
  cublasLtMatmulHeuristicResult_t found{};
  int count = 0;
  SYNCSIM_CUBLAS(
      cublasLtMatmulAlgoGetHeuristic(handle, desc, a_.get(), b_.get(), d_.get(), d_.get(), made, 1, &found, &count));
  if (count < 1 || found.state != CUBLAS_STATUS_SUCCESS) {
    throw CudaFailure(fmt::format("cuBLASLt offers no algorithm for the {} GEMM {} (TN, {} MiB workspace)",
                                  precision.name, to_string(shape), workspace_bytes >> 20));
  }
  algo_ = found.algo;
}

void LtMatmul::run(const void* a, const void* b, void* d, cudaStream_t stream) const {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  SYNCSIM_CUBLAS(cublasLtMatmul(handle_, desc_.get(), &alpha, a, a_.get(), b, b_.get(), &beta, d, d_.get(), d, d_.get(),
                                &algo_, workspace_, workspace_bytes_, stream));
}

}  // namespace syncsim::cuda
