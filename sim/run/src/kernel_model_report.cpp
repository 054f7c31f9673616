#include "kernel_model_report.hpp"

#include <cstdint>
#include <string>

#include "syncsim/scenario/model_config.hpp"

namespace syncsim::run {

namespace {
// The point the published attention rates were measured at (kernel_model.hpp): head dimension 128, 16k tokens.
constexpr std::int64_t kReferenceHead = 128;
constexpr double kReferenceSequence = 16384;
}  // namespace

std::optional<TrainingReport::KernelModelReport> kernel_model_report(const ComputeModel& compute) {
  const ComputeOptions& options = compute.options();
  if (!options.kernels || options.efficiency) return std::nullopt;
  const GpuSpec& gpu = compute.gpu();
  const KernelModel& kernels = compute.kernels();
  TrainingReport::KernelModelReport r;
  r.style = std::string(to_string(*options.kernels));
  r.gemm_core = kernels.core();
  r.attention = kernels.attention(kReferenceHead, kReferenceSequence, false);
  r.streaming_fraction = compute.streaming_fraction();
  r.sustained = gpu.sustained_matmul.value_or(1);
  const bool measured = gpu.measured && gpu.measured->sustained;
  r.sustained_source = measured ? "measured" : gpu.sustained_matmul ? "published" : "none";
  r.clock_factor = power_clock_factor(gpu, options.power_limit_watts);
  return r;
}

}  // namespace syncsim::run
