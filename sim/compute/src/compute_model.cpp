#include "syncsim/compute/compute_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "syncsim/compute/step_time_fit.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
// A reduction reads two operands and writes one result: three bytes of memory traffic per byte reduced.
constexpr double kReductionTrafficPerByte = 3.0;

void require_batch(std::int64_t batch) {
  if (batch < 1) throw InputError(fmt::format("batch size must be positive, got {}", batch));
}

}  // namespace

ComputeModel::ComputeModel(GpuSpec gpu, Precision precision, ComputeOptions options)
    : gpu_(std::move(gpu)), precision_(precision), options_(options), peak_flops_(gpu_.require_peak(precision)) {
  if (!(options_.efficiency > 0 && options_.efficiency <= kMaxImpliedEfficiency)) {
    throw InputError(fmt::format("efficiency must be in (0, {}], got {}", kMaxImpliedEfficiency, options_.efficiency));
  }
  if (!(options_.backward_factor > 0) || !std::isfinite(options_.backward_factor)) {
    throw InputError(fmt::format("backward factor must be positive, got {}", options_.backward_factor));
  }
  if (options_.kernel_overhead < SimTime::zero()) throw InputError("kernel overhead must not be negative");
}

Roofline ComputeModel::roofline(const Layer& layer, std::int64_t batch) const {
  require_batch(batch);
  const auto b = static_cast<double>(batch);
  const double flops = b * static_cast<double>(layer.forward_flops);
  const double bytes =
      static_cast<double>(element_bytes(precision_)) *
      (static_cast<double>(layer.weight_elements_read) + b * static_cast<double>(layer.activation_elements_moved));
  return kernel_roofline(flops, bytes);
}

Roofline ComputeModel::kernel_roofline(double flops, double bytes) const {
  return {.compute_seconds = flops / (peak_flops_ * options_.efficiency),
          .memory_seconds = bytes / (gpu_.memory_bandwidth.bytes_per_second * options_.efficiency)};
}

SimTime ComputeModel::time_of(const Roofline& r) const {
  return SimTime::from_seconds(std::max(r.compute_seconds, r.memory_seconds)) + options_.kernel_overhead;
}

SimTime ComputeModel::kernel_time(double flops, double bytes) const {
  return time_of(kernel_roofline(flops, bytes));
}

SimTime ComputeModel::forward(const Layer& layer, std::int64_t batch) const {
  return time_of(roofline(layer, batch));
}

SimTime ComputeModel::backward(const Layer& layer, std::int64_t batch) const {
  return forward(layer, batch).scaled(options_.backward_factor);
}

SimTime ComputeModel::forward(const ModelSpec& model, std::int64_t batch) const {
  SimTime total;
  for (const Layer& layer : model.layers()) total += forward(layer, batch);
  return total;
}

SimTime ComputeModel::backward(const ModelSpec& model, std::int64_t batch) const {
  SimTime total;
  for (const Layer& layer : model.layers()) total += backward(layer, batch);
  return total;
}

SimTime ComputeModel::optimizer_step(std::int64_t params, Optimizer optimizer) const {
  if (params < 0) throw InputError(fmt::format("parameter count must not be negative, got {}", params));
  const double bytes = static_cast<double>(params) * static_cast<double>(optimizer_step_bytes(optimizer));
  return SimTime::from_seconds(bytes / (gpu_.memory_bandwidth.bytes_per_second * options_.efficiency)) +
         options_.kernel_overhead;
}

Bandwidth ComputeModel::reduction_rate() const {
  return {gpu_.memory_bandwidth.bytes_per_second / kReductionTrafficPerByte};
}

}  // namespace syncsim
