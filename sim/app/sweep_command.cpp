// `syncsim sweep SCENARIO.yaml --vary key=v1,v2 ...`: many runs of one scenario, one row per point (docs/planner.md).
// The sweep itself is syncsim::planner::run_sweep (sweep.hpp); this file is the command line around it.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <thread>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "report_error.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/mpi_world.hpp"
#include "syncsim/planner/sweep.hpp"
#include "syncsim/planner/sweep_runner.hpp"

namespace syncsim::app {

namespace {

struct SweepCommandOptions {
  std::string scenario;
  std::vector<std::string> vary;
  bool zip = false;
  std::string output;
  unsigned threads = 0;
};

unsigned default_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

int sweep_on_this_rank(const SweepCommandOptions& options, const planner::MpiWorld& world) {
  if (options.vary.empty()) throw InputError("give at least one --vary key.path=v1,v2,...", SourceLocation{"--vary"});
  planner::SweepOptions o;
  o.scenario = options.scenario;
  std::vector<planner::VaryAxis> axes;
  for (const std::string& v : options.vary) axes.push_back(planner::parse_vary(v));
  for (const planner::VaryAxis& a : axes) o.varied_keys.push_back(a.key);
  o.points = planner::expand_points(axes, options.zip);
  o.threads = options.threads == 0 ? default_threads() : options.threads;
  std::optional<planner::TableFormat> format;
  if (!options.output.empty()) {
    o.output = options.output;
    format = planner::table_format_of(*o.output);
  }
  // Every point's overrides are checked before the first simulation, so a typo costs no time.
  planner::check_overrides(o.scenario, o.points);
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

Action add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "sweep", "Run a scenario over a grid of overrides (threads; MPI ranks under mpirun); one CSV/JSON row per point");
  command->add_option("scenario", options->scenario, "Scenario file (YAML)")->required();
  command->add_option("--vary", options->vary,
                      "key.path=v1,v2,... (repeatable; ';' separates values that contain commas)");
  command->add_flag("--zip", options->zip, "Pair the --vary lists element by element instead of all combinations");
  command->add_option("-o,--output", options->output,
                      "results.csv or results.json; points already in it are skipped (resume). Default: CSV on stdout");
  command->add_option("-j,--jobs", options->threads, "Threads per process (default: all cores)");
  return [options]() { return sweep(*options); };
}

}  // namespace syncsim::app
