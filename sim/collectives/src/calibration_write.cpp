// Writing a calibration file, the names of its placements, and the calibration as the runner's model.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// A double-quoted YAML string: safe for specs and paths with any character.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Fitted values and predictions to 6 significant digits: more would only print the fit's noise.
std::string number(double value) {
  return fmt::format("{:.6g}", value);
}

template <class T, class F>
std::string flow_list(const std::vector<T>& values, F&& format) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i == 0 ? "" : ", ") + format(values[i]);
  return out + "]";
}

void write_regime(std::ostream& out, const CalibrationRegime& regime) {
  fmt::print(out, "  - name: {}\n", quoted(regime.name));
  fmt::print(out, "    launch_us: {}\n", number(regime.launch_us));
  fmt::print(out, "    fill_bytes: {}\n", std::llround(regime.fill_bytes));
  if (regime.window) {
    fmt::print(out, "    window: {{min_bytes: {}, max_bytes: {}, link_class: {}}}\n", regime.window->min_size.value,
               regime.window->max_size.value, nccl_class_name(regime.window->link_class));
  }
  fmt::print(out, "    links:\n");
  for (const LinkKind c : kLinkKinds) {
    const LinkCalibration& link = regime.links[static_cast<std::size_t>(c)];
    fmt::print(out, "      {}: {{step_latency_us: {}, efficiency: {}, fitted: {}}}\n", nccl_class_name(c),
               number(link.step_latency_us), number(link.efficiency), link.fitted ? "true" : "false");
  }
}

void write_measurement(std::ostream& out, const CalibrationMeasurement& m) {
  fmt::print(out, "  - file: {}\n", quoted(m.file));
  fmt::print(out, "    collective: {}\n", to_string(m.collective));
  fmt::print(out, "    ranks: {}\n    hosts: {}\n", m.ranks, m.hosts);
  fmt::print(out, "    topology: {}\n", quoted(m.topology));
  fmt::print(out, "    sizes_bytes: {}\n", flow_list(m.sizes_bytes, [](std::int64_t v) { return std::to_string(v); }));
  // Measured times exactly as read; predictions rounded.
  fmt::print(out, "    measured_us: {}\n", flow_list(m.measured_us, [](double v) { return fmt::format("{}", v); }));
  fmt::print(out, "    predicted_us: {}\n", flow_list(m.predicted_us, number));
  const ErrorSummary& e = m.fit_error;
  fmt::print(out, "    fit_error: {{geomean_abs_error: {}, max_abs_error: {}", number(e.geomean_abs_error),
             number(e.max_abs_error));
  if (e.geomean_abs_error_1mib && e.max_abs_error_1mib) {
    fmt::print(out, ", geomean_abs_error_1mib: {}, max_abs_error_1mib: {}", number(*e.geomean_abs_error_1mib),
               number(*e.max_abs_error_1mib));
  }
  fmt::print(out, "}}\n");
}

void write_domain(std::ostream& out, const CalibrationDomain& d) {
  fmt::print(out,
             "# What it was fitted on (docs/calibration.md, \"The domain\"): using it on another GPU, link rate or a\n"
             "# far bigger scale is warned about (an error with --strict-calibration).\n");
  fmt::print(out, "domain:\n  gpu: {}\n  device: {}\n", quoted(d.gpu), quoted(d.device));
  fmt::print(out, "  nodes: {}\n  ranks: {}\n", d.nodes, d.ranks);
  fmt::print(out, "  links:{}\n", d.links.empty() ? " []" : "");
  for (const DomainLinkClass& link : d.links) {
    fmt::print(out, "    - {{class: {}, rate_gb_per_s: {}, count: {}}}\n", nccl_class_name(link.kind),
               number(link.rate_gb_per_s), link.count);
  }
  fmt::print(out, "  sizes_bytes: [{}, {}]\n", d.min_size_bytes, d.max_size_bytes);
  fmt::print(out, "  logs:{}\n", d.logs.empty() ? " []" : "");
  for (const DomainLog& log : d.logs) {
    fmt::print(out, "    - {{file: {}, nccl_version: {}, env: {}}}\n", quoted(log.file), quoted(log.nccl_version),
               flow_list(log.env, quoted));
  }
}

}  // namespace

std::string describe(const BoundHit& hit) {
  return fmt::format(
      "calibration parameter {} = {} is on its {} bound {} (the fit wanted to go beyond it: the "
      "model or the topology spec is off there)",
      hit.parameter, number(hit.value), hit.upper ? "upper" : "lower", number(hit.bound));
}

std::string_view to_string(Placement placement) {
  switch (placement) {
    case Placement::out_of_place:
      return "out_of_place";
    case Placement::in_place:
      return "in_place";
    case Placement::min:
      return "min";
  }
  return "?";
}

Placement parse_placement(std::string_view text) {
  if (text == "out_of_place" || text == "out-of-place") return Placement::out_of_place;
  if (text == "in_place" || text == "in-place") return Placement::in_place;
  if (text == "min") return Placement::min;
  throw InputError(fmt::format("unknown placement '{}': expected out_of_place, in_place or min", text));
}

TransferCost to_cost(const CalibrationRegime& regime) {
  TransferCost cost;
  std::array<SimTime, 3> steps{};
  for (std::size_t c = 0; c < 3; ++c) {
    steps[c] = SimTime::from_us(regime.links[c].step_latency_us);
    cost.efficiency[c] = regime.links[c].efficiency;
  }
  cost.step_latency = steps;
  cost.launch = SimTime::from_us(regime.launch_us);
  cost.fill = Bytes{static_cast<std::int64_t>(std::llround(regime.fill_bytes))};
  return cost;
}

CalibratedModel to_model(const Calibration& calibration) {
  CalibratedModel model;
  for (const CalibrationRegime& regime : calibration.regimes) {
    model.regime_names.push_back(regime.name);
    model.regimes.push_back(to_cost(regime));
    model.windows.push_back(regime.window);
  }
  // No window: the runner need not find the classes a collective crosses.
  if (std::none_of(model.windows.begin(), model.windows.end(), [](const auto& w) { return w.has_value(); })) {
    model.windows.clear();
  }
  return model;
}

void write_calibration(std::ostream& out, const Calibration& calibration) {
  fmt::print(out,
             "# syncsim calibration (syncsim calibrate; docs/calibration.md). Per regime: a launch overhead per\n"
             "# collective, a fill size (smaller collectives cost what one of that size costs: NCCL's channel\n"
             "# ramp) and, per link class, a step latency and an efficiency (the fraction of the route's bottleneck\n"
             "# rate a transfer gets, at most 1). Each collective is simulated in every regime; the fastest wins.\n"
             "# `fitted: false` marks a link class no measurement exercised (it keeps NCCL's default).\n");
  fmt::print(out, "format_version: {}\n", calibration.format_version);
  fmt::print(out, "topology: {}\n", quoted(calibration.topology));
  fmt::print(out, "placement: {}\n", to_string(calibration.placement));
  if (calibration.algorithm) fmt::print(out, "algorithm: {}\n", to_string(*calibration.algorithm));
  fmt::print(out, "regimes:\n");
  for (const CalibrationRegime& regime : calibration.regimes) write_regime(out, regime);
  if (!calibration.on_bound.empty()) {
    fmt::print(out,
               "# Fitted parameters on a bound of their physical range: the fit wanted to go further, so the model\n"
               "# or the topology spec is off there (docs/calibration.md, \"Bounds\").\n");
    fmt::print(out, "on_bound:\n");
  }
  for (const BoundHit& hit : calibration.on_bound) {
    fmt::print(out, "  - {{parameter: {}, value: {}, bound: {}, side: {}}}\n", quoted(hit.parameter), hit.value,
               hit.bound, hit.upper ? "upper" : "lower");
  }
  if (calibration.domain) write_domain(out, *calibration.domain);
  fmt::print(out, "# The measurements fitted, with the fit's prediction and its relative error (a fraction).\n");
  if (calibration.measurements.empty())
    fmt::print(out, "measurements: []\n");
  else
    fmt::print(out, "measurements:\n");
  for (const CalibrationMeasurement& m : calibration.measurements) write_measurement(out, m);
}

}  // namespace syncsim
