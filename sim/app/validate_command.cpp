// `syncsim validate`: simulate a measured log's system and sizes; print predicted vs measured with the errors. An
// NCCL Inspector log gives one table per collective and communicator shape (inspector_job.hpp).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "calibration_check.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "percent_text.hpp"
#include "syncsim/collectives/calibration.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/inspector_job.hpp"
#include "syncsim/validation/log_system.hpp"

namespace syncsim::app {

namespace {

struct ValidateOptions {
  std::string calibration;
  std::string log;
  std::vector<std::string> inspector;
  std::string topology;
  std::string placement;  // empty: the calibration's, else out_of_place
  std::string algo;       // empty: the calibration's, else auto
  bool json = false;
  bool strict_calibration = false;
};

struct Row {
  MeasuredPoint point;
  CollectiveOutcome outcome;
  double predicted_us = 0;
  double rel_error = 0;
  std::optional<ErrorBand> band;  // with a calibration (calibration.hpp's error_band)
};

std::string algorithm_choice(const CollectiveOutcome& outcome, const CalibratedModel* model) {
  std::string text(to_string(outcome.algorithm));
  if (outcome.protocol) text += fmt::format("/{}", to_string(*outcome.protocol));
  text += fmt::format(" x{}", outcome.channels);
  if (model && outcome.regime) text += fmt::format(" {}", model->regime_names[*outcome.regime]);
  return text;
}

bool in_band(const Row& row) {
  const double t = row.point.time_us;
  return row.band && t >= row.predicted_us * (1 + row.band->low) * (1 - 1e-5) &&
         t <= row.predicted_us * (1 + row.band->high) * (1 + 1e-5);
}

std::string band_text(const Row& row) {
  if (!row.band) return "";
  return fmt::format("  band {:.2f}..{:.2f}{}", row.predicted_us * (1 + row.band->low),
                     row.predicted_us * (1 + row.band->high), in_band(row) ? "" : " (outside)");
}

double busbw(const LogSystem& system, Bytes size, double time_us) {
  return bus_bandwidth(system.op(), system.ranks(), size, SimTime::from_us(time_us)).busbw.gb_per_s();
}

nlohmann::ordered_json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json to_json(const ValidateOptions& options, const NcclTestsLog& log, const LogSystem& system,
                               Placement placement, const CalibratedModel* model, const std::vector<Row>& rows,
                               const ErrorSummary& summary) {
  nlohmann::ordered_json out;
  out["log"] = log.source;
  out["collective"] = to_string(log.collective);
  out["ranks"] = log.ranks;
  out["hosts"] = log.hosts;
  out["topology"] = system.topology_spec();
  out["model"] = model ? "calibrated" : "nccl";
  out["calibration"] = model ? nlohmann::ordered_json(options.calibration) : nlohmann::ordered_json(nullptr);
  out["placement"] = to_string(placement);
  auto& json_rows = out["rows"] = nlohmann::ordered_json::array();
  for (const Row& row : rows) {
    nlohmann::ordered_json r = {{"size_bytes", row.point.size.value},
                                {"measured_us", row.point.time_us},
                                {"predicted_us", row.predicted_us},
                                {"rel_error", row.rel_error},
                                {"measured_busbw_gbps", busbw(system, row.point.size, row.point.time_us)},
                                {"predicted_busbw_gbps", busbw(system, row.point.size, row.predicted_us)},
                                {"algorithm", to_string(row.outcome.algorithm)},
                                {"channels", row.outcome.channels}};
    r["protocol"] = row.outcome.protocol ? nlohmann::ordered_json(to_string(*row.outcome.protocol)) : nullptr;
    r["regime"] = model && row.outcome.regime ? nlohmann::ordered_json(model->regime_names[*row.outcome.regime])
                                              : nlohmann::ordered_json(nullptr);
    if (row.band) {
      r["band_low_us"] = row.predicted_us * (1 + row.band->low);
      r["band_high_us"] = row.predicted_us * (1 + row.band->high);
      r["in_band"] = in_band(row);
    }
    r["line"] = row.point.line;
    json_rows.push_back(std::move(r));
  }
  out["summary"] = {{"points", summary.points},
                    {"geomean_abs_error", summary.geomean_abs_error},
                    {"max_abs_error", summary.max_abs_error},
                    {"points_1mib", summary.points_1mib},
                    {"geomean_abs_error_1mib", optional_json(summary.geomean_abs_error_1mib)},
                    {"max_abs_error_1mib", optional_json(summary.max_abs_error_1mib)}};
  return out;
}

void print_table(const ValidateOptions& options, const NcclTestsLog& log, const LogSystem& system, Placement placement,
                 const CalibratedModel* model, const std::vector<Row>& rows, const ErrorSummary& summary) {
  fmt::print(std::cout, "# syncsim validate: {} ({}, {} ranks on {} host{})\n", log.source, to_string(log.collective),
             log.ranks, log.hosts, log.hosts == 1 ? "" : "s");
  fmt::print(std::cout, "# topology {}\n", system.topology_spec());
  if (model) {
    fmt::print(std::cout, "# model: calibration {}\n", options.calibration);
  } else {
    fmt::print(std::cout, "# model: nccl (NCCL's latencies and protocols, the topology's link rates)\n");
  }
  if (!options.inspector.empty()) fmt::print(std::cout, "# {}\n", log.parameters);
  fmt::print(std::cout, "# measured: {} time; rel_error = (predicted - measured) / measured; GB = 1e9 bytes\n",
             to_string(placement));
  fmt::print(std::cout, "#{:>11} {:>12} {:>12} {:>11} {:>11} {:>9}  {}\n", "size", "measured", "predicted",
             "meas busbw", "pred busbw", "error", "algorithm");
  fmt::print(std::cout, "#{:>11} {:>12} {:>12} {:>11} {:>11} {:>9}\n", "(B)", "(us)", "(us)", "(GB/s)", "(GB/s)", "");
  for (const Row& row : rows) {
    fmt::print(std::cout, "{:>12} {:>12.2f} {:>12.2f} {:>11.2f} {:>11.2f} {:>9}  {}{}\n", row.point.size.value,
               row.point.time_us, row.predicted_us, busbw(system, row.point.size, row.point.time_us),
               busbw(system, row.point.size, row.predicted_us), fmt::format("{:+.1f}%", 100 * row.rel_error),
               algorithm_choice(row.outcome, model), band_text(row));
  }
  fmt::print(std::cout, "# geomean |error|, all sizes ({}): {}\n", summary.points, percent(summary.geomean_abs_error));
  fmt::print(std::cout, "# max |error|, all sizes ({}): {}\n", summary.points, percent(summary.max_abs_error));
  if (summary.geomean_abs_error_1mib && summary.max_abs_error_1mib) {
    fmt::print(std::cout, "# geomean |error|, sizes >= 1 MiB ({}): {}\n", summary.points_1mib,
               percent(*summary.geomean_abs_error_1mib));
    fmt::print(std::cout, "# max |error|, sizes >= 1 MiB ({}): {}\n", summary.points_1mib,
               percent(*summary.max_abs_error_1mib));
  } else {
    fmt::print(std::cout, "# sizes >= 1 MiB: none in this log\n");
  }
  if (model) {
    const auto inside = std::count_if(rows.begin(), rows.end(), [](const Row& row) { return in_band(row); });
    fmt::print(std::cout, "# measured inside the error band: {} of {} sizes\n", inside, rows.size());
  }
}

// What every log of one validate run shares.
struct ValidateSetting {
  const Calibration* calibration = nullptr;
  std::string family;
  Placement placement = Placement::out_of_place;
  std::optional<Algorithm> algorithm;
};

// One log's table (printed) or JSON object (returned, with --json).
std::optional<nlohmann::ordered_json> validate_log(const ValidateOptions& options, const ValidateSetting& setting,
                                                   const NcclTestsLog& log, bool first_log) {
  const Calibration* calibration = setting.calibration;
  const Placement placement = setting.placement;
  const std::optional<Algorithm>& algorithm = setting.algorithm;
  const std::string& family = setting.family;
  const std::string source = options.topology.empty() ? options.calibration + ": topology" : "--topology";
  LogSystem system(log, family, source);
  const std::vector<std::string> domain_lines =
      calibration ? check_calibration_domain(*calibration, options.calibration, system.shape(),
                                             options.strict_calibration, SourceLocation{"--strict-calibration"})
                  : std::vector<std::string>{};
  const std::optional<CalibratedModel> model =
      calibration ? std::optional<CalibratedModel>(to_model(*calibration)) : std::nullopt;
  const CalibratedModel* model_ptr = model ? &*model : nullptr;

  std::vector<Row> rows;
  std::vector<std::int64_t> sizes;
  std::vector<double> errors;
  for (const MeasuredPoint& point : measured_points(log, placement)) {
    Row row{point, system.simulate(point.size, model_ptr, algorithm), 0, 0, std::nullopt};
    row.predicted_us = row.outcome.time.us();
    row.rel_error = relative_error(row.predicted_us, point.time_us);
    if (calibration) row.band = error_band(*calibration, point.size);
    sizes.push_back(point.size.value);
    errors.push_back(row.rel_error);
    rows.push_back(row);
  }
  const ErrorSummary summary = summarize_errors(sizes, errors);
  for (const std::string& warning : log_warnings(log)) std::cerr << "syncsim: warning: " << warning << '\n';
  for (const Row& row : rows) {
    print_calibration_lines(implausible_time_warnings(log.source, {row.point}, {row.predicted_us}, "simulated",
                                                      "its error counts in the summary"));
  }
  if (calibration) {
    for (const BoundHit& hit : first_log ? calibration->on_bound : std::vector<BoundHit>{})
      std::cerr << "syncsim: warning: " << describe(hit) << '\n';
    print_calibration_lines(domain_lines);
  }
  if (options.json) return to_json(options, log, system, placement, model_ptr, rows, summary);
  print_table(options, log, system, placement, model_ptr, rows, summary);
  return std::nullopt;
}

int run_validate(const ValidateOptions& options) {
  std::optional<Calibration> calibration;
  if (!options.calibration.empty()) calibration = read_calibration(options.calibration);
  const std::string family = !options.topology.empty() ? options.topology
                             : calibration             ? calibration->topology
                                                       : std::string();
  if (family.empty()) {
    throw InputError(
        "required without --calibration: the system the log was measured on, e.g. "
        "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s",
        SourceLocation{"--topology"});
  }
  Placement placement = calibration ? calibration->placement : Placement::out_of_place;
  if (!options.placement.empty()) {
    try {
      placement = parse_placement(options.placement);
    } catch (const InputError& e) {
      throw e.at(SourceLocation{"--placement"});
    }
  }
  std::optional<Algorithm> algorithm = calibration ? calibration->algorithm : std::nullopt;
  if (!options.algo.empty()) {
    try {
      algorithm = options.algo == "auto" ? std::nullopt : std::optional<Algorithm>(parse_algorithm(options.algo));
    } catch (const InputError& e) {
      throw e.at(SourceLocation{"--algo"});
    }
  }
  if (options.log.empty() && options.inspector.empty()) {
    throw InputError("required: the measured log, an nccl-tests log or NCCL Inspector logs (--inspector)",
                     SourceLocation{"--nccl-tests"});
  }
  std::vector<NcclTestsLog> logs;
  if (!options.log.empty()) logs.push_back(read_nccl_tests_log(options.log));
  if (!options.inspector.empty()) {
    const InspectorJob job = read_inspector_job(options.inspector);
    if (!options.topology.empty()) check_communicators_fit(job, options.topology, "--topology");
    for (const std::string& warning : job.warnings) std::cerr << "syncsim: warning: " << warning << '\n';
    logs = inspector_nccl_tests_logs(job);
  }
  const ValidateSetting setting{calibration ? &*calibration : nullptr, family, placement, algorithm};
  nlohmann::ordered_json tables = nlohmann::ordered_json::array();
  for (std::size_t l = 0; l < logs.size(); ++l) {
    if (l > 0 && !options.json) std::cout << '\n';
    std::optional<nlohmann::ordered_json> table = validate_log(options, setting, logs[l], l == 0);
    if (table) tables.push_back(std::move(*table));
  }
  if (options.json) std::cout << (options.inspector.empty() ? tables.at(0) : tables).dump(2) << '\n';
  return 0;
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate", "Simulate a measured nccl-tests log's system and sizes; print predicted vs measured and the errors");
  set_examples(command, {"syncsim validate --calibration cal.yaml --nccl-tests all_reduce_perf.log",
                         "syncsim validate --nccl-tests tests/data/nccl-tests/h100-1node-8gpu-nvswitch.log --topology "
                         "dgx:nodes=1,gpus=8"});
  command->add_option("--calibration,-c", options->calibration,
                      "Calibration from `syncsim calibrate` (default: NCCL's model with the topology's link rates)");
  auto* nccl_tests = command->add_option("--nccl-tests", options->log, "The measured nccl-tests log");
  command
      ->add_option("--inspector", options->inspector,
                   "NCCL Inspector logs of a job (one JSON record per line): a table per collective and communicator "
                   "shape, each size's median time")
      ->expected(1, -1)
      ->excludes(nccl_tests);
  command->add_option("--topology,-t", options->topology,
                      "Topology family, scaled to the log's ranks and hosts (default: the calibration's)");
  command->add_option("--placement", options->placement,
                      "Measured time: out_of_place | in_place | min (default: the calibration's, else out_of_place)");
  command->add_option("--algo", options->algo,
                      "ring | tree | ... | auto (default: the calibration's algorithm, else auto)");
  command->add_flag("--json", options->json, "Print one JSON object: rows and summary");
  command->add_flag("--strict-calibration", options->strict_calibration,
                    "A calibration fitted on another system (GPU, link rate, scale) is an error, not a warning");
  return [options]() { return run_validate(*options); };
}

}  // namespace syncsim::app
