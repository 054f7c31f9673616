// The calibration fit: it recovers a model it is given data from, and on every shipped real log, calibrating on
// the log and validating on it meets issue 5's bounds (geomean |error| <= 10% over all sizes, max |error| <= 30%
// over sizes >= 1 MiB), with the one exception documented in docs/calibration.md.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "syncsim/validation/calibration_fit.hpp"

using namespace syncsim;

namespace {

std::string shipped(const std::string& name) {
  return std::string(SYNCSIM_NCCL_TESTS_DATA) + "/" + name;
}

// An AllReduce log of `ranks` ranks on one host whose out-of-place times are the model's own predictions.
NcclTestsLog synthetic_log(const std::string& family, int ranks, const CalibratedModel& model) {
  NcclTestsLog log;
  log.source = "synthetic.log";
  log.ranks = ranks;
  log.hosts = 1;
  log.ranks_per_host = ranks;
  LogSystem system(log, family, "test");
  for (std::int64_t size = 64; size <= (std::int64_t{1} << 28); size *= 4) {
    NcclTestsRow row;
    row.size_bytes = size;
    row.count = size / 4;
    row.out_of_place.time_us = system.simulate(Bytes{size}, &model).time.us();
    row.in_place = row.out_of_place;
    log.rows.push_back(row);
  }
  return log;
}

TransferCost regime(double launch_us, double latency_us, double efficiency) {
  TransferCost cost;
  const SimTime latency = SimTime::from_us(latency_us);
  cost.step_latency = std::array<SimTime, 3>{latency, latency, latency};
  cost.efficiency = {efficiency, efficiency, efficiency};
  cost.launch = SimTime::from_us(launch_us);
  return cost;
}

struct Shipped {
  const char* file;
  const char* topology;
  Placement placement;
  double max_error_1mib;  // the 30%, except where docs/calibration.md explains why a log cannot meet it
};

// The systems (docs/calibration.md, "Topology per log", says why each spec).
const Shipped kShipped[] = {
    {"a100-sxm4-1node-8gpu-nvswitch.log", "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s", Placement::out_of_place, 0.30},
    // The measured curve is not concave in size (busbw 58 GB/s at 32 MiB, 21-37 at 64-256 MiB, 70 from 512 MiB:
    // NCCL's choice on an untuned fabric), which no minimum over regimes can follow: 30% is unreachable.
    {"a100-sxm4-2node-16gpu-roce-16x100g.log", "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps",
     Placement::out_of_place, 0.70},
    {"h100-1node-8gpu-nvswitch.log", "dgx:nodes=1,gpus=8,nvlink_bw=450GB/s", Placement::out_of_place, 0.30},
    {"l40s-pcie-4gpu-default.log", "switch:n=4,bw=32GB/s,link_kind=pcie", Placement::out_of_place, 0.30},
    {"l40s-pcie-4gpu-ring.log", "switch:n=4,bw=32GB/s,link_kind=pcie", Placement::out_of_place, 0.30},
    {"l40s-pcie-4gpu-tree.log", "switch:n=4,bw=32GB/s,link_kind=pcie", Placement::out_of_place, 0.30},
    {"rtx2080ti-pcie3-2gpu-nop2p.log", "switch:n=2,bw=16GB/s,link_kind=pcie", Placement::out_of_place, 0.30},
    {"rtx2080ti-pcie3-2gpu-nop2p.all_gather.log", "switch:n=2,bw=16GB/s,link_kind=pcie", Placement::out_of_place, 0.30},
    // Every third out-of-place row is 4-7x slower than its neighbours and than its own in-place twin: the faster
    // placement is the measurement.
    {"v100-dgx1-2node-16gpu-roce-2x100g.log", "dgx:nodes=2,gpus=8,nvlink_bw=150GB/s,nic_bw=200Gbps,rails=1",
     Placement::min, 0.30},
};

}  // namespace

TEST_CASE("the fit recovers the times of a model it is given data from", "[calibration-fit]") {
  // A two-regime model on 4 PCIe GPUs: latency-bound (8 us launch, 1 us per step, 25% of the rate) and
  // bandwidth-bound (20 us, 5 us, 80%). Its own predictions, fitted, must come back within a fraction of a percent.
  const std::string family = "switch:n=4,bw=32GB/s,link_kind=pcie";
  const CalibratedModel truth{{"latency", "bandwidth"}, {regime(8, 1, 0.25), regime(20, 5, 0.8)}};
  const NcclTestsLog log = synthetic_log(family, 4, truth);
  FitStats stats;
  const Calibration fitted = fit_calibration({log}, family, {}, &stats);
  REQUIRE(fitted.measurements.size() == 1);
  const ErrorSummary& e = fitted.measurements[0].fit_error;
  CHECK(e.max_abs_error < 0.005);
  // The large sizes are all bandwidth: the fitted efficiency is the true one.
  CHECK(fitted.regimes[1].links[static_cast<std::size_t>(LinkKind::pcie)].efficiency == Approx(0.8).epsilon(0.01));
  CHECK(fitted.regimes[1].links[static_cast<std::size_t>(LinkKind::pcie)].fitted);
  CHECK_FALSE(fitted.regimes[1].links[static_cast<std::size_t>(LinkKind::network)].fitted);
  CHECK(stats.simulations > 0);
}

TEST_CASE("a log of a single size still fits", "[calibration-fit]") {
  const std::string family = "switch:n=4,bw=32GB/s,link_kind=pcie";
  NcclTestsLog log = synthetic_log(family, 4, {{"only"}, {regime(10, 2, 0.5)}});
  log.rows.resize(1);
  const Calibration fitted = fit_calibration({log}, family);
  CHECK(fitted.measurements[0].fit_error.max_abs_error < 0.01);
}

TEST_CASE("a log of milliseconds fits as well as one of microseconds", "[calibration-fit]") {
  // Real syncsim-bench-mpi times from 4 ranks busy-polling on 2 cores beside a CPU-bound test: 1.8 to 18 ms where
  // a quiet run measures 8 us to 0.8 ms (tests/validation/data/README.md). Nothing in the fit may assume
  // microseconds: the same generous bound as the MPI pipeline test.
  const NcclTestsLog log =
      read_nccl_tests_log(std::string(SYNCSIM_VALIDATION_TEST_DATA) + "/mpi-4rank-oversubscribed.log");
  const Calibration calibration = fit_calibration({log}, "switch:n=4,bw=10GB/s,link_kind=pcie");
  CHECK(calibration.measurements[0].fit_error.geomean_abs_error <= 0.25);
  CHECK(calibration.measurements[0].predicted_us.front() > 1000);
}

TEST_CASE("calibrated on itself, every shipped log meets the error bounds", "[calibration-fit][shipped]") {
  for (const Shipped& s : kShipped) {
    INFO(s.file << " on " << s.topology);
    const NcclTestsLog log = read_nccl_tests_log(shipped(s.file));
    FitOptions options;
    options.placement = s.placement;
    const Calibration calibration = fit_calibration({log}, s.topology, options);
    REQUIRE(calibration.measurements.size() == 1);
    const ErrorSummary& e = calibration.measurements[0].fit_error;
    INFO("geomean " << e.geomean_abs_error << ", max >= 1 MiB " << e.max_abs_error_1mib.value_or(-1));
    CHECK(e.geomean_abs_error <= 0.10);
    REQUIRE(e.max_abs_error_1mib);
    CHECK(*e.max_abs_error_1mib <= s.max_error_1mib);

    // What validate computes from the written file is what the fit reported.
    std::ostringstream text;
    write_calibration(text, calibration);
    const Calibration back = parse_calibration(text.str(), "written.yaml");
    const CalibratedModel model = to_model(back);
    LogSystem system(log, back.topology, "test");
    const CalibrationMeasurement again =
        measure_fit(log, system, measured_points(log, back.placement), model, back.algorithm);
    CHECK(again.fit_error.geomean_abs_error == Approx(e.geomean_abs_error).epsilon(1e-3));
  }
}

TEST_CASE("calibrated on the A100 one- and two-node logs together, each validates within 15%", "[calibration-fit]") {
  const NcclTestsLog one = read_nccl_tests_log(shipped("a100-sxm4-1node-8gpu-nvswitch.log"));
  const NcclTestsLog two = read_nccl_tests_log(shipped("a100-sxm4-2node-16gpu-roce-16x100g.log"));
  const Calibration calibration = fit_calibration({one, two}, "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  REQUIRE(calibration.measurements.size() == 2);
  CHECK(calibration.measurements[0].topology == "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  CHECK(calibration.measurements[1].topology == "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  for (const CalibrationMeasurement& m : calibration.measurements) {
    INFO(m.file << ": geomean " << m.fit_error.geomean_abs_error);
    CHECK(m.fit_error.geomean_abs_error <= 0.15);
  }
  // Both links were measured: NVLink by both logs, the network by the two-node one; PCIe by neither.
  for (const CalibrationRegime& r : calibration.regimes) {
    CHECK(r.links[static_cast<std::size_t>(LinkKind::nvlink)].fitted);
    CHECK(r.links[static_cast<std::size_t>(LinkKind::network)].fitted);
    CHECK_FALSE(r.links[static_cast<std::size_t>(LinkKind::pcie)].fitted);
  }
}

TEST_CASE("a forced algorithm is fitted and recorded", "[calibration-fit]") {
  // l40s-pcie-4gpu-tree.log ran with NCCL_ALGO=Tree.
  const NcclTestsLog log = read_nccl_tests_log(shipped("l40s-pcie-4gpu-tree.log"));
  FitOptions options;
  options.algorithm = Algorithm::tree;
  const Calibration calibration = fit_calibration({log}, "switch:n=4,bw=32GB/s,link_kind=pcie", options);
  CHECK(calibration.algorithm == std::optional<Algorithm>(Algorithm::tree));
  CHECK(calibration.measurements[0].fit_error.geomean_abs_error <= 0.10);
}
