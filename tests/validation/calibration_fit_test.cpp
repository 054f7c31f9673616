// The calibration fit: it recovers a model it is given data from, and on every shipped real log, calibrating on
// the log and validating on it meets issue 5's bounds (geomean |error| <= 10% over all sizes, max |error| <= 30%
// over sizes >= 1 MiB), with the one exception documented in docs/calibration.md.
#include <fmt/format.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>

#include "shipped_logs.hpp"
#include "syncsim/validation/calibration_fit.hpp"

using namespace syncsim;
using namespace syncsim::shipped_logs;

namespace {

// An AllReduce log of `ranks` ranks on `hosts` hosts whose out-of-place times are the model's own predictions.
NcclTestsLog synthetic_log(const std::string& family, int ranks, const CalibratedModel& model, int hosts = 1) {
  NcclTestsLog log;
  log.source = "synthetic.log";
  log.ranks = ranks;
  log.hosts = hosts;
  log.ranks_per_host = ranks / hosts;
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

std::size_t index(LinkKind c) {
  return static_cast<std::size_t>(c);
}

// Every fitted number within its physical range (calibration_fit.hpp): efficiency in (0, 1], latencies in
// [0, 2 x the fastest measured time], the fill in [0, NCCL's largest ramp for the ranks]; and each on_bound entry
// is a parameter really on that bound.
void check_within_bounds(const Calibration& calibration, double fastest_us, int ranks) {
  const double max_fill = 64.0 * 512 * std::max(64, 8 * ranks);
  for (const CalibrationRegime& r : calibration.regimes) {
    INFO("regime " << r.name);
    CHECK(r.launch_us >= 0);
    // A window's launch adds a per-collective cost of its size range (calibration_extras.hpp), beyond 2 T_min.
    if (!r.window) CHECK(r.launch_us <= 2 * fastest_us * (1 + 1e-6));
    CHECK(r.fill_bytes >= 0);
    CHECK(r.fill_bytes <= max_fill);
    for (const LinkKind c : kLinkKinds) {
      const LinkCalibration& link = r.links[index(c)];
      if (!link.fitted) continue;
      INFO("class " << nccl_class_name(c));
      CHECK(link.efficiency > 0);
      CHECK(link.efficiency <= 1.0);
      CHECK(link.step_latency_us >= 0);
      CHECK(link.step_latency_us <= 2 * fastest_us * (1 + 1e-6));
    }
  }
  for (const BoundHit& hit : calibration.on_bound) CHECK(hit.value == Approx(hit.bound).margin(1e-3));
}

double fastest(const CalibrationMeasurement& m) {
  return *std::min_element(m.measured_us.begin(), m.measured_us.end());
}

bool efficiency_on_upper_bound(const Calibration& calibration) {
  return std::any_of(calibration.on_bound.begin(), calibration.on_bound.end(), [](const BoundHit& hit) {
    return hit.upper && hit.parameter.find(".efficiency") != std::string::npos;
  });
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
    // NCCL's choice on an untuned fabric), which no minimum over regimes can follow: the fit's size windows do
    // (issue 45: at most 15% at every size from 1 MiB; it was 66% without them).
    {"a100-sxm4-2node-16gpu-roce-16x100g.log", "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps",
     Placement::out_of_place, 0.15},
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
  const CalibratedModel truth{{"latency", "bandwidth"}, {regime(8, 1, 0.25), regime(20, 5, 0.8)}, {}};
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
  // Within its bounds: nothing to warn about.
  CHECK(fitted.on_bound.empty());
}

TEST_CASE("a log faster than its links allow pins the efficiency at 1 and says so", "[calibration-fit][bounds]") {
  // The A100 node log with every time from 1 MiB on halved: 470 GB/s busbw on 300 GB/s NVLink.
  const NcclTestsLog log =
      read_nccl_tests_log(std::string(SYNCSIM_VALIDATION_TEST_DATA "/a100-1node-faster-than-nvlink.log"));
  const Calibration calibration = fit_calibration({log}, "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s");
  CHECK(calibration.regimes[1].links[index(LinkKind::nvlink)].efficiency == 1.0);
  const auto hit = std::find_if(calibration.on_bound.begin(), calibration.on_bound.end(),
                                [](const BoundHit& h) { return h.parameter == "bandwidth.nvlink.efficiency"; });
  REQUIRE(hit != calibration.on_bound.end());
  CHECK(*hit == BoundHit{"bandwidth.nvlink.efficiency", 1, 1, true});
  check_within_bounds(calibration, fastest(calibration.measurements[0]), log.ranks);
  // The file keeps the warning for validate.
  std::ostringstream text;
  write_calibration(text, calibration);
  CHECK(parse_calibration(text.str(), "written.yaml").on_bound == calibration.on_bound);
}

TEST_CASE("the channel ramp of a model is fitted back", "[calibration-fit]") {
  // The bandwidth regime of the model above with a 1 MiB fill (all channels busy from 1 MiB: NCCL's 32 KiB per
  // channel x 32 channels), and a latency regime slow enough per byte (5% of the rate) that the ramp sets the
  // times from about 128 KiB: 256 KiB costs what 1 MiB costs. The fit finds the fill and the times.
  const std::string family = "switch:n=4,bw=32GB/s,link_kind=pcie";
  TransferCost bandwidth = regime(20, 5, 0.8);
  bandwidth.fill = Bytes{1 << 20};
  const CalibratedModel truth{{"latency", "bandwidth"}, {regime(8, 1, 0.05), bandwidth}, {}};
  const Calibration fitted = fit_calibration({synthetic_log(family, 4, truth)}, family);
  CHECK(fitted.measurements[0].fit_error.max_abs_error < 0.01);
  CHECK(fitted.regimes[1].fill_bytes == Approx(1 << 20).epsilon(0.1));
}

TEST_CASE("a log of a single size still fits", "[calibration-fit]") {
  const std::string family = "switch:n=4,bw=32GB/s,link_kind=pcie";
  NcclTestsLog log = synthetic_log(family, 4, {{"only"}, {regime(10, 2, 0.5)}, {}});
  log.rows.resize(1);
  const Calibration fitted = fit_calibration({log}, family);
  CHECK(fitted.measurements[0].fit_error.max_abs_error < 0.01);
}

TEST_CASE("a log of milliseconds fits as well as one of microseconds", "[calibration-fit]") {
  // Real syncsim-bench-mpi times from 4 ranks busy-polling on 2 cores beside a CPU-bound test: 1.8 to 18 ms where
  // a quiet run measures 8 us to 0.8 ms (tests/validation/data/README.md). Nothing in the fit may assume
  // microseconds: the same generous bound as the MPI pipeline test.
  const NcclTestsLog log =
      read_nccl_tests_log(std::string(SYNCSIM_VALIDATION_TEST_DATA "/mpi-4rank-oversubscribed.log"));
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
    check_within_bounds(calibration, fastest(calibration.measurements[0]), log.ranks);
    // The largest size (the anchor: bandwidth alone) within 3%, unless the fit says it could not get there: an
    // efficiency on its upper bound (the H100 node's NVLS moves 483 GB/s busbw on 450 GB/s links).
    const CalibrationMeasurement& m = calibration.measurements[0];
    const double top_error = std::abs(relative_error(m.predicted_us.back(), m.measured_us.back()));
    INFO("largest size " << m.sizes_bytes.back() << ": error " << top_error);
    CHECK((top_error <= 0.03 || efficiency_on_upper_bound(calibration)));

    // No kinks the log lacks (issue 45): between neighbouring sizes from 1 MiB the predicted bus bandwidth changes
    // by at most kKink times as much as the measured one does (a size window follows a fall the log has; none may
    // add one it lacks).
    constexpr double kKink = 1.5;  // measured worst: 1.19 (the A100 two-node log, 32 to 64 MiB)
    for (std::size_t i = 1; i < m.sizes_bytes.size(); ++i) {
      if (m.sizes_bytes[i - 1] < (std::int64_t{1} << 20)) continue;
      const double size_ratio = static_cast<double>(m.sizes_bytes[i]) / static_cast<double>(m.sizes_bytes[i - 1]);
      const double predicted = size_ratio * m.predicted_us[i - 1] / m.predicted_us[i];  // busbw_i / busbw_{i-1}
      const double measured = size_ratio * m.measured_us[i - 1] / m.measured_us[i];
      INFO(m.sizes_bytes[i] << " B: predicted busbw x" << predicted << ", measured x" << measured);
      CHECK(std::max(predicted / measured, measured / predicted) <= kKink);
    }

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

TEST_CASE("the A100 2-node fit reaches the log's top: 69.6-71.6 GB/s busbw from 512 MiB on", "[calibration-fit]") {
  // The log's middle sizes sit on a slower plateau (21-37 GB/s at 64-256 MiB); the fit must not settle between
  // the plateaus (format 1's fit from NCCL's constants reached 41.8 GB/s once efficiencies were bounded by 1).
  const NcclTestsLog log = read_nccl_tests_log(shipped("a100-sxm4-2node-16gpu-roce-16x100g.log"));
  const Calibration calibration = fit_calibration({log}, "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  const CalibrationMeasurement& m = calibration.measurements[0];
  int top_sizes = 0;
  for (std::size_t i = 0; i < m.sizes_bytes.size(); ++i) {
    if (m.sizes_bytes[i] < (std::int64_t{512} << 20)) continue;
    ++top_sizes;
    // busbw = size x 2(n-1)/n / time: its relative error is the time's, inverted.
    const double busbw_error = m.measured_us[i] / m.predicted_us[i] - 1;
    INFO(m.sizes_bytes[i] << " B: busbw error " << busbw_error);
    CHECK(std::abs(busbw_error) <= 0.03);
  }
  CHECK(top_sizes == 5);
  CHECK(calibration.on_bound.empty());
}

TEST_CASE("a fit carried to 2,048 GPUs never makes a size slower than a larger one", "[calibration-fit][envelope]") {
  // The two-node RoCE fit has size windows (the measured curve kinks); at 256 nodes the 12-24 MB window's regime made
  // 16 MiB take 4,778 us and 32 MiB 4,345 us (calibrated_envelope.cpp). Time may stay flat, never fall, with size;
  // bus bandwidth falls from a size to the next only by a little where the log's rises.
  const NcclTestsLog log = read_nccl_tests_log(shipped("a100-sxm4-2node-16gpu-roce-16x100g.log"));
  const Calibration calibration = fit_calibration({log}, "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  const CalibratedModel model = to_model(calibration);
  REQUIRE(std::any_of(model.windows.begin(), model.windows.end(), [](const auto& w) { return w.has_value(); }));
  // The measured time at each size, for where the log's own bus bandwidth falls.
  const CalibrationMeasurement& m = calibration.measurements[0];
  const auto measured = [&](std::int64_t size) {
    const auto at = std::find(m.sizes_bytes.begin(), m.sizes_bytes.end(), size);
    REQUIRE(at != m.sizes_bytes.end());
    return m.measured_us[static_cast<std::size_t>(at - m.sizes_bytes.begin())];
  };
  for (const int hosts : {2, 256}) {
    NcclTestsLog system_log;
    system_log.source = "scaled.log";
    system_log.ranks = 8 * hosts;
    system_log.hosts = hosts;
    system_log.ranks_per_host = 8;
    LogSystem system(system_log, calibration.topology, "test");
    SimTime previous;
    for (std::int64_t size = std::int64_t{1} << 20; size <= (std::int64_t{1} << 30); size *= 2) {
      const SimTime t = system.simulate(Bytes{size}, &model).time;
      INFO(hosts << " hosts, " << size << " B: " << t.us() << " us after " << previous.us() << " us");
      CHECK(t >= previous);
      // Bus bandwidth from one size to the next (its ratio is 2 t(s) / t(2s)) falls by at most 1.5 times where the
      // log's does not fall (the log: at most 1.5 times, section "Results").
      if (previous > SimTime::zero() && 2 * measured(size / 2) >= measured(size)) {
        CHECK(2 * previous.us() / t.us() >= 1 / 1.5);
      }
      previous = t;
    }
  }
}

TEST_CASE("calibrated on the A100 node, validated on two nodes: the network it never saw is the error",
          "[calibration-fit][extrapolation]") {
  // docs/calibration.md, "Calibrate small, predict big": the one-node log fits NVLink; the network keeps NCCL's
  // constants at the spec's 200 Gbps rails, which the untuned RoCE fabric reaches only 36% of. Measured: geomean
  // 25.3% over all sizes, 59.1% from 1 MiB on (NCCL's tree, issue 16, carries more of the mid sizes over the
  // network it never saw); bounds 28% and 62%.
  const NcclTestsLog one = read_nccl_tests_log(shipped("a100-sxm4-1node-8gpu-nvswitch.log"));
  const NcclTestsLog two = read_nccl_tests_log(shipped("a100-sxm4-2node-16gpu-roce-16x100g.log"));
  const std::string family = "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps";
  const Calibration calibration = fit_calibration({one}, family);
  CHECK_FALSE(calibration.regimes[1].links[index(LinkKind::network)].fitted);
  const Calibration back = [&] {
    std::ostringstream text;
    write_calibration(text, calibration);
    return parse_calibration(text.str(), "a100-1node.yaml");
  }();
  LogSystem system(two, back.topology, "test");
  const CalibrationMeasurement big =
      measure_fit(two, system, measured_points(two, back.placement), to_model(back), back.algorithm);
  CHECK(big.topology == "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  INFO("geomean " << big.fit_error.geomean_abs_error << ", >= 1 MiB " << *big.fit_error.geomean_abs_error_1mib);
  CHECK(big.fit_error.geomean_abs_error <= 0.28);
  CHECK(*big.fit_error.geomean_abs_error_1mib <= 0.62);
  // The reason: at the largest size the prediction is the spec's network (about 200 GB/s busbw), 2.5x and more
  // the 71.6 GB/s measured.
  CHECK(big.measured_us.back() / big.predicted_us.back() >= 2.5);
}

TEST_CASE("calibrated on one and two nodes, a system of the same links predicts four",
          "[calibration-fit][extrapolation]") {
  // No 4-node log ships, so the truth is a model: two regimes with NVLink and network costs of their own. Its
  // 1- and 2-node logs, fitted together, predict its 4-node log: the parameters are per link class, not per
  // system. Both small logs are needed: on one system size every collective has the same steps, so launch and
  // per-step latency (and NVLink against network, where the network is the bottleneck) are one number there.
  const std::string family = "dgx:nodes=2,gpus=4,nvlink_bw=300GB/s,nic_bw=200Gbps";
  TransferCost latency = regime(12, 0, 0.2);
  latency.step_latency = std::array<SimTime, 3>{SimTime::from_us(0.5), SimTime::from_us(1), SimTime::from_us(4)};
  latency.efficiency = {0.15, 0.25, 0.1};
  TransferCost bandwidth = regime(25, 0, 1);
  bandwidth.step_latency = std::array<SimTime, 3>{SimTime::from_us(3), SimTime::from_us(5), SimTime::from_us(9)};
  bandwidth.efficiency = {0.8, 1.0, 0.6};
  const CalibratedModel truth{{"latency", "bandwidth"}, {latency, bandwidth}, {}};
  const NcclTestsLog node = synthetic_log("dgx:nodes=1,gpus=4,nvlink_bw=300GB/s,nic_bw=200Gbps", 4, truth, 1);
  const NcclTestsLog small = synthetic_log(family, 8, truth, 2);
  const NcclTestsLog big = synthetic_log("dgx:nodes=4,gpus=4,nvlink_bw=300GB/s,nic_bw=200Gbps", 16, truth, 4);
  const Calibration calibration = fit_calibration({node, small}, family);
  for (const CalibrationMeasurement& m : calibration.measurements) CHECK(m.fit_error.geomean_abs_error <= 0.02);
  LogSystem system(big, calibration.topology, "test");
  const CalibrationMeasurement predicted =
      measure_fit(big, system, measured_points(big, calibration.placement), to_model(calibration), std::nullopt);
  CHECK(predicted.topology == "dgx:nodes=4,gpus=4,nvlink_bw=300GB/s,nic_bw=200Gbps");
  INFO("4 nodes: geomean " << predicted.fit_error.geomean_abs_error << ", max " << predicted.fit_error.max_abs_error);
  CHECK(predicted.fit_error.geomean_abs_error <= 0.03);
  // Measured since NCCL's tree (issue 16): geomean 0.07%, max 14.4% at a single size, most likely one where the
  // truth's candidates cost nearly the same and the fitted model picks the other one (not yet pinned down).
  CHECK(predicted.fit_error.max_abs_error <= 0.15);
}

TEST_CASE("the calibration records the system it was fitted on", "[calibration-fit][domain]") {
  const NcclTestsLog log = read_nccl_tests_log(shipped("a100-sxm4-2node-16gpu-roce-16x100g.log"));
  const Calibration calibration = fit_calibration({log}, "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  REQUIRE(calibration.domain);
  const CalibrationDomain& d = *calibration.domain;
  CHECK(d.gpu == "A100-SXM4-40GB");
  CHECK(d.device == "NVIDIA A100-SXM4-40GB");
  CHECK(d.nodes == 2);
  CHECK(d.ranks == 16);
  REQUIRE(d.links.size() == 2);
  CHECK(d.links[1].kind == LinkKind::network);
  CHECK(d.links[1].rate_gb_per_s == Approx(25));
  CHECK(d.min_size_bytes == 64);
  CHECK(d.max_size_bytes == std::int64_t{8} << 30);
  REQUIRE(d.logs.size() == 1);
  CHECK(d.logs[0].file == "a100-sxm4-2node-16gpu-roce-16x100g.log");
  // The slow sizes are windows tied to the network, which the one-node system never crosses.
  const auto windows = std::count_if(calibration.regimes.begin(), calibration.regimes.end(),
                                     [](const CalibrationRegime& r) { return r.window.has_value(); });
  CHECK(windows >= 1);
  CHECK(windows <= 2);
  for (const CalibrationRegime& r : calibration.regimes) {
    if (r.window) CHECK(r.window->link_class == LinkKind::network);
  }
}

TEST_CASE("a log's NCCL version and environment are read and recorded", "[calibration-fit][domain]") {
  const NcclTestsLog log = read_nccl_tests_log(fmt::format("{}/nccl-info-lines.log", SYNCSIM_VALIDATION_TEST_DATA));
  CHECK(log.nccl_version == "2.18.5+cuda12.2");
}

TEST_CASE("a band from a fit that left one log of a system out covers most of that log's sizes",
          "[calibration-fit][band]") {
  // The L40S node's default and ring logs, each left out of a fit on the other two (the tree log ran with
  // NCCL_ALGO=Tree: a configuration of its own, never left out here). Issue 45: at least 80% of the sizes inside
  // the band; measured 88% (default) and 84% (ring).
  const std::string family = "switch:n=4,bw=32GB/s,link_kind=pcie";
  const std::array<const char*, 3> logs{"l40s-pcie-4gpu-default.log", "l40s-pcie-4gpu-ring.log",
                                        "l40s-pcie-4gpu-tree.log"};
  for (std::size_t out = 0; out < 2; ++out) {
    INFO("left out " << logs[out]);
    std::vector<NcclTestsLog> fitted;
    for (std::size_t l = 0; l < logs.size(); ++l) {
      if (l != out) fitted.push_back(read_nccl_tests_log(shipped(logs[l])));
    }
    const Calibration calibration = fit_calibration(fitted, family);
    const NcclTestsLog left = read_nccl_tests_log(shipped(logs[out]));
    LogSystem system(left, family, "test");
    const CalibratedModel model = to_model(calibration);
    const std::vector<MeasuredPoint> points = measured_points(left, calibration.placement);
    std::size_t inside = 0;
    for (const MeasuredPoint& p : points) {
      const double predicted = system.simulate(p.size, &model).time.us();
      const ErrorBand band = error_band(calibration, p.size);
      CHECK(band.low <= -kBandFloor);
      CHECK(band.high >= kBandFloor);
      inside +=
          p.time_us >= predicted * (1 + band.low) * (1 - 1e-5) && p.time_us <= predicted * (1 + band.high) * (1 + 1e-5);
    }
    INFO(inside << " of " << points.size() << " inside");
    CHECK(static_cast<double>(inside) >= 0.8 * static_cast<double>(points.size()));
  }
}
