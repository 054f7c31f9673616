#include "syncsim/compute/memory_check.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

MemoryReport memory_check(const ModelSpec& model, const GpuSpec& gpu, std::int64_t batch, Precision precision,
                          Optimizer optimizer) {
  if (batch < 1) throw InputError(fmt::format("batch size must be positive, got {}", batch));
  const std::int64_t params = model.params();
  const std::int64_t per_sample = model.saved_elements() * element_bytes(precision) + model.saved_mask_bytes();
  MemoryReport report;
  report.weights = Bytes{params * element_bytes(precision)};
  report.gradients = report.weights;
  report.optimizer_state = Bytes{params * optimizer_state_bytes(optimizer, precision)};
  report.activations = Bytes{batch * per_sample};
  report.total = report.weights + report.gradients + report.optimizer_state + report.activations;
  report.capacity = gpu.memory;
  report.fits = report.total <= report.capacity;
  report.shortfall = report.fits ? Bytes{0} : report.total - report.capacity;
  return report;
}

}  // namespace syncsim
