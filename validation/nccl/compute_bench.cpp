#include "compute_bench.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ostream>

#include "cuda_check.hpp"
#include "kernels.hpp"

namespace syncsim::cuda {

namespace {

// The largest memory-bandwidth buffer: big enough to leave every cache far behind, small enough for any GPU.
constexpr std::int64_t kMaxCopyBytes = std::int64_t{2} << 30;

struct Precision {
  const char* name;
  cudaDataType_t type;
  cublasComputeType_t compute;
  MatrixType fill;
  std::size_t element_bytes;
};

constexpr Precision kPrecisions[] = {
    {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, MatrixType::fp32, 4},
    {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, MatrixType::fp32, 4},
    {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, MatrixType::fp16, 2},
    {"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, MatrixType::bf16, 2},
};

// Frees what it holds on scope exit, so that a failed call in the middle leaks nothing.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { SYNCSIM_CUDA(cudaMalloc(&ptr, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Timer {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  Timer() {
    SYNCSIM_CUDA(cudaEventCreate(&start));
    SYNCSIM_CUDA(cudaEventCreate(&stop));
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Seconds per call of `work`, after `warmup` untimed calls.
  template <class F>
  double seconds_per_call(cudaStream_t stream, int warmup, int iters, F&& work) {
    for (int i = 0; i < warmup; ++i) work();
    SYNCSIM_CUDA(cudaEventRecord(start, stream));
    for (int i = 0; i < iters; ++i) work();
    SYNCSIM_CUDA(cudaEventRecord(stop, stream));
    SYNCSIM_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    SYNCSIM_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms) * 1e-3 / iters;
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

}  // namespace

ComputeCalibration measure_compute(int device, const std::vector<int>& gemm_sizes, int warmup, int iters) {
  ComputeCalibration result;
  result.device = device;
  SYNCSIM_CUDA(cudaSetDevice(device));
  cudaDeviceProp props{};
  SYNCSIM_CUDA(cudaGetDeviceProperties(&props, device));
  result.device_name = props.name;
  cudaStream_t stream = nullptr;
  SYNCSIM_CUDA(cudaStreamCreate(&stream));
  {
    Blas blas(stream);
    Timer timer;
    const int largest = *std::max_element(gemm_sizes.begin(), gemm_sizes.end());
    const auto elements = static_cast<std::int64_t>(largest) * largest;
    for (const Precision& p : kPrecisions) {
      DeviceBuffer a(static_cast<std::size_t>(elements) * p.element_bytes);
      DeviceBuffer b(static_cast<std::size_t>(elements) * p.element_bytes);
      DeviceBuffer c(static_cast<std::size_t>(elements) * p.element_bytes);
      SYNCSIM_CUDA(fill_matrix(a.ptr, elements, p.fill, stream));
      SYNCSIM_CUDA(fill_matrix(b.ptr, elements, p.fill, stream));
      const float alpha = 1.0f;
      const float beta = 0.0f;
      for (const int n : gemm_sizes) {
        const double seconds = timer.seconds_per_call(stream, warmup, iters, [&] {
          SYNCSIM_CUBLAS(cublasGemmEx(blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.ptr, p.type, n, b.ptr,
                                      p.type, n, &beta, c.ptr, p.type, n, p.compute, CUBLAS_GEMM_DEFAULT));
        });
        const double flops = 2.0 * n * static_cast<double>(n) * n;
        result.gemm.push_back({p.name, n, seconds * 1e6, flops / seconds * 1e-12});
      }
    }

    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    SYNCSIM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::int64_t bytes =
        std::min<std::int64_t>(kMaxCopyBytes, static_cast<std::int64_t>(free_bytes / 4)) / 16 * 16;
    DeviceBuffer src(static_cast<std::size_t>(bytes));
    DeviceBuffer dst(static_cast<std::size_t>(bytes));
    SYNCSIM_CUDA(cudaMemsetAsync(src.ptr, 1, static_cast<std::size_t>(bytes), stream));
    const double kernel_s = timer.seconds_per_call(stream, warmup, iters,
                                                   [&] { SYNCSIM_CUDA(copy_bytes(dst.ptr, src.ptr, bytes, stream)); });
    const double memcpy_s = timer.seconds_per_call(stream, warmup, iters, [&] {
      SYNCSIM_CUDA(
          cudaMemcpyAsync(dst.ptr, src.ptr, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, stream));
    });
    result.memory = {bytes, 2.0 * static_cast<double>(bytes) / kernel_s * 1e-9,
                     2.0 * static_cast<double>(bytes) / memcpy_s * 1e-9};
  }
  SYNCSIM_CUDA(cudaStreamDestroy(stream));
  return result;
}

void print_compute(std::ostream& out, const ComputeCalibration& calibration) {
  fmt::print(out, "# Compute calibration: device {} ({})\n", calibration.device, calibration.device_name);
  fmt::print(out, "#  precision   m=n=k    time (us)   TFLOP/s\n");
  for (const GemmResult& g : calibration.gemm) {
    fmt::print(out, "   {:>9}  {:6}  {:11.2f}  {:8.2f}\n", g.precision, g.size, g.time_us, g.tflops);
  }
  fmt::print(out, "# Memory bandwidth over {} bytes: copy kernel {:.1f} GB/s, cudaMemcpy {:.1f} GB/s\n#\n",
             calibration.memory.bytes, calibration.memory.copy_kernel_gbps, calibration.memory.memcpy_gbps);
}

nlohmann::json to_json(const ComputeCalibration& calibration) {
  nlohmann::json gemm = nlohmann::json::array();
  for (const GemmResult& g : calibration.gemm) {
    gemm.push_back({{"precision", g.precision},
                    {"m", g.size},
                    {"n", g.size},
                    {"k", g.size},
                    {"time_us", g.time_us},
                    {"tflops", g.tflops}});
  }
  return {{"device", calibration.device},
          {"device_name", calibration.device_name},
          {"gemm", gemm},
          {"memory",
           {{"bytes", calibration.memory.bytes},
            {"copy_kernel_gbps", calibration.memory.copy_kernel_gbps},
            {"memcpy_gbps", calibration.memory.memcpy_gbps}}}};
}

}  // namespace syncsim::cuda
