// `model.step_time` end to end (compute/step_time_fit.hpp): the single-GPU iteration the report uses is the
// measurement, the report states the implied efficiency, and the communication is simulated on top of it.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
TrainingReport run_step_time_yaml(const std::string& model_extra, const std::string& micro_batches = "1") {
  const std::string yaml =
      "name: dgx1\n"
      "cluster: {gpu: V100-SXM2-16GB, topology: \"switch:n=4,bw=100Gbps,lat=5us\"}\n"
      "model: {name: resnet50, batch_per_gpu: 32, precision: fp32, micro_batches: " +
      micro_batches + model_extra +
      "}\n"
      "training: {strategy: sync, iterations: 5}\n";
  return run::run_scenario(parse_scenario(yaml, "dgx1.yaml")).report;
}
}  // namespace

TEST_CASE("a measured step time becomes the single-GPU iteration, with the efficiency it implies", "[step_time]") {
  // PyTorch's DDP benchmark: resnet50, batch 32, one V100 without DDP, 0.097 s per iteration.
  const TrainingReport fitted = run_step_time_yaml(", step_time: 97ms");
  REQUIRE(fitted.compute_fit);
  CHECK(fitted.compute_fit->measured_step == SimTime::from_ms(97));
  // Per-layer rounding to whole picoseconds: at most a few per kernel.
  CHECK(std::llabs(fitted.single_gpu_iteration.ps() - SimTime::from_ms(97).ps()) < 10'000);
  const double e = fitted.compute_fit->implied_efficiency;
  // docs/compute.md quotes this fit.
  CHECK(e == Approx(0.856).margin(0.0005));

  // The same efficiency given by hand is the same run.
  const TrainingReport by_hand = run_step_time_yaml(fmt::format(", efficiency: {:.17g}", e));
  CHECK(std::llabs(by_hand.single_gpu_iteration.ps() - fitted.single_gpu_iteration.ps()) < 10'000);
  CHECK(!by_hand.compute_fit);

  // Four GPUs take at least the measured step: communication comes on top.
  CHECK(fitted.iteration_mean >= SimTime::from_ms(97));
}

TEST_CASE("with micro-batches the measured step covers all of them", "[step_time]") {
  const TrainingReport one = run_step_time_yaml(", step_time: 97ms");
  const TrainingReport two = run_step_time_yaml(", step_time: 194ms", "2");
  CHECK(std::llabs(two.single_gpu_iteration.ps() - SimTime::from_ms(194).ps()) < 10'000);
  // Twice the work in twice the time: nearly the same efficiency (one optimizer step is shared).
  CHECK(two.compute_fit->implied_efficiency == Approx(one.compute_fit->implied_efficiency).epsilon(0.02));
}
