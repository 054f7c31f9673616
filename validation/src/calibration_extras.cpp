// A calibration's domain and size windows (calibration_extras.hpp).
#include "calibration_extras.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace syncsim::calibration_extras {

namespace {

// Windows explain what the two regimes cannot: a measured curve that gets slower per byte over a size range and
// faster again after it (the A100 two-node RoCE log: 16 MiB and 64-256 MiB at half the bus bandwidth of 8, 32 and
// 512 MiB). Only bandwidth-bound sizes (from 1 MiB, as the error summaries' second column), only runs predicted
// more than 10% too fast (a slower window cannot fix a prediction that is too slow), at most two windows per
// calibration: two parameters each, so a fit stays a model and not a table of sizes.
constexpr std::int64_t kWindowMinBytes = 1 << 20;
constexpr double kWindowThreshold = 0.10;
constexpr std::size_t kMaxWindows = 2;
// The `bandwidth` regime (calibration_unknowns.hpp's order) is what a window slows down.
constexpr std::size_t kBandwidthRegime = 1;
// A window's bandwidth factor k divides efficiencies: at most 1000 times slower, never above a link's rate.
constexpr double kMaxSlowdown = 1e3;

struct Run {
  std::size_t log = 0;
  std::size_t first = 0;  // indices into the log's measurement
  std::size_t last = 0;
  double badness = 0;  // sum of squared relative errors
};

// The slowest class a log's collective crosses: the one a window is tied to.
LinkKind window_class(const LogSystem& system) {
  const std::vector<LinkKind>& classes = system.link_classes();
  for (const LinkKind kind : {LinkKind::network, LinkKind::pcie, LinkKind::nvlink}) {
    if (std::find(classes.begin(), classes.end(), kind) != classes.end()) return kind;
  }
  return LinkKind::nvlink;
}

std::vector<Run> slow_runs(const Calibration& calibration) {
  std::vector<Run> runs;
  for (std::size_t l = 0; l < calibration.measurements.size(); ++l) {
    const CalibrationMeasurement& m = calibration.measurements[l];
    std::optional<Run> open;
    for (std::size_t i = 0; i <= m.sizes_bytes.size(); ++i) {
      const bool slow = i < m.sizes_bytes.size() && m.sizes_bytes[i] >= kWindowMinBytes &&
                        m.predicted_us[i] < (1 - kWindowThreshold) * m.measured_us[i];
      if (slow) {
        const double error = m.predicted_us[i] / m.measured_us[i] - 1;
        if (!open) open = Run{l, i, i, 0};
        open->last = i;
        open->badness += error * error;
      } else if (open) {
        runs.push_back(*open);
        open.reset();
      }
    }
  }
  std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.badness > b.badness; });
  if (runs.size() > kMaxWindows) runs.resize(kMaxWindows);
  return runs;
}

// The window's edges: halfway (geometrically) to the neighbouring measured sizes, so that the sizes between are
// split between the window and the regimes around it.
RegimeWindow window_of(const CalibrationMeasurement& m, const Run& run, LinkKind link_class) {
  const auto between = [](std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(a) * static_cast<double>(b))));
  };
  const std::int64_t first = m.sizes_bytes[run.first];
  const std::int64_t last = m.sizes_bytes[run.last];
  const std::int64_t lo = run.first > 0 ? between(m.sizes_bytes[run.first - 1], first) + 1 : first;
  const std::int64_t hi = run.last + 1 < m.sizes_bytes.size() ? between(last, m.sizes_bytes[run.last + 1]) : last;
  return {Bytes{lo}, Bytes{hi}, link_class};
}

TransferCost slowed(TransferCost cost, const std::vector<LinkKind>& classes, double factor, double extra_us) {
  for (const LinkKind c : classes) cost.efficiency[static_cast<std::size_t>(c)] /= factor;
  cost.launch += SimTime::from_us(extra_us);
  return cost;
}

// Least squares on the relative error of T = B + D + k V over the run (B, V from two simulations per size: the
// regime as fitted and with its efficiencies halved), D in [0, fastest measured of the run], k in
// [largest efficiency, kMaxSlowdown]. One size fixes k alone (D = 0: a slower link explains it as well).
std::pair<double, double> fit_window(LogSystem& system, const CalibrationMeasurement& m, const Run& run,
                                     const TransferCost& base, std::optional<Algorithm> algorithm) {
  const std::vector<LinkKind>& classes = system.link_classes();
  double saa = 0, sab = 0, sbb = 0, say = 0, sby = 0, d_max = m.measured_us[run.first];
  for (std::size_t i = run.first; i <= run.last; ++i) {
    const Bytes size{m.sizes_bytes[i]};
    const double t1 = system.simulate(size, base, algorithm).time.us();
    const double t2 = system.simulate(size, slowed(base, classes, 2, 0), algorithm).time.us();
    const double v = t2 - t1;
    const double measured = m.measured_us[i];
    const double a = 1 / measured, b = v / measured, y = 1 - (t1 - v) / measured;
    saa += a * a, sab += a * b, sbb += b * b, say += a * y, sby += b * y;
    d_max = std::min(d_max, measured);
  }
  double k_min = 1e-9;
  for (const LinkKind c : classes) k_min = std::max(k_min, base.efficiency[static_cast<std::size_t>(c)]);
  const auto k_alone = [&](double d) { return std::clamp((sby - d * sab) / sbb, k_min, kMaxSlowdown); };
  double d = 0;
  const double det = saa * sbb - sab * sab;
  if (run.last > run.first && det > 1e-12 * saa * sbb) d = std::clamp((say * sbb - sby * sab) / det, 0.0, d_max);
  const double k = k_alone(d);
  d = run.last > run.first ? std::clamp((say - k * sab) / saa, 0.0, d_max) : 0.0;
  return {d, k};
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " + ") + name;
  return out;
}

}  // namespace

CalibrationDomain record_domain(const std::vector<NcclTestsLog>& logs, const std::vector<LogSystem*>& systems,
                                Placement placement) {
  CalibrationDomain d;
  std::vector<std::string> gpus;
  std::vector<std::string> devices;
  std::array<std::size_t, 3> widest{};  // per class: the most ranks of a system crossing it
  std::array<std::optional<DomainLinkClass>, 3> links;
  bool sized = false;
  for (std::size_t l = 0; l < logs.size(); ++l) {
    const NcclTestsLog& log = logs[l];
    const std::string gpu = systems[l]->shape().gpu;
    if (!gpu.empty() && std::find(gpus.begin(), gpus.end(), gpu) == gpus.end()) gpus.push_back(gpu);
    for (const std::string& device : log.gpu_names) {
      if (std::find(devices.begin(), devices.end(), device) == devices.end()) devices.push_back(device);
    }
    d.nodes = std::max<std::int64_t>(d.nodes, log.hosts);
    d.ranks = std::max<std::int64_t>(d.ranks, log.ranks);
    const LogSystem& system = *systems[l];
    for (const DomainLinkClass& link : link_classes_of(system.topology())) {
      const auto c = static_cast<std::size_t>(link.kind);
      const auto& crossed = system.link_classes();
      if (std::find(crossed.begin(), crossed.end(), link.kind) == crossed.end() || system.ranks() < widest[c]) continue;
      widest[c] = system.ranks();
      links[c] = link;
    }
    for (const MeasuredPoint& p : measured_points(log, placement)) {
      d.min_size_bytes = sized ? std::min(d.min_size_bytes, p.size.value) : p.size.value;
      d.max_size_bytes = sized ? std::max(d.max_size_bytes, p.size.value) : p.size.value;
      sized = true;
    }
    d.logs.push_back({std::filesystem::path(log.source).filename().string(), log.nccl_version, log.nccl_env});
  }
  d.gpu = joined(gpus);
  d.device = joined(devices);
  for (const auto& link : links) {
    if (link) d.links.push_back(*link);
  }
  return d;
}

std::vector<CalibrationRegime> window_candidates(const Calibration& calibration,
                                                 const std::vector<LogSystem*>& systems) {
  std::vector<CalibrationRegime> out;
  if (calibration.regimes.size() <= kBandwidthRegime) return out;
  const CalibrationRegime& base = calibration.regimes[kBandwidthRegime];
  for (const Run& run : slow_runs(calibration)) {
    LogSystem& system = *systems[run.log];
    const CalibrationMeasurement& m = calibration.measurements[run.log];
    const auto [extra_us, factor] = fit_window(system, m, run, to_cost(base), calibration.algorithm);
    CalibrationRegime regime = base;
    regime.launch_us = std::stod(fmt::format("{:.6g}", base.launch_us + extra_us));
    for (const LinkKind c : system.link_classes()) {
      LinkCalibration& link = regime.links[static_cast<std::size_t>(c)];
      link.efficiency = std::min(1.0, std::stod(fmt::format("{:.6g}", link.efficiency / factor)));
    }
    regime.window = window_of(m, run, window_class(system));
    out.push_back(regime);
  }
  return out;
}

double window_loss(const Calibration& calibration) {
  double sum = 0;
  for (const CalibrationMeasurement& m : calibration.measurements) {
    for (std::size_t i = 0; i < m.sizes_bytes.size(); ++i) {
      if (m.sizes_bytes[i] < kWindowMinBytes) continue;
      const double error = m.predicted_us[i] / m.measured_us[i] - 1;
      sum += error * error;
    }
  }
  return sum;
}

}  // namespace syncsim::calibration_extras
