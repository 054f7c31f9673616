#include "sustained_gemm.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <optional>
#include <ostream>

#include "cuda_check.hpp"
#include "cuda_resources.hpp"
#include "kernels.hpp"

namespace syncsim::cuda {

namespace {

constexpr int kSustainedSize = 8192;  // m = n = k
constexpr std::int64_t kSustainedCopyBytes = std::int64_t{1} << 30;
constexpr std::size_t kBf16Bytes = 2;
constexpr int kGemmsInFlight = 4;  // queued ahead of the host: each pair takes milliseconds, the host microseconds
constexpr double kWindowSeconds = 1.0;

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32] = {};
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:03}Z", text, ms);
}

}  // namespace

SustainedResult measure_sustained(cublasHandle_t blas, cudaStream_t stream, int seconds, int warmup) {
  SustainedResult result;
  result.shape = {kSustainedSize, kSustainedSize, kSustainedSize};
  result.seconds = seconds;
  result.copy_bytes = copy_buffer_bytes(kSustainedCopyBytes);

  const std::int64_t elements = std::int64_t{kSustainedSize} * kSustainedSize;
  DeviceBuffer a(static_cast<std::size_t>(elements) * kBf16Bytes);
  DeviceBuffer b(static_cast<std::size_t>(elements) * kBf16Bytes);
  DeviceBuffer c(static_cast<std::size_t>(elements) * kBf16Bytes);
  DeviceBuffer src(static_cast<std::size_t>(result.copy_bytes));
  DeviceBuffer dst(static_cast<std::size_t>(result.copy_bytes));
  SYNCSIM_CUDA(fill_matrix(a.ptr, elements, MatrixType::bf16, stream));
  SYNCSIM_CUDA(fill_matrix(b.ptr, elements, MatrixType::bf16, stream));
  SYNCSIM_CUDA(cudaMemsetAsync(src.ptr, 1, static_cast<std::size_t>(result.copy_bytes), stream));
  const auto gemm = [&] { square_gemm(blas, kSustainedSize, a.ptr, b.ptr, c.ptr, CUDA_R_16BF, CUBLAS_COMPUTE_32F); };
  const auto copy = [&] { SYNCSIM_CUDA(copy_bytes(dst.ptr, src.ptr, result.copy_bytes, stream)); };
  for (int i = 0; i < warmup; ++i) {
    gemm();
    copy();
  }
  SYNCSIM_CUDA(cudaStreamSynchronize(stream));

  std::array<EventTimer, kGemmsInFlight> slots;
  EventTimer origin;
  std::vector<double> gemm_seconds(static_cast<std::size_t>(seconds), 0.0);
  std::vector<int> gemms(static_cast<std::size_t>(seconds), 0);
  result.started_utc = utc_now();
  SYNCSIM_CUDA(cudaEventRecord(origin.start, stream));
  std::int64_t issued = 0;
  std::int64_t read = 0;
  bool issuing = true;
  while (issuing || read < issued) {
    for (; issuing && issued - read < kGemmsInFlight; ++issued) {
      EventTimer& slot = slots[static_cast<std::size_t>(issued % kGemmsInFlight)];
      SYNCSIM_CUDA(cudaEventRecord(slot.start, stream));
      gemm();
      SYNCSIM_CUDA(cudaEventRecord(slot.stop, stream));
      copy();
    }
    const EventTimer& slot = slots[static_cast<std::size_t>(read % kGemmsInFlight)];
    ++read;
    SYNCSIM_CUDA(cudaEventSynchronize(slot.stop));
    float end_ms = 0;
    SYNCSIM_CUDA(cudaEventElapsedTime(&end_ms, origin.start, slot.stop));
    const double end_s = static_cast<double>(end_ms) * 1e-3;
    if (end_s >= seconds) {
      issuing = false;  // the GEMMs still queued end later still: they are drained, not counted
      continue;
    }
    const auto window = static_cast<std::size_t>(end_s / kWindowSeconds);
    gemm_seconds[window] += slot.elapsed_seconds();
    gemms[window] += 1;
  }

  for (std::size_t w = 0; w < gemms.size(); ++w) {
    if (gemms[w] == 0) continue;  // no GEMM ended in it (one GEMM longer than a window): no rate to report
    const double mean_s = gemm_seconds[w] / gemms[w];
    result.windows.push_back({static_cast<double>(w + 1) * kWindowSeconds,
                              timed_gemm(result.precision, "NN", result.shape, mean_s).tflops, gemms[w]});
  }
  return result;
}

void print_sustained(std::ostream& out, const SustainedResult& sustained, std::optional<double> quiet_tflops) {
  if (sustained.windows.empty()) return;
  const SustainedWindow& first = sustained.windows.front();
  const SustainedWindow& last = sustained.windows.back();
  fmt::print(out, "# Sustained {} GEMM {}, each followed by a {}-byte copy, {} s from {}:\n", sustained.precision,
             to_string(sustained.shape), sustained.copy_bytes, sustained.seconds, sustained.started_utc);
  fmt::print(out,
             "#   first window (to {:g} s) {:.1f} TFLOP/s ({} GEMMs), last (to {:g} s) {:.1f} TFLOP/s ({} GEMMs)\n",
             first.end_s, first.gemm_tflops, first.gemms, last.end_s, last.gemm_tflops, last.gemms);
  fmt::print(out, "#   last / first {:.3f}", last.gemm_tflops / first.gemm_tflops);
  if (quiet_tflops && *quiet_tflops > 0) {
    fmt::print(out, "; the same GEMM in the square sweep {:.1f} TFLOP/s, last / square sweep {:.3f}", *quiet_tflops,
               last.gemm_tflops / *quiet_tflops);
  }
  fmt::print(out, "\n#\n");
}

nlohmann::json to_json(const SustainedResult& sustained) {
  nlohmann::json windows = nlohmann::json::array();
  for (const SustainedWindow& w : sustained.windows) {
    windows.push_back({{"t_s", w.end_s}, {"gemm_tflops", w.gemm_tflops}, {"gemms", w.gemms}});
  }
  return {{"precision", sustained.precision},
          {"m", sustained.shape.m},
          {"n", sustained.shape.n},
          {"k", sustained.shape.k},
          {"copy_bytes", sustained.copy_bytes},
          {"seconds", sustained.seconds},
          {"started_utc", sustained.started_utc},
          {"windows", windows}};
}

}  // namespace syncsim::cuda
