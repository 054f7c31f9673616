#pragma once
// The compute model fitted to a measured single-GPU iteration (`model.step_time` in a scenario).
//
// A measured step time T is one iteration on one GPU at the scenario's batch and precision: k micro-batches of
// forward and backward, then the optimizer step. The roofline's iteration at efficiency e is
//
//   iteration(e) = W / e + K      W = k (1 + backward_factor) sum(layer roofline seconds at e = 1)
//                                     + optimizer bytes / memory bandwidth
//                                 K = kernel_overhead x (k (1 + backward_factor) layers + 1)
//
// so one measurement fixes one unknown, and the fit is the closed form e = W / (T - K): a single factor on every
// layer's roofline time, compute-bound and memory-bound alike. One factor, not one per roof, because one number
// cannot determine two; the layer times keep the roofline's proportions and their sum becomes the measurement.
//
// The implied efficiency is a finding, not a knob: 0.3-0.5 is typical of eager PyTorch on small batches, and above
// 1 the measurement beats the roofline's FLOP count (Winograd and FFT convolutions do fewer multiply-adds than the
// layer's arithmetic; cuDNN picks them for VGG's 3x3 convolutions). Past kMaxImpliedEfficiency the model, not the
// GPU, is wrong, and the fit refuses.
#include <cstdint>

#include "syncsim/compute/compute_model.hpp"

namespace syncsim {

// A measurement 4x faster than the roofline at full peak is a model that counts the wrong work.
inline constexpr double kMaxImpliedEfficiency = 4.0;

struct StepTimeFit {
  double efficiency = 1;  // e, the factor that makes the roofline's iteration equal the measurement
  SimTime fixed;          // K: the kernel overheads, which no efficiency scales
  SimTime at_full_peak;   // W + K: the roofline's iteration at e = 1
};

// `options` gives the kernel overhead and backward factor (its efficiency is ignored). Throws InputError when the
// measurement is not longer than the kernel overheads alone, or implies an efficiency above kMaxImpliedEfficiency.
StepTimeFit fit_step_time(const GpuSpec& gpu, Precision precision, ComputeOptions options, const ModelSpec& model,
                          std::int64_t batch, std::int64_t micro_batches, Optimizer optimizer, SimTime measured);

}  // namespace syncsim
