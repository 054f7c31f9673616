// A calibrated run's band (run_scenario.cpp, calibration_band): the iteration with every calibrated collective at
// the low, then the high edge of its calibration's error band. Without overlap each bucket's AllReduce adds its whole
// time to the iteration, so the band's edges move the iteration by exactly the buckets' times times their edges.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::string kCalibration = std::string(SYNCSIM_CALIBRATION_DATA) + "/a100-1node.yaml";

TrainingReport run_a100(const std::string& training) {
  const std::string yaml = fmt::format(
      "name: band\n"
      "cluster: {{gpu: A100-SXM4-40GB, topology: {{kind: dgx, nodes: 1, gpus: 8}}}}\n"
      "model: {{name: resnet50, batch_per_gpu: 64, precision: fp16}}\n"
      "training: {{strategy: sync, iterations: 3, overlap: false{}}}\n"
      "calibration: {}\n",
      training, kCalibration);
  return run::run_scenario(parse_scenario(yaml, "band.yaml")).report;
}

}  // namespace

TEST_CASE("a calibrated run's band moves each exposed AllReduce by its size's edge of the error band",
          "[run][calibration]") {
  const TrainingReport r = run_a100("");
  REQUIRE(r.calibration_band);
  REQUIRE(r.buckets.size() > 1);
  const Calibration calibration = read_calibration(kCalibration);
  SimTime to_low;
  SimTime to_high;
  for (const BucketReport& b : r.buckets) {
    const ErrorBand band = error_band(calibration, b.bytes);
    to_low += b.allreduce_time.scaled(1 + band.low) - b.allreduce_time;
    to_high += b.allreduce_time.scaled(1 + band.high) - b.allreduce_time;
  }
  // The band is at least the fit's noise floor either side, so the edges do move the iteration.
  CHECK(to_low < SimTime::zero());
  CHECK(to_high > SimTime::zero());
  // Every iteration of a sync run without stragglers takes the same time: the mean is exact to a picosecond.
  const auto ps = [](SimTime t) { return static_cast<double>(t.ps()); };
  CHECK(ps(r.calibration_band->iteration_low) == Approx(ps(r.iteration_mean + to_low)).margin(2));
  CHECK(ps(r.calibration_band->iteration_high) == Approx(ps(r.iteration_mean + to_high)).margin(2));
  CHECK(r.calibration_band->samples_per_second_low < r.samples_per_second);
  CHECK(r.calibration_band->samples_per_second_high > r.samples_per_second);
}

TEST_CASE("a run without a calibration has no band", "[run][calibration]") {
  const TrainingReport r = run_a100(", latency_model: nccl");
  CHECK_FALSE(r.calibration_band);
}
