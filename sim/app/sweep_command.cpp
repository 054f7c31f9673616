// `syncsim sweep SCENARIO.yaml --vary key=v1,v2 ...`: many runs of one scenario, one row per point (docs/planner.md).
// The sweep itself is syncsim::planner::run_sweep (sweep.hpp); this file is the command line around it.
#include <unistd.h>

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <thread>

#include "calibration_check.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "report_error.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/planner/mpi_world.hpp"
#include "syncsim/planner/sweep.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::app {

namespace {

struct SweepCommandOptions {
  std::string scenario;
  std::vector<std::string> vary;
  std::vector<std::string> sets;  // --set key.path=value: every point's first overrides
  bool zip = false;
  std::string output;
  std::optional<std::int64_t> threads;  // absent: all cores
  bool strict_calibration = false;
};

// The flags, checked without reading the scenario (the cli_args fuzz target runs this alone): the axes, their
// point count (count_points refuses more than a million before anything is expanded), the output's format, -j.
std::vector<planner::VaryAxis> check_sweep_flags(const SweepCommandOptions& options) {
  if (options.vary.empty()) throw InputError("give at least one --vary key.path=v1,v2,...", SourceLocation{"--vary"});
  std::vector<planner::VaryAxis> axes;
  for (const std::string& v : options.vary) axes.push_back(planner::parse_vary(v));
  (void)planner::count_points(axes, options.zip);
  if (!options.output.empty()) (void)planner::table_format_of(options.output);
  (void)thread_count(options.threads);
  return axes;
}

int sweep_on_this_rank(const SweepCommandOptions& options, const planner::MpiWorld& world) {
  const std::vector<planner::VaryAxis> axes = check_sweep_flags(options);
  planner::SweepOptions o;
  o.scenario = options.scenario;
  for (const planner::VaryAxis& a : axes) o.varied_keys.push_back(a.key);
  o.points = planner::expand_points(axes, options.zip);
  // As `run --set`: applied to every point, before its --vary values (which win where both name a key). Checked
  // together first, so that an error names --set rather than --vary.
  if (!options.sets.empty()) (void)load_scenario(o.scenario, options.sets);
  for (planner::SweepPoint& p : o.points)
    p.overrides.insert(p.overrides.begin(), options.sets.begin(), options.sets.end());
  o.threads = thread_count(options.threads);
  std::optional<planner::TableFormat> format;
  if (!options.output.empty()) {
    check_output_file(options.output, "-o");
    o.output = options.output;
    format = planner::table_format_of(*o.output);
    // What the rows belong to, kept in the output: resuming refuses a file from an edited scenario or other keys.
    // The --set overrides count as the scenario's: rows run with other ones are another sweep's.
    std::vector<std::string> keys = o.varied_keys;
    for (const std::string& set : options.sets) keys.push_back("--set " + set);
    o.fingerprint = planner::sweep_fingerprint(o.scenario, keys);
  }
  // Every point's overrides are checked before the first simulation, so a typo costs no time.
  planner::check_overrides(o.scenario, o.points);
  // Each point's system against the scenario's calibration; every rank checks (a strict error ends them all alike),
  // rank 0 prints.
  const std::vector<std::string> calibration_lines =
      points_calibration_lines(o.scenario, o.points, options.strict_calibration);
  if (world.rank() == 0) print_calibration_lines(calibration_lines);
  if (isatty(STDERR_FILENO) == 1) o.progress = &std::cerr;
  if (o.output) {
    o.save = [&](const planner::SweepTable& table) {
      const std::string text = planner::write_table(table, *format);
      write_file_atomically(*o.output, [&](std::ostream& out) { out << text; });
    };
  }
  const planner::SweepTable table = planner::run_sweep(o, world);
  if (world.rank() != 0) return 0;
  if (o.save) {
    o.save(table);
  } else {
    std::cout << planner::write_csv(table);
  }
  return 0;
}

int sweep(const SweepCommandOptions& options) {
  const planner::MpiWorld world;
  if (world.size() == 1) return sweep_on_this_rank(options, world);
  // Every rank ends here, with the same error if any (run_sweep gathers the points' errors at rank 0 and hands
  // each rank its own). Rank 0 alone reports it, so the user reads it once, and no rank exits before rank 0 has
  // printed: mpirun kills the other ranks as soon as one exits non-zero, which would lose an unprinted message.
  int code = 0;
  try {
    code = sweep_on_this_rank(options, world);
  } catch (const std::exception&) {
    code = world.rank() == 0 ? report_error(std::current_exception()) : 2;
  }
  world.barrier();
  return code;
}

}  // namespace

unsigned thread_count(std::optional<std::int64_t> jobs) {
  if (!jobs) return std::max(1u, std::thread::hardware_concurrency());
  if (*jobs < 1 || *jobs > kMaxThreads) {
    throw InputError(fmt::format("expected 1 to {} threads, got {} (leave -j out for all cores)", kMaxThreads, *jobs),
                     SourceLocation{"-j"});
  }
  return static_cast<unsigned>(*jobs);
}

Action add_sweep_command(CLI::App& app, FlagCheck* check) {
  auto options = std::make_shared<SweepCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "sweep", "Run a scenario over a grid of overrides (threads; MPI ranks under mpirun); one CSV/JSON row per point");
  set_examples(command, {"syncsim sweep examples/bert-large-two-pods.yaml --vary cluster.workers=8,16,32 -o sweep.csv",
                         "syncsim sweep examples/resnet50-dgx-8gpu.yaml --vary training.bucket_size=1MB,25MB,100MB "
                         "--vary model.batch_per_gpu=32,64",
                         "syncsim sweep examples/resnet50-dgx-8gpu.yaml --set training.iterations=3 "
                         "--vary cluster.workers=4,8"});
  command->add_option("scenario", options->scenario, "Scenario file (YAML)")->required();
  required_in_help(command->add_option("--vary", options->vary,
                                       "key.path=v1,v2,... (repeatable; ';' separates values that contain commas)"));
  command->add_option("--set", options->sets,
                      "Override a scenario value for every point, before --vary: key.path=value (repeatable)");
  command->add_flag("--zip", options->zip, "Pair the --vary lists element by element instead of all combinations");
  command->add_option("-o,--output", options->output,
                      "results.csv or results.json; points already in it are skipped (resume). Default: CSV on stdout");
  command->add_option("-j,--jobs", options->threads, "Threads per process, 1 to 1024 (default: all cores)");
  command->add_flag("--strict-calibration", options->strict_calibration,
                    "A point whose GPU or network differs from what the scenario's calibration was fitted on is an "
                    "error, not a warning");
  if (check) *check = [options] { (void)check_sweep_flags(*options); };
  return [options]() { return sweep(*options); };
}

}  // namespace syncsim::app
