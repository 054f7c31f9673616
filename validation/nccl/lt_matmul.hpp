#pragma once
// One cuBLASLt GEMM of a given shape and precision, in the "TN" layout that PyTorch's linear layers and Transformer
// Engine hand to cuBLAS, and that Hopper's FP8 GEMMs require (column-major, as cuBLAS counts):
//
//   D (M x N, ldd = M)  =  op(A) B,   op(A) = A^T,  A stored K x M (lda = K),  B stored K x N (ldb = K)
//
//   precision  A, B          D (and C)   compute              notes
//   bf16       CUDA_R_16BF   CUDA_R_16BF  CUBLAS_COMPUTE_32F
//   fp8        CUDA_R_8F_E4M3 CUDA_R_16BF CUBLAS_COMPUTE_32F   compute capability 8.9+; per-tensor scales unset
//                                                              (1.0); fast accumulation, as Transformer Engine runs
//                                                              forward GEMMs
//
// alpha = 1 and beta = 0 in CUDA_R_32F. The algorithm is cuBLASLt's first heuristic choice with a workspace of
// kLtWorkspaceBytes.
#include <cublasLt.h>

#include <cstddef>

#include "cuda_resources.hpp"
#include "gemm_shapes.hpp"
#include "kernels.hpp"

namespace syncsim::cuda {

// Transformer Engine's cuBLASLt workspace on Hopper (32 MiB).
inline constexpr std::size_t kLtWorkspaceBytes = std::size_t{32} << 20;

struct LtPrecision {
  const char* name = "";
  cudaDataType_t operand_type = CUDA_R_16BF;  // A and B
  MatrixType fill = MatrixType::bf16;
  std::size_t operand_bytes = 2;  // per element of A and B; D is bf16, 2 bytes
  bool fast_accumulation = false;
};

inline constexpr LtPrecision kLtBf16{"bf16", CUDA_R_16BF, MatrixType::bf16, 2, false};
// Transformer Engine sets CUBLASLT_MATMUL_DESC_FAST_ACCUM for the forward GEMMs (transformer_engine/pytorch/module/
// base.py: _2X_ACC_FPROP = False; common/gemm/cublaslt_gemm.cu: fastAccuMode = use_split_accumulator ? 0 : 1).
inline constexpr LtPrecision kLtFp8{"fp8", CUDA_R_8F_E4M3, MatrixType::fp8_e4m3, 1, true};
inline constexpr std::size_t kLtOutputBytes = 2;

class LtMatmul {
 public:
  // Describes the GEMM and picks its algorithm; throws CudaFailure when cuBLASLt offers none for it.
  LtMatmul(cublasLtHandle_t handle, const LtPrecision& precision, const GemmShape& shape, void* workspace,
           std::size_t workspace_bytes);

  // D = A^T B on `stream`; a holds K x M elements, b K x N, d M x N.
  void run(const void* a, const void* b, void* d, cudaStream_t stream) const;

 private:
  cublasLtHandle_t handle_ = nullptr;
  LtOwned<cublasLtMatmulDesc_t> desc_;
  LtOwned<cublasLtMatrixLayout_t> a_;
  LtOwned<cublasLtMatrixLayout_t> b_;
  LtOwned<cublasLtMatrixLayout_t> d_;
  cublasLtMatmulAlgo_t algo_ = {};
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace syncsim::cuda
