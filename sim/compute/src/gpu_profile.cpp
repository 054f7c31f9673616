#include "syncsim/compute/gpu_profile.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"

namespace syncsim {

namespace {

constexpr double kTeraFlops = 1e12;

double positive(const nlohmann::json& value, const std::string& what, const SourceLocation& at) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0) {
    throw InputError(fmt::format("{}: expected a positive number, got {}", what, json_value_text(value)), at);
  }
  return value.get<double>();
}

}  // namespace

GpuSpec parse_gpu_profile(std::string_view json, const std::string& source, std::optional<Bytes> memory) {
  const SourceLocation file{source, 0, 0};
  check_json_nesting(json, source);
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_discarded()) throw InputError("not a GPU profile: the file is not JSON", file);
  if (!doc.is_object() || !doc.contains("compute") || !doc["compute"].is_object()) {
    throw InputError(
        "not a GPU profile: no \"compute\" section (syncsim-bench-nccl writes one with --compute or --compute-only)",
        file);
  }
  const nlohmann::json& compute = doc["compute"];
  const std::string device = compute.contains("device_name") && compute["device_name"].is_string()
                                 ? compute["device_name"].get<std::string>()
                                 : std::string();
  if (!compute.contains("gemm") || !compute["gemm"].is_array()) {
    throw InputError("GPU profile: \"compute\" has no \"gemm\" list", file);
  }
  PrecisionPeaks peaks;
  std::optional<double> tf32, fp16, bf16;
  for (const nlohmann::json& gemm : compute["gemm"]) {
    if (!gemm.is_object() || !gemm.contains("precision") || !gemm["precision"].is_string() ||
        !gemm.contains("tflops")) {
      throw InputError("GPU profile: a \"gemm\" entry needs \"precision\" and \"tflops\"", file);
    }
    const std::string precision = gemm["precision"].get<std::string>();
    const double flops =
        positive(gemm["tflops"], fmt::format("GPU profile: {} GEMM tflops", precision), file) * kTeraFlops;
    const auto keep_max = [&](std::optional<double>& peak) { peak = std::max(peak.value_or(0.0), flops); };
    if (precision == "fp32") {
      peaks.fp32 = std::max(peaks.fp32, flops);
    } else if (precision == "tf32") {
      keep_max(tf32);
    } else if (precision == "fp16") {
      keep_max(fp16);
    } else if (precision == "bf16") {
      keep_max(bf16);
    } else {
      throw InputError(
          fmt::format("GPU profile: unknown GEMM precision '{}' (expected fp32, tf32, fp16 or bf16)", precision), file);
    }
  }
  if (peaks.fp32 <= 0) throw InputError("GPU profile: no fp32 GEMM measured", file);
  // A GPU without TF32 tensor cores runs "tf32" as FP32 (gpu_spec.hpp), which is what the benchmark measures too.
  peaks.tf32 = tf32.value_or(peaks.fp32);
  peaks.fp16 = fp16;
  peaks.bf16 = bf16;
  if (!compute.contains("memory") || !compute["memory"].is_object() ||
      !compute["memory"].contains("copy_kernel_gbps")) {
    throw InputError("GPU profile: \"compute\" has no \"memory\" with \"copy_kernel_gbps\"", file);
  }
  const double copy = positive(compute["memory"]["copy_kernel_gbps"], "GPU profile: copy_kernel_gbps", file);

  std::optional<GpuSpec> known;
  try {
    if (!device.empty()) known = find_gpu(device);
  } catch (const InputError&) {
    known = std::nullopt;  // a device the catalog does not know: the caller's memory size then
  }
  if (!known && !memory) {
    throw InputError(fmt::format("GPU profile: the catalog does not know device '{}'; give the GPU's memory size too",
                                 device.empty() ? "(unnamed)" : device),
                     file);
  }
  GpuSpec spec = make_gpu_spec(known ? known->name : device, peaks, Bandwidth::from_gb_per_s(copy),
                               memory.value_or(known ? known->memory : Bytes{0}));
  if (known) {
    spec.compute_capability = known->compute_capability;
    spec.nvlink_bandwidth = known->nvlink_bandwidth;
    spec.nvlink_domain_gpus = known->nvlink_domain_gpus;
  }
  return spec;
}

GpuSpec read_gpu_profile(const std::filesystem::path& path, std::optional<Bytes> memory) {
  return parse_gpu_profile(read_input_file(path, "GPU profile"), path.string(), memory);
}

}  // namespace syncsim
