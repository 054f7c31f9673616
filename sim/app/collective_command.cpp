// `syncsim collective`: simulate one collective over a size sweep and print it as nccl-tests would.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "calibration_check.hpp"
#include "collective_table.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::app {

namespace {

std::string choice(const CollectiveOutcome& outcome, const CalibratedModel* model = nullptr) {
  std::string text = fmt::format("{}", to_string(outcome.algorithm));
  if (outcome.protocol) text += fmt::format("/{}", to_string(*outcome.protocol));
  if (outcome.regime && model) text += fmt::format("/{}", model->regime_names[*outcome.regime]);
  return text + fmt::format(" x{}", outcome.channels);
}

// Which algorithm (and protocol, channels) ran, by size range: the table itself keeps nccl-tests' columns.
void print_choices(const std::vector<CollectiveTableRow>& rows, const CalibratedModel* model) {
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= rows.size(); ++i) {
    if (i < rows.size() && choice(rows[i].outcome, model) == choice(rows[begin].outcome, model)) continue;
    fmt::print(std::cout, "# {:>12} .. {:<12} {}\n", rows[begin].table.size.value, rows[i - 1].table.size.value,
               choice(rows[begin].outcome, model));
    begin = i;
  }
}

// A calibrated time's band: the fit's residuals at sizes near it (calibration.hpp's error_band).
void print_bands(const std::vector<CollectiveTableRow>& rows) {
  fmt::print(std::cout, "# calibrated time and error band (the fit's residuals at sizes within {:g}x):\n",
             kBandSizeFactor);
  fmt::print(std::cout, "# {:>12} {:>12} {:>25}\n", "size (B)", "time (us)", "band (us)");
  for (const CollectiveTableRow& row : rows) {
    const double t = row.table.time.us();
    const ErrorBand band = row.band.value_or(ErrorBand{});
    fmt::print(std::cout, "# {:>12} {:>12.2f} {:>12.2f} .. {:<10.2f} ({:+.1f}% / {:+.1f}%)\n", row.table.size.value, t,
               t * (1 + band.low), t * (1 + band.high), 100 * band.low, 100 * band.high);
  }
}

int run_collective(const CollectiveOptions& options) {
  const CollectiveTable table = simulate_collective_table(options);
  print_calibration_lines(table.calibration_lines);
  if (options.json) {
    std::cout << to_json(table).dump(2) << '\n';
    return 0;
  }
  const CollectiveSpec& base = table.spec;
  const std::vector<CollectiveTableRow>& rows = table.rows;
  fmt::print(std::cout, "# syncsim collective (simulated), layout of nccl-tests' {}\n", nccl_tests_name(base.op));
  fmt::print(std::cout, "# topology {}\n# op {}  algorithm {}  ranks {}  latency model {}  GB = 1e9 bytes\n#\n",
             table.topology, to_string(base.op), options.algo, base.ranks, to_string(base.latency));
  print_nccl_tests_header(std::cout);
  for (const auto& row : rows) print_nccl_tests_row(std::cout, row.table);
  print_nccl_tests_footer(std::cout, [&] {
    std::vector<CollectiveRow> columns;
    for (const auto& row : rows) columns.push_back(row.table);
    return columns;
  }());
  fmt::print(std::cout, "# algorithm/protocol x channels by size (bytes):\n");
  print_choices(rows, base.calibration);
  if (base.calibration) print_bands(rows);
  return 0;
}

// "ring | tree | ... | auto (NCCL's choice) | best (any)", from the one table of names.
std::string algorithm_help() {
  std::string help;
  for (const auto& [name, algorithm] : kAlgorithmNames) help += fmt::format("{} | ", name);
  return help + "auto (NCCL's choice) | best (any)";
}

}  // namespace

Action add_collective_command(CLI::App& app, FlagCheck* check) {
  auto options = std::make_shared<CollectiveOptions>();
  CLI::App* command =
      app.add_subcommand("collective", "Simulate one collective over a range of sizes; print nccl-tests' table");
  set_examples(command, {"syncsim collective --topology switch:n=8,bw=100Gbps,lat=5us --op allreduce --sizes 8:1G",
                         "syncsim collective -t dgx:nodes=16,gpus=8,nic_bw=400Gbps --algo tree --sizes 64K:64M"});
  command->add_option("--topology,-t", options->topology, "Topology spec, e.g. switch:n=8,bw=100Gbps,lat=5us")
      ->required();
  command->add_option("--op", options->op, "allreduce | reduce_scatter | all_gather | broadcast | reduce | alltoall")
      ->capture_default_str();
  command->add_option("--algo", options->algo, algorithm_help())->capture_default_str();
  command->add_option("--protocol", options->protocol, "NCCL protocol: ll | ll128 | simple | auto")
      ->capture_default_str();
  command
      ->add_option("--latency-model", options->latency,
                   "nccl: NCCL's per-step latencies and protocol efficiencies; physical: the topology's latencies")
      ->capture_default_str();
  command->add_option("--channels", options->channels,
                      "Channels (rings/trees at once), 1 to 64; default: one per rail");
  command->add_option("--sizes", options->sizes, "MIN:MAX[:FACTOR] bytes, e.g. 8:1G (K/M/G are powers of 1024)")
      ->capture_default_str();
  command->add_option("--ranks", options->ranks, "Use the first N GPUs, N >= 2 (default: all)");
  command->add_option("--root", options->root, "Root rank of broadcast and reduce (default: 0)");
  command
      ->add_option("--pipeline", options->pipeline,
                   "Chain/tree pipeline slices: auto (512 KiB each; trees NCCL's tree chunk) or 1 to 1024")
      ->capture_default_str();
  command->add_flag("--per-flow", options->per_flow, "Simulate every transfer as a flow (no bulk steps)");
  command->add_flag(
      "--no-symmetry", options->no_symmetry,
      "Step every rank one step at a time: no symmetry classes, ring cycle evaluation or tree channel classes "
      "(same results, slower)");
  command->add_flag("--json", options->json, "Print the rows as JSON");
  command->add_option("--calibration", options->calibration,
                      "Calibration file from `syncsim calibrate`: its fitted regimes replace NCCL's latency model");
  command->add_flag("--strict-calibration", options->strict_calibration,
                    "A calibration fitted on another system (GPU, link rate, scale) is an error, not a warning");
  command->add_option("--gpu", options->gpu,
                      "GPU model (catalog name): applies NCCL's bus-bandwidth ceiling for its architecture "
                      "(A100: 235 GB/s, Hopper: 370 GB/s) with the nccl latency model, and turns on NVSwitch "
                      "reduction (NVLS) where the topology says nvls=auto and the GPU is Hopper or newer");
  if (check) *check = [options] { check_collective_flags(*options); };
  return [options]() { return run_collective(*options); };
}

}  // namespace syncsim::app