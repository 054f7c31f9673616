#include "syncsim/compute/step_time_fit.hpp"

#include <fmt/format.h>

#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

namespace {
// A duration as the other messages write it, or in seconds past the clock's range (an absurd batch's overheads).
std::string seconds_text(double seconds) {
  constexpr double kDay = 86'400;
  return seconds < kDay ? format_duration(SimTime::from_seconds(seconds)) : fmt::format("{:.4g} s", seconds);
}
}  // namespace

StepTimeFit fit_step_time(const GpuSpec& gpu, Precision precision, ComputeOptions options, const ModelSpec& model,
                          std::int64_t batch, std::int64_t micro_batches, Optimizer optimizer, SimTime measured) {
  options.efficiency = 1;
  const ComputeModel peak(gpu, precision, options);
  // In seconds, not SimTime: a batch whose iteration passes the clock's range is refused where the run builds it,
  // at the key that made it so, not here.
  const auto k = static_cast<double>(micro_batches);
  const double iteration = k * (peak.forward(model, batch) + peak.backward(model, batch)).seconds() +
                           peak.optimizer_step(model.params(), optimizer).seconds();
  const double kernels = k * (1 + options.backward_factor) * static_cast<double>(model.layers().size()) + 1;
  const double fixed = kernels * options.kernel_overhead.seconds();
  if (measured.seconds() <= fixed) {
    throw InputError(
        fmt::format("a step of {} is not longer than the kernel overheads alone ({} for {:.0f} kernels "
                    "of {}): lower model.kernel_overhead, or check the measurement",
                    format_duration(measured), seconds_text(fixed), kernels, format_duration(options.kernel_overhead)));
  }
  StepTimeFit fit;
  fit.fixed = SimTime::from_seconds(fixed);  // below the measurement, so on the clock
  fit.efficiency = (iteration - fixed) / (measured.seconds() - fixed);
  if (fit.efficiency > kMaxImpliedEfficiency) {
    throw InputError(
        fmt::format("a step of {} implies an efficiency of {:.3g}, above {}: the roofline takes {} at "
                    "full peak, so the model's layers count more work than the measured run did",
                    format_duration(measured), fit.efficiency, kMaxImpliedEfficiency, seconds_text(iteration)));
  }
  fit.at_full_peak = SimTime::from_seconds(iteration);  // at most 4x the measurement, so on the clock
  return fit;
}

}  // namespace syncsim
