#include "syncsim/compute/gpu_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "syncsim/compute/gemm_fit.hpp"
#include "syncsim/compute/kernel_model.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"

#include "json_document.hpp"

namespace syncsim {

namespace {

constexpr double kTeraFlops = 1e12;
// A GEMM dimension beyond any memory: 2^40 elements.
constexpr double kLargestDimension = 1099511627776.0;

std::string precision_names() {
  std::string out;
  for (const Precision p : kAllPrecisions) out += fmt::format("{}{}", out.empty() ? "" : ", ", to_string(p));
  return out;
}

double positive(const nlohmann::json& value, const std::string& what, const SourceLocation& at) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0) {
    throw InputError(fmt::format("{}: expected a positive number, got {}", what, json_value_text(value)), at);
  }
  return value.get<double>();
}

Precision profile_precision(const std::string& name, const SourceLocation& at) {
  for (const Precision p : kAllPrecisions) {
    if (to_string(p) == name) return p;
  }
  throw InputError(
      fmt::format("GPU profile: unknown GEMM precision '{}' (expected one of {})", name, precision_names()), at);
}

// A "gemm" entry's M, N and K: all three, or none (an entry that only gives a rate sets the peak alone).
std::optional<MeasuredGemm> gemm_shape(const nlohmann::json& gemm, Precision precision, double flops,
                                       const SourceLocation& at) {
  const int given = static_cast<int>(gemm.contains("m")) + static_cast<int>(gemm.contains("n")) +
                    static_cast<int>(gemm.contains("k"));
  if (given == 0) return std::nullopt;
  if (given != 3) throw InputError("GPU profile: a \"gemm\" entry gives all of \"m\", \"n\" and \"k\" or none", at);
  const auto size = [&](const char* key) {
    const double v = positive(gemm[key], fmt::format("GPU profile: {} GEMM {}", to_string(precision), key), at);
    if (v > kLargestDimension) {
      throw InputError(fmt::format("GPU profile: {} GEMM {}: expected at most {:g}, got {:g}", to_string(precision),
                                   key, kLargestDimension, v),
                       at);
    }
    return v;
  };
  return MeasuredGemm{
      .precision = precision, .m = size("m"), .n = size("n"), .k = size("k"), .flops_per_second = flops};
}

// "sustained": a GEMM's rate per window of the benchmark's training-like loop. What it keeps of its quiet rate (the
// same shape's entry in "gemm", else the first window) is the mean of the loop's second half over that, at most 1:
// the loop can show a clock that drops under a whole step's power, not one that rises.
double sustained_fraction(const nlohmann::json& sustained, const std::vector<MeasuredGemm>& gemms,
                          const SourceLocation& at) {
  if (!sustained.is_object() || !sustained.contains("windows") || !sustained["windows"].is_array() ||
      sustained["windows"].empty()) {
    throw InputError("GPU profile: \"sustained\" needs a non-empty \"windows\" list", at);
  }
  std::vector<double> rates;
  for (const nlohmann::json& w : sustained["windows"]) {
    if (!w.is_object() || !w.contains("gemm_tflops")) {
      throw InputError("GPU profile: a \"sustained\" window needs \"gemm_tflops\"", at);
    }
    rates.push_back(positive(w["gemm_tflops"], "GPU profile: sustained gemm_tflops", at) * kTeraFlops);
  }
  double quiet = rates.front();
  if (sustained.contains("precision") && sustained["precision"].is_string()) {
    const Precision precision = profile_precision(sustained["precision"].get<std::string>(), at);
    if (const std::optional<MeasuredGemm> shape = gemm_shape(sustained, precision, quiet, at)) {
      for (const MeasuredGemm& g : gemms) {
        if (g.precision == shape->precision && g.m == shape->m && g.n == shape->n && g.k == shape->k) {
          quiet = g.flops_per_second;
        }
      }
    }
  }
  const std::size_t half = rates.size() / 2;
  double sum = 0;
  for (std::size_t i = half; i < rates.size(); ++i) sum += rates[i];
  return std::min(1.0, sum / static_cast<double>(rates.size() - half) / quiet);
}

}  // namespace

GpuSpec parse_gpu_profile(std::string_view json, const std::string& source, std::optional<Bytes> memory) {
  const SourceLocation file{source, 0, 0};
  const nlohmann::json doc = parse_json_document(json, source, "a GPU profile");
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
  GpuMeasurements measured;
  std::array<std::optional<double>, kAllPrecisions.size()> best{};
  for (const nlohmann::json& gemm : compute["gemm"]) {
    if (!gemm.is_object() || !gemm.contains("precision") || !gemm["precision"].is_string() ||
        !gemm.contains("tflops")) {
      throw InputError("GPU profile: a \"gemm\" entry needs \"precision\" and \"tflops\"", file);
    }
    const std::string name = gemm["precision"].get<std::string>();
    const Precision precision = profile_precision(name, file);
    const double flops = positive(gemm["tflops"], fmt::format("GPU profile: {} GEMM tflops", name), file) * kTeraFlops;
    std::optional<double>& peak = best[static_cast<std::size_t>(precision)];
    peak = std::max(peak.value_or(0.0), flops);
    if (const std::optional<MeasuredGemm> shaped = gemm_shape(gemm, precision, flops, file)) {
      measured.gemms.push_back(*shaped);
    }
  }
  const auto at = [&](Precision p) { return best[static_cast<std::size_t>(p)]; };
  if (compute.contains("sustained"))
    measured.sustained = sustained_fraction(compute["sustained"], measured.gemms, file);
  PrecisionPeaks peaks;
  peaks.fp32 = at(Precision::fp32).value_or(0);
  // A GPU without TF32 tensor cores runs "tf32" as FP32 (gpu_spec.hpp), which is what the benchmark measures too.
  peaks.tf32 = at(Precision::tf32).value_or(peaks.fp32);
  peaks.fp16 = at(Precision::fp16);
  peaks.bf16 = at(Precision::bf16);
  peaks.fp8 = at(Precision::fp8);
  peaks.mxfp8 = at(Precision::mxfp8);
  peaks.nvfp4 = at(Precision::nvfp4);
  peaks.mxfp4 = at(Precision::mxfp4);
  // The tensor cores' rates as the sustained loop kept them (the FP32 pipes' too: the clock is the chip's).
  for (std::optional<double>* p :
       {&peaks.tf32, &peaks.fp16, &peaks.bf16, &peaks.fp8, &peaks.mxfp8, &peaks.nvfp4, &peaks.mxfp4}) {
    if (*p) **p *= measured.sustained.value_or(1);
  }
  peaks.fp32 *= measured.sustained.value_or(1);
  if (peaks.fp32 <= 0) throw InputError("GPU profile: no fp32 GEMM measured", file);
  // A GPU without TF32 tensor cores runs "tf32" as FP32 (gpu_spec.hpp), which is what the benchmark measures too.
  if (!compute.contains("memory") || !compute["memory"].is_object() ||
      !compute["memory"].contains("copy_kernel_gbps")) {
    throw InputError("GPU profile: \"compute\" has no \"memory\" with \"copy_kernel_gbps\"", file);
  }
  const double copy = positive(compute["memory"]["copy_kernel_gbps"], "GPU profile: copy_kernel_gbps", file);
  measured.copy = Bandwidth::from_gb_per_s(copy);

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
  spec.measured = std::move(measured);
  return spec;
}

GpuSpec read_gpu_profile(const std::filesystem::path& path, std::optional<Bytes> memory) {
  return parse_gpu_profile(read_input_file(path, "GPU profile"), path.string(), memory);
}

GpuSpec measured_kernel_gpu(const GpuSpec& profiled) {
  if (!profiled.measured) return profiled;
  GpuMeasurements measured = *profiled.measured;
  GpuSpec spec;
  try {
    spec = find_gpu(profiled.name);
  } catch (const InputError&) {
    throw InputError(fmt::format(
        "kernels by shape (model.kernels) on a profiled GPU need a device the catalog knows, for its SM count and "
        "attention rates; the profile's '{}' is not in it (without model.kernels the profile's rates apply as they "
        "are)",
        profiled.name));
  }
  if (!spec.multiprocessors || !spec.peaks.bf16) {
    throw InputError(
        fmt::format("kernels by shape (model.kernels) on a profiled GPU need its SM count and BF16 peak, "
                    "which the catalog does not give for '{}'",
                    spec.name));
  }
  spec.memory = profiled.memory;
  for (const MeasuredGemm& g : measured.gemms) {
    // A rate above the datasheet's dense peak is not this device's dense GEMM: the anchors would put kernels there.
    const std::optional<double> peak = spec.peak(g.precision);
    if (peak && g.flops_per_second > *peak) {
      throw InputError(fmt::format(
          "GPU profile: a {} GEMM of {:g} x {:g} x {:g} ran at {:.1f} TFLOP/s, above the {:.1f} "
          "of {}'s datasheet: not this device, or not a dense GEMM",
          to_string(g.precision), g.m, g.n, g.k, g.flops_per_second / kTeraFlops, *peak / kTeraFlops, spec.name));
    }
  }
  // The profile's GEMMs ran quiet, as the published anchor did: fit them without the sustained clock, which the
  // kernel model applies (kernel_model.cpp) from the profile's own loop where it ran, else from the catalog.
  if (measured.sustained) spec.sustained_matmul = measured.sustained;
  GpuSpec quiet = spec;
  quiet.sustained_matmul.reset();
  const KernelModel shapes(quiet, KernelStyle::fused);
  const double bf16 = *spec.peaks.bf16;
  const std::optional<GemmFit> fit = fit_gemm_core(shapes, measured.gemms, Precision::bf16, bf16, 1);
  // Without BF16 shapes the published anchor stays.
  const std::optional<double> core = fit ? std::optional(fit->core) : shapes.core();
  if (core) spec.gemm_core = *core;
  if (fit && spec.peaks.fp8) {
    const std::optional<GemmFit> fp8 =
        fit_gemm_core(shapes, measured.gemms, Precision::fp8, *spec.peaks.fp8, *spec.peaks.fp8 / bf16);
    if (fp8) {
      spec.scaled_gemm_ratio = fp8->core / fit->core;
      measured.fitted_scaled_ratio = spec.scaled_gemm_ratio;
    }
  }
  if (measured.copy.bytes_per_second > spec.memory_bandwidth.bytes_per_second) {
    throw InputError(
        fmt::format("GPU profile: the copy kernel ran at {:.1f} GB/s, above the {:.1f} of {}'s datasheet: "
                    "not this device",
                    measured.copy.gb_per_s(), spec.memory_bandwidth.gb_per_s(), spec.name));
  }
  spec.streaming_fraction = measured.copy.bytes_per_second / spec.memory_bandwidth.bytes_per_second;
  if (fit) {
    measured.fitted_shapes = fit->shapes;
    measured.fit_rms_error = fit->rms_error;
    measured.fixed_seconds = fit->fixed_seconds;
  }
  spec.measured = std::move(measured);
  return spec;
}

}  // namespace syncsim
