#include "compute_bench.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ostream>

#include "cuda_check.hpp"
#include "cuda_resources.hpp"
#include "kernels.hpp"
#include "shape_sweep.hpp"

namespace syncsim::cuda {

namespace {

// The largest memory-bandwidth buffer: big enough to leave every cache far behind, small enough for any GPU.
constexpr std::int64_t kMaxCopyBytes = std::int64_t{2} << 30;
// cuBLASLt's FP8 GEMMs need Ada (8.9) or Hopper (9.0) and later.
constexpr int kFp8ComputeCapability = 89;

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

void measure_squares(const std::vector<int>& sizes, cublasHandle_t blas, cudaStream_t stream, int warmup, int iters,
                     std::vector<GemmResult>& results) {
  if (sizes.empty()) return;
  EventTimer timer;
  const int largest = *std::max_element(sizes.begin(), sizes.end());
  const auto elements = static_cast<std::int64_t>(largest) * largest;
  for (const Precision& p : kPrecisions) {
    DeviceBuffer a(static_cast<std::size_t>(elements) * p.element_bytes);
    DeviceBuffer b(static_cast<std::size_t>(elements) * p.element_bytes);
    DeviceBuffer c(static_cast<std::size_t>(elements) * p.element_bytes);
    SYNCSIM_CUDA(fill_matrix(a.ptr, elements, p.fill, stream));
    SYNCSIM_CUDA(fill_matrix(b.ptr, elements, p.fill, stream));
    for (const int n : sizes) {
      const double seconds = timer.seconds_per_call(
          stream, warmup, iters, [&] { square_gemm(blas, n, a.ptr, b.ptr, c.ptr, p.type, p.compute); });
      results.push_back(timed_gemm(p.name, "NN", {n, n, n}, seconds));
    }
  }
}

MemoryResult measure_memory(cudaStream_t stream, int warmup, int iters) {
  const std::int64_t bytes = copy_buffer_bytes(kMaxCopyBytes);
  DeviceBuffer src(static_cast<std::size_t>(bytes));
  DeviceBuffer dst(static_cast<std::size_t>(bytes));
  SYNCSIM_CUDA(cudaMemsetAsync(src.ptr, 1, static_cast<std::size_t>(bytes), stream));
  EventTimer timer;
  const double kernel_s =
      timer.seconds_per_call(stream, warmup, iters, [&] { SYNCSIM_CUDA(copy_bytes(dst.ptr, src.ptr, bytes, stream)); });
  const double memcpy_s = timer.seconds_per_call(stream, warmup, iters, [&] {
    SYNCSIM_CUDA(cudaMemcpyAsync(dst.ptr, src.ptr, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, stream));
  });
  return {bytes, 2.0 * static_cast<double>(bytes) / kernel_s * 1e-9,
          2.0 * static_cast<double>(bytes) / memcpy_s * 1e-9};
}

}  // namespace

ComputeCalibration measure_compute(int device, const ComputeOptions& options) {
  ComputeCalibration result;
  result.device = device;
  SYNCSIM_CUDA(cudaSetDevice(device));
  cudaDeviceProp props{};
  SYNCSIM_CUDA(cudaGetDeviceProperties(&props, device));
  result.device_name = props.name;
  const Stream owned;
  const cudaStream_t stream = owned.stream;
  const Blas blas(stream);
  measure_squares(options.gemm_sizes, blas.handle, stream, options.warmup, options.iters, result.gemm);
  for (const GemmResult& g : measure_gemm_shapes(options.gemm_shapes, kLtBf16, stream, options.warmup, options.iters)) {
    result.gemm.push_back(g);
  }
  if (props.major * 10 + props.minor >= kFp8ComputeCapability) {
    for (const GemmResult& g :
         measure_gemm_shapes(options.gemm_shapes, kLtFp8, stream, options.warmup, options.iters)) {
      result.gemm.push_back(g);
    }
  } else if (!options.gemm_shapes.empty()) {
    result.fp8_skipped = fmt::format(
        "device {} ({}) has compute capability {}.{}; cuBLASLt's FP8 GEMMs need 8.9 "
        "(Ada, Hopper) or later",
        device, props.name, props.major, props.minor);
  }
  result.memory = measure_memory(stream, options.warmup, options.iters);
  if (options.sustained_seconds > 0) {
    result.sustained = measure_sustained(blas.handle, stream, options.sustained_seconds, options.warmup);
  }
  SYNCSIM_CUDA(cudaStreamSynchronize(stream));
  return result;
}

void print_compute(std::ostream& out, const ComputeCalibration& calibration) {
  fmt::print(out, "# Compute calibration: device {} ({})\n", calibration.device, calibration.device_name);
  fmt::print(out, "#  precision  layout       m       n       k    time (us)   TFLOP/s\n");
  for (const GemmResult& g : calibration.gemm) {
    fmt::print(out, "   {:>9}  {:>6}  {:6}  {:6}  {:6}  {:11.2f}  {:8.2f}\n", g.precision, g.layout, g.shape.m,
               g.shape.n, g.shape.k, g.time_us, g.tflops);
  }
  if (!calibration.fp8_skipped.empty()) fmt::print(out, "# fp8 GEMMs skipped: {}\n", calibration.fp8_skipped);
  fmt::print(out, "# Memory bandwidth over {} bytes: copy kernel {:.1f} GB/s, cudaMemcpy {:.1f} GB/s\n#\n",
             calibration.memory.bytes, calibration.memory.copy_kernel_gbps, calibration.memory.memcpy_gbps);
  if (!calibration.sustained) return;
  const SustainedResult& sustained = *calibration.sustained;
  std::optional<double> quiet;
  for (const GemmResult& g : calibration.gemm) {
    if (g.precision == sustained.precision && g.layout == "NN" && g.shape.m == sustained.shape.m &&
        g.shape.n == sustained.shape.n && g.shape.k == sustained.shape.k) {
      quiet = g.tflops;  // the square sweep's, the first such entry
      break;
    }
  }
  print_sustained(out, sustained, quiet);
}

nlohmann::json to_json(const ComputeCalibration& calibration) {
  nlohmann::json gemm = nlohmann::json::array();
  for (const GemmResult& g : calibration.gemm) {
    gemm.push_back({{"precision", g.precision},
                    {"layout", g.layout},
                    {"m", g.shape.m},
                    {"n", g.shape.n},
                    {"k", g.shape.k},
                    {"time_us", g.time_us},
                    {"tflops", g.tflops}});
  }
  nlohmann::json json = {{"device", calibration.device},
                         {"device_name", calibration.device_name},
                         {"gemm", gemm},
                         {"memory",
                          {{"bytes", calibration.memory.bytes},
                           {"copy_kernel_gbps", calibration.memory.copy_kernel_gbps},
                           {"memcpy_gbps", calibration.memory.memcpy_gbps}}}};
  if (!calibration.fp8_skipped.empty()) json["fp8_skipped"] = calibration.fp8_skipped;
  if (calibration.sustained) json["sustained"] = to_json(*calibration.sustained);
  return json;
}

}  // namespace syncsim::cuda
