// `syncsim calibrate`: fit a calibration (launch, fill, latency and efficiency per link class, two regimes) to
// nccl-tests logs and NCCL Inspector logs (a job's own collectives, aggregated per collective and size); a warning on
// stderr for each fitted parameter on a bound of its physical range.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "calibration_check.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "percent_text.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/validation/calibration_fit.hpp"
#include "syncsim/validation/inspector_job.hpp"
#include "syncsim/validation/log_system.hpp"

namespace syncsim::app {

namespace {

struct CalibrateOptions {
  std::vector<std::string> logs;
  std::vector<std::string> inspector;
  std::string topology;
  std::string output;
  std::string placement = "out_of_place";
  std::string algo = "auto";
};

// `nccl_tests_logs`: the measurements before it are nccl-tests logs, those from it on the tables of Inspector logs,
// several per file, so those rows name their collective and communicator shape too.
void print_calibration_summary(const Calibration& calibration, const FitStats& stats, double seconds,
                               std::size_t nccl_tests_logs) {
  fmt::print(std::cout, "# syncsim calibrate: topology {}, {} times, algorithm {}\n", calibration.topology,
             to_string(calibration.placement),
             calibration.algorithm ? to_string(*calibration.algorithm) : std::string_view("auto"));
  fmt::print(std::cout, "# {} Gauss-Newton iterations, {} simulations, {:.2f} s\n", stats.iterations, stats.simulations,
             seconds);
  fmt::print(std::cout, "{:<10} {:>10} {:>10}  {:>26}  {:>26}  {:>26}\n", "regime", "launch_us", "fill_B",
             "nvlink lat_us / eff", "pci lat_us / eff", "net lat_us / eff");
  for (const CalibrationRegime& regime : calibration.regimes) {
    fmt::print(std::cout, "{:<10} {:>10.4g} {:>10.0f}", regime.name, regime.launch_us, regime.fill_bytes);
    for (const LinkCalibration& link : regime.links) {
      const std::string cell =
          fmt::format("{:.4g} / {:.4g}{}", link.step_latency_us, link.efficiency, link.fitted ? "" : " (default)");
      fmt::print(std::cout, "  {:>26}", cell);
    }
    fmt::print(std::cout, "\n");
  }
  for (const CalibrationRegime& regime : calibration.regimes) {
    if (!regime.window) continue;
    fmt::print(std::cout, "# {}: sizes {} .. {} B of collectives crossing {} (in place of the regimes above)\n",
               regime.name, regime.window->min_size.value, regime.window->max_size.value,
               nccl_class_name(regime.window->link_class));
  }
  fmt::print(std::cout, "{:<48} {:>6} {:>12} {:>10} {:>12} {:>10}\n", "log", "points", "geomean|e|", "max|e|",
             "geo>=1MiB", "max>=1MiB");
  for (std::size_t i = 0; i < calibration.measurements.size(); ++i) {
    const CalibrationMeasurement& m = calibration.measurements[i];
    const ErrorSummary& e = m.fit_error;
    const std::string label =
        i < nccl_tests_logs ? m.file
                            : fmt::format("{} {} {}x{}", m.file, to_string(m.collective), m.hosts, m.ranks / m.hosts);
    fmt::print(std::cout, "{:<48} {:>6} {:>12} {:>10} {:>12} {:>10}\n", label, e.points, percent(e.geomean_abs_error),
               percent(e.max_abs_error), e.geomean_abs_error_1mib ? percent(*e.geomean_abs_error_1mib) : "-",
               e.max_abs_error_1mib ? percent(*e.max_abs_error_1mib) : "-");
  }
}

// The flags, checked without reading a log (the cli_args fuzz target runs this alone).
FitOptions check_calibrate_flags(const CalibrateOptions& options) {
  if (options.logs.empty() && options.inspector.empty()) {
    throw InputError("required: measurements to fit, nccl-tests logs or NCCL Inspector logs (--inspector)",
                     SourceLocation{"--nccl-tests"});
  }
  if (options.topology.empty()) {
    throw InputError(
        "required: the system the logs were measured on, e.g. dgx:nodes=1,gpus=8,nvlink_bw=300GB/s (a log records "
        "rank and host counts, not link speeds; see docs/calibration.md)",
        SourceLocation{"--topology"});
  }
  FitOptions fit;
  try {
    fit.placement = parse_placement(options.placement);
  } catch (const InputError& e) {
    throw e.at(SourceLocation{"--placement"});
  }
  if (options.algo != "auto") {
    try {
      fit.algorithm = parse_algorithm(options.algo);
    } catch (const InputError& e) {
      throw e.at(SourceLocation{"--algo"});
    }
  }
  return fit;
}

int run_calibrate(const CalibrateOptions& options) {
  FitOptions fit = check_calibrate_flags(options);
  check_output_file(options.output, "-o");  // before the fit, which may take minutes
  std::vector<NcclTestsLog> logs;
  for (const std::string& path : options.logs) logs.push_back(read_nccl_tests_log(path));
  std::vector<std::string> inspector_warnings;
  if (!options.inspector.empty()) {
    const InspectorJob job = read_inspector_job(options.inspector);
    check_communicators_fit(job, options.topology, "--topology");
    for (NcclTestsLog& log : inspector_nccl_tests_logs(job)) logs.push_back(std::move(log));
    inspector_warnings = job.warnings;
  }
  if (::isatty(STDERR_FILENO)) fit.progress = [](const std::string& line) { std::cerr << line << '\n'; };

  const auto start = std::chrono::steady_clock::now();
  FitStats stats;
  const Calibration calibration = fit_calibration(logs, options.topology, fit, &stats);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_file_atomically(options.output, [&](std::ostream& out) { write_calibration(out, calibration); });

  for (const std::string& warning : inspector_warnings) std::cerr << "syncsim: warning: " << warning << '\n';
  for (const NcclTestsLog& log : logs) {
    for (const std::string& warning : log_warnings(log)) std::cerr << "syncsim: warning: " << warning << '\n';
  }
  for (std::size_t l = 0; l < logs.size() && l < calibration.measurements.size(); ++l) {
    print_calibration_lines(implausible_time_warnings(
        logs[l].source, measured_points(logs[l], fit.placement), calibration.measurements[l].predicted_us, "fitted",
        "the fit weighs it as any other point: fix its unit or remove it"));
  }
  for (const BoundHit& hit : calibration.on_bound) std::cerr << "syncsim: warning: " << describe(hit) << '\n';
  print_calibration_lines(low_efficiency_warnings(calibration));
  print_calibration_summary(calibration, stats, seconds, options.logs.size());
  fmt::print(std::cout, "# wrote {}\n", options.output);
  return 0;
}

}  // namespace

Action add_calibrate_command(CLI::App& app, FlagCheck* check) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command =
      app.add_subcommand("calibrate", "Fit per-link-class latencies and efficiencies (two regimes) to nccl-tests logs");
  set_examples(command,
               {"syncsim calibrate --nccl-tests all_reduce_perf.log --topology dgx:nodes=1,gpus=8 -o cal.yaml",
                "syncsim calibrate --inspector nccl-inspector-1234/*.log --topology dgx:nodes=2,gpus=8 -o cal.yaml"});
  command->add_option("--nccl-tests", options->logs, "nccl-tests logs (all_reduce_perf ..., syncsim-bench-*)")
      ->expected(1, -1);
  command
      ->add_option("--inspector", options->inspector,
                   "NCCL Inspector logs (one JSON record per line) of a job: its collectives' median times per "
                   "collective, size and communicator shape are fitted with the nccl-tests logs")
      ->expected(1, -1);
  required_in_help(command->add_option("--topology,-t", options->topology,
                                       "The measured system's topology family, scaled to each log's ranks and hosts "
                                       "(dgx: nodes and gpus; ring, mesh, switch, fattree: n)"));
  command->add_option("-o,--output", options->output, "Calibration file to write (YAML)")->required();
  command
      ->add_option("--placement", options->placement,
                   "Measured time: out_of_place | in_place | min (the faster of the two, for noisy logs)")
      ->capture_default_str();
  command
      ->add_option("--algo", options->algo,
                   "The algorithm the logs ran, when one was forced (NCCL_ALGO=Tree: tree); auto: NCCL's choice")
      ->capture_default_str();
  if (check) *check = [options] { (void)check_calibrate_flags(*options); };
  return [options]() { return run_calibrate(*options); };
}

}  // namespace syncsim::app
