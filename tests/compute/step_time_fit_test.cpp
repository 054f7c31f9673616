// The compute model fitted to a measured step (step_time_fit.hpp): the closed form on a hand-worked GPU, the
// fitted model reproducing the measurement, and the measurements it refuses.
#include <catch2/catch.hpp>

#include "syncsim/compute/step_time_fit.hpp"
#include "syncsim/core/input_error.hpp"
#include "toy_gpu.hpp"

using namespace syncsim;
using namespace syncsim::toy_gpu;

TEST_CASE("a measured step fixes the one efficiency: e = W / (T - K)", "[step_time]") {
  // System: toy GPU, fp32, batch 10, one layer, backward 2x forward, kernel overhead 5 us, no parameters.
  //   forward at e = 1: 10 x 8 MB / 100 GB/s = 0.8 ms; forward + backward = 3 x 0.8 = 2.4 ms = W
  //   kernels: forward, backward (counted twice: it is 2x forward, overhead included), optimizer = 4 x 5 us = K
  //   a measured 4.82 ms gives e = 2.4 / (4.82 - 0.02) = 0.5
  const ModelSpec model("toy", {kElementwise});
  const ComputeOptions options{.efficiency = 0.9, .kernel_overhead = SimTime::from_us(5), .backward_factor = 2};
  const StepTimeFit fit =
      fit_step_time(toy(), Precision::fp32, options, model, 10, 1, Optimizer::momentum, SimTime::from_us(4820));
  CHECK(fit.efficiency == Approx(0.5).epsilon(1e-12));
  CHECK(fit.fixed == SimTime::from_us(20));
  CHECK(fit.at_full_peak == SimTime::from_us(2420));

  // The fitted model's iteration is the measurement.
  const ComputeModel fitted(
      toy(), Precision::fp32,
      {.efficiency = fit.efficiency, .kernel_overhead = SimTime::from_us(5), .backward_factor = 2});
  const SimTime iteration =
      fitted.forward(model, 10) + fitted.backward(model, 10) + fitted.optimizer_step(0, Optimizer::momentum);
  CHECK(std::llabs(iteration.ps() - SimTime::from_us(4820).ps()) <= 2);
}

TEST_CASE("micro-batches repeat forward and backward before the one optimizer step", "[step_time]") {
  // k = 3: W = 3 x 2.4 ms = 7.2 ms, K = (3 x 3 + 1) x 5 us = 50 us; 14.45 ms measured -> e = 7.2 / 14.4 = 0.5.
  const ModelSpec model("toy", {kElementwise});
  const StepTimeFit fit = fit_step_time(toy(), Precision::fp32, {.kernel_overhead = SimTime::from_us(5)}, model, 10, 3,
                                        Optimizer::momentum, SimTime::from_us(14450));
  CHECK(fit.fixed == SimTime::from_us(50));
  CHECK(fit.efficiency == Approx(0.5).epsilon(1e-12));
}

TEST_CASE("a faster-than-roofline step is a finding up to 4x, an error beyond", "[step_time]") {
  const ModelSpec model("toy", {kElementwise});
  const ComputeOptions options{.kernel_overhead = SimTime::from_us(5)};
  // 1.22 ms: e = 2.4 / 1.2 = 2 (the run did less work than the layer's count).
  CHECK(fit_step_time(toy(), Precision::fp32, options, model, 10, 1, Optimizer::momentum, SimTime::from_us(1220))
            .efficiency == Approx(2.0).epsilon(1e-12));
  // 0.5 ms: e = 2.4 / 0.48 = 5.
  CHECK_THROWS_WITH(
      fit_step_time(toy(), Precision::fp32, options, model, 10, 1, Optimizer::momentum, SimTime::from_us(500)),
      Catch::Contains("implies an efficiency of 5, above 4"));
  // 20 us is the overheads alone.
  CHECK_THROWS_WITH(
      fit_step_time(toy(), Precision::fp32, options, model, 10, 1, Optimizer::momentum, SimTime::from_us(20)),
      Catch::Contains("not longer than the kernel overheads alone (20 us for 4 kernels of 5 us)"));
}
