#include "syncsim/compute/step_time_fit.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

StepTimeFit fit_step_time(const GpuSpec& gpu, Precision precision, ComputeOptions options, const ModelSpec& model,
                          std::int64_t batch, std::int64_t micro_batches, Optimizer optimizer, SimTime measured) {
  options.efficiency = 1;
  const ComputeModel peak(gpu, precision, options);
  const auto k = static_cast<double>(micro_batches);
  const SimTime iteration = (peak.forward(model, batch) + peak.backward(model, batch)).scaled(k) +
                            peak.optimizer_step(model.params(), optimizer);
  const double kernels = k * (1 + options.backward_factor) * static_cast<double>(model.layers().size()) + 1;
  const SimTime fixed = options.kernel_overhead.scaled(kernels);
  if (measured <= fixed) {
    throw InputError(fmt::format(
        "a step of {} is not longer than the kernel overheads alone ({} for {:.0f} kernels "
        "of {}): lower model.kernel_overhead, or check the measurement",
        format_duration(measured), format_duration(fixed), kernels, format_duration(options.kernel_overhead)));
  }
  StepTimeFit fit;
  fit.fixed = fixed;
  fit.at_full_peak = iteration;
  fit.efficiency = static_cast<double>((iteration - fixed).ps()) / static_cast<double>((measured - fixed).ps());
  if (fit.efficiency > kMaxImpliedEfficiency) {
    throw InputError(
        fmt::format("a step of {} implies an efficiency of {:.3g}, above {}: the roofline takes {} at "
                    "full peak, so the model's layers count more work than the measured run did",
                    format_duration(measured), fit.efficiency, kMaxImpliedEfficiency, format_duration(iteration)));
  }
  return fit;
}

}  // namespace syncsim
