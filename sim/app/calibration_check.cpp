#include "calibration_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include "syncsim/run/gpu_node.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::app {

std::vector<std::string> check_calibration_domain(const Calibration& calibration, const std::string& path,
                                                  const SystemShape& target, bool strict,
                                                  const SourceLocation& strict_at) {
  if (!calibration.domain) {
    const std::string unknown = fmt::format(
        "calibration {} records no domain (written before syncsim recorded one): whether it holds for this system "
        "is unknown; calibrate again to record it",
        path);
    if (strict) throw InputError(unknown, strict_at);
    return {"warning: " + unknown};
  }
  const std::vector<std::string> differences = compare_domain(*calibration.domain, target);
  if (differences.empty()) return {};
  if (strict) {
    throw InputError(fmt::format("calibration {} was fitted on another system: {}{}", path, differences.front(),
                                 differences.size() > 1 ? fmt::format(" (and {} more)", differences.size() - 1) : ""),
                     strict_at);
  }
  std::vector<std::string> lines;
  for (const std::string& difference : differences) {
    lines.push_back(fmt::format("warning: calibration {}: {}", path, difference));
  }
  lines.push_back(fmt::format("note: calibration {}: {}", path, describe_application(*calibration.domain, target)));
  return lines;
}

std::vector<std::string> implausible_time_warnings(const std::string& log, const std::vector<MeasuredPoint>& points,
                                                   const std::vector<double>& simulated_us, const std::string& model,
                                                   const std::string& consequence) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < points.size() && i < simulated_us.size(); ++i) {
    const MeasuredPoint& point = points[i];
    const double speedup = simulated_us[i] / point.time_us;
    if (!(speedup > kImplausibleSpeedup)) continue;
    lines.push_back(fmt::format(
        "warning: {}:{}: time: the measured {:g} us for {} bytes is {:.0f} times below the {} {:g} us: not a "
        "plausible measurement of this collective (a unit or copying mistake?); {}",
        log, point.line, point.time_us, point.size.value, speedup, model, simulated_us[i], consequence));
  }
  return lines;
}

std::vector<std::string> low_efficiency_warnings(const Calibration& calibration) {
  std::vector<std::string> out;
  for (const CalibrationRegime& regime : calibration.regimes) {
    // `latency` plays LL (a quarter of the link is its design); a window is slower than `bandwidth` by design.
    if (regime.name == "latency" || regime.window) continue;
    for (const LinkKind c : kLinkKinds) {
      const LinkCalibration& link = regime.links[static_cast<std::size_t>(c)];
      if (!link.fitted || link.efficiency >= kLowEfficiency) continue;
      const char* causes = c == LinkKind::network
                               ? "the spec's NIC rate or rails above what each GPU gets, GPUDirect RDMA off (a copy "
                                 "through host memory), NICs behind a shared PCIe switch, an untuned fabric (RoCE "
                                 "without PFC/ECN)"
                           : c == LinkKind::pcie ? "a path through host memory or across CPU sockets (no P2P), a "
                                                   "PCIe generation or width below the spec's"
                                                 : "fewer NVLinks than the spec's rate, P2P over NVLink disabled";
      out.push_back(
          fmt::format("warning: calibration parameter {}.{}.efficiency = {:.4g} is under {:g} of the link "
                      "rate the spec gives; likely causes: {}",
                      regime.name, nccl_class_name(c), link.efficiency, kLowEfficiency, causes));
    }
  }
  return out;
}

void print_calibration_lines(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) std::cerr << "syncsim: " << line << '\n';
}

namespace {

bool uses_calibration(const Scenario& scenario) {
  return scenario.calibration && scenario.training.latency_model.value == LatencySource::calibrated;
}

// Whether an override can change what picks the latency model and its calibration.
bool picks_latency_model(const std::string& o) {
  return o.starts_with("calibration") || o.starts_with("strict_calibration") || o.starts_with("training");
}

}  // namespace

std::vector<std::string> scenario_calibration_lines(const Scenario& scenario, bool strict_flag) {
  if (!uses_calibration(scenario)) return {};
  const Located<std::string>& path = *scenario.calibration;
  const Calibration calibration = [&] {
    try {
      return read_calibration(path.value);
    } catch (const InputError& e) {
      // As run's at_value: an error inside the file stays there; a file that cannot be opened is reported at the
      // scenario key, with the file named.
      if (e.where() && e.where()->line > 0) throw;
      throw path.error(e.where() && !e.where()->source.empty() ? e.where()->source + ": " + e.message() : e.message());
    }
  }();
  const GpuSpec gpu = run::scenario_gpu(scenario);
  const auto topology = run::node_topology(scenario, gpu);
  Router router(*topology);
  const SystemShape target = system_shape(router, topology->gpu_count(), gpu.name);
  const bool strict_key = scenario.strict_calibration && scenario.strict_calibration->value;
  try {
    return check_calibration_domain(calibration, path.value, target, strict_flag || strict_key,
                                    SourceLocation{"--strict-calibration"});
  } catch (const InputError& e) {
    if (strict_flag) throw;
    throw scenario.strict_calibration->error(e.message());
  }
}

void check_scenario_calibration(const Scenario& scenario, bool strict_flag) {
  print_calibration_lines(scenario_calibration_lines(scenario, strict_flag));
}

std::vector<std::string> points_calibration_lines(const std::string& scenario_path,
                                                  const std::vector<planner::SweepPoint>& points, bool strict_flag) {
  // Most plans and sweeps have no calibration: their points are not loaded again for nothing.
  const bool overridden = std::ranges::any_of(
      points, [](const planner::SweepPoint& p) { return std::ranges::any_of(p.overrides, picks_latency_model); });
  if (!overridden && !uses_calibration(load_scenario(scenario_path))) return {};
  std::set<std::string> systems;
  std::set<std::string> seen;
  std::vector<std::string> lines;
  for (const planner::SweepPoint& point : points) {
    // A point's system is its cluster and what picks the latency model: points alike there are checked once.
    std::string system;
    for (const std::string& o : point.overrides) {
      if (o.starts_with("cluster") || picks_latency_model(o)) system += o + '\n';
    }
    if (!systems.insert(system).second) continue;
    std::optional<Scenario> loaded;
    try {
      loaded = load_scenario(scenario_path, point.overrides);
    } catch (const InputError&) {
      continue;  // the point's own error, reported where it runs (with the flag that made it)
    }
    try {
      for (std::string& line : scenario_calibration_lines(*loaded, strict_flag)) {
        if (seen.insert(line).second) lines.push_back(std::move(line));
      }
    } catch (const InputError& e) {
      if (point.labels.empty() || !e.where()) throw;
      throw InputError(fmt::format("{} (point {}: {})", e.message(), point.index, fmt::join(point.labels, ", ")),
                       e.where());
    }
  }
  return lines;
}

}  // namespace syncsim::app
