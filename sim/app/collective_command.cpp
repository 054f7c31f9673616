// `syncsim collective`: simulate one collective over a size sweep and print it as nccl-tests would.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "help_format.hpp"
#include "syncsim/collectives/calibration.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/collectives/size_range.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/run/memory_budget.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::app {

namespace {

struct CollectiveOptions {
  std::string topology;
  std::string op = "allreduce";
  std::string algo = "auto";
  std::string protocol = "auto";
  std::string latency = "nccl";
  std::string sizes = "8:1G";
  std::optional<std::int64_t> ranks;     // absent: all the topology's GPUs
  std::optional<std::int64_t> channels;  // absent: one per rail (default_channels)
  std::optional<std::int64_t> root;      // absent: rank 0 (broadcast and reduce only)
  std::string pipeline = "auto";
  bool per_flow = false;
  bool no_symmetry = false;
  bool json = false;
  std::string calibration;
  std::string gpu;  // catalog name: NCCL's bus-bandwidth ceiling for its architecture
};

template <typename F>
auto at_flag(const char* flag, F&& parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    throw e.at(SourceLocation{flag});
  }
}

// NCCL runs at most MAXCHANNELS channels (64 since NCCL 2.12, src/include/device.h; 32 before): more is no
// configuration a real system has, and each channel is a plan the simulator builds and runs.
constexpr std::int64_t kMaxChannels = 64;
// Chain and tree pipelines: `auto` cuts at most 16 slices of 512 KiB (trees: of NCCL's tree chunk); a count beyond this
// makes slices smaller than NCCL's chunks for any size it is worth pipelining, and every slice is a step of every
// rank's plan.
constexpr std::int64_t kMaxPipelineSlices = 1024;

bool rooted(CollectiveOp op) {
  return op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
}

void check_range(std::int64_t value, std::int64_t lo, std::int64_t hi, const char* what, const char* flag,
                 const char* why = "") {
  if (value < lo || value > hi) {
    throw InputError(fmt::format("expected {} from {} to {}{}, got {}", what, lo, hi, why, value),
                     SourceLocation{flag});
  }
}

// Every flag that can be checked without the topology; make_spec checks the rest (ranks and root against its GPUs).
CollectiveSpec spec_from_flags(const CollectiveOptions& options) {
  CollectiveSpec spec;
  spec.op = at_flag("--op", [&] { return parse_collective_op(options.op); });
  if (options.algo == "best") {
    spec.any_algorithm = true;
  } else if (options.algo != "auto") {
    spec.algorithm = at_flag("--algo", [&] { return parse_algorithm(options.algo); });
  }
  spec.latency = at_flag("--latency-model", [&] { return parse_latency_source(options.latency); });
  if (options.protocol != "auto") {
    spec.protocol = at_flag("--protocol", [&] { return parse_protocol(options.protocol); });
    if (spec.latency != LatencySource::nccl) {
      throw InputError("a protocol needs --latency-model nccl", SourceLocation{"--protocol"});
    }
  }
  // 0 is refused rather than read as "the default": leaving the flag out is how the default is asked for.
  if (options.ranks) check_range(*options.ranks, 2, std::int64_t{1} << 20, "a rank count", "--ranks");
  if (options.root) {
    if (!rooted(spec.op)) {
      throw InputError(
          fmt::format("applies only to rooted collectives (broadcast, reduce), not {}", to_string(spec.op)),
          SourceLocation{"--root"});
    }
    check_range(*options.root, 0, (std::int64_t{1} << 20) - 1, "a rank", "--root");
  }
  if (options.channels) {
    check_range(*options.channels, 1, kMaxChannels, "a channel count", "--channels", " (NCCL's MAXCHANNELS)");
    spec.channels = static_cast<std::uint32_t>(*options.channels);
  }
  if (options.pipeline != "auto") {
    const std::int64_t slices = at_flag("--pipeline", [&] { return parse_count(options.pipeline); });
    if (slices < 1) throw InputError("expected 'auto' or a slice count of at least 1", SourceLocation{"--pipeline"});
    check_range(slices, 1, kMaxPipelineSlices, "'auto' or a slice count", "--pipeline");
    spec.pipeline_slices = static_cast<std::uint32_t>(slices);
    const bool chain = rooted(spec.op);
    const bool tree = !spec.algorithm || *spec.algorithm == Algorithm::tree;
    if (!chain && !tree) {
      throw InputError(fmt::format("--pipeline applies to broadcast, reduce and tree algorithms, not a {} {}",
                                   to_string(*spec.algorithm), to_string(spec.op)),
                       SourceLocation{"--pipeline"});
    }
  }
  spec.bulk = !options.per_flow;
  spec.symmetry = !options.no_symmetry;
  if (!options.gpu.empty()) {
    const GpuSpec gpu = at_flag("--gpu", [&] { return find_gpu(options.gpu); });
    if (gpu.compute_capability) spec.busbw_cap = nccl_busbw_cap(*gpu.compute_capability);
    spec.compute_capability = gpu.compute_capability;
  }
  return spec;
}

std::vector<Bytes> requested_sizes(const CollectiveOptions& options) {
  return at_flag("--sizes", [&] { return expand(parse_size_range(options.sizes)); });
}

CollectiveSpec make_spec(const CollectiveOptions& options, const Topology& topology) {
  CollectiveSpec spec = spec_from_flags(options);
  spec.ranks = options.ranks ? static_cast<std::size_t>(*options.ranks) : topology.gpu_count();
  if (spec.ranks < 2 || spec.ranks > topology.gpu_count()) {
    throw InputError(
        fmt::format("expected 2 to {} ranks (the topology's GPUs), got {}", topology.gpu_count(), spec.ranks),
        SourceLocation{"--ranks"});
  }
  const std::int64_t root = options.root.value_or(0);
  if (static_cast<std::size_t>(root) >= spec.ranks) {
    throw InputError(fmt::format("root {} does not exist among {} ranks", root, spec.ranks), SourceLocation{"--root"});
  }
  spec.root = Rank{static_cast<std::uint32_t>(root)};
  return spec;
}

// The table's rows: each requested size rounded down to whole elements (per rank for reduce_scatter and
// all_gather, 16-byte blocks per peer for alltoall), as nccl-tests does. Sizes that round to the same byte count (8, 9,
// 10 and 11 bytes of floats, or a factor near 1) are one row, not several identical ones.
std::vector<CollectiveRow> table_rows(const CollectiveSpec& base, const std::vector<Bytes>& sizes, int root) {
  std::vector<CollectiveRow> rows;
  for (const Bytes requested : sizes) {
    CollectiveRow row = make_row(base.op, base.ranks, requested, root);
    if (rows.empty() || row.size != rows.back().size) rows.push_back(row);
  }
  return rows;
}

struct Row {
  CollectiveRow table;
  CollectiveOutcome outcome;
};

std::string choice(const CollectiveOutcome& outcome, const CalibratedModel* model = nullptr) {
  std::string text = fmt::format("{}", to_string(outcome.algorithm));
  if (outcome.protocol) text += fmt::format("/{}", to_string(*outcome.protocol));
  if (outcome.regime && model) text += fmt::format("/{}", model->regime_names[*outcome.regime]);
  return text + fmt::format(" x{}", outcome.channels);
}

void print_json(const Topology& topology, const CollectiveSpec& spec, const std::vector<Row>& rows) {
  nlohmann::ordered_json out;
  out["topology"] = topology.description();
  out["op"] = to_string(spec.op);
  out["ranks"] = spec.ranks;
  out["latency_model"] = to_string(spec.latency);
  out["simulated"] = true;
  auto& json_rows = out["rows"] = nlohmann::ordered_json::array();
  double busbw_sum = 0;
  for (const auto& [row, outcome] : rows) {
    nlohmann::ordered_json r = {{"size_bytes", row.size.value},
                                {"count", row.count},
                                {"type", row.type},
                                {"redop", row.redop},
                                {"root", row.root},
                                {"time_us", row.time.us()},
                                {"algbw_gbps", row.bandwidth.algbw.gb_per_s()},
                                {"busbw_gbps", row.bandwidth.busbw.gb_per_s()},
                                {"algorithm", to_string(outcome.algorithm)},
                                {"channels", outcome.channels}};
    r["protocol"] = outcome.protocol ? nlohmann::ordered_json(to_string(*outcome.protocol)) : nullptr;
    if (outcome.regime && spec.calibration) r["regime"] = spec.calibration->regime_names[*outcome.regime];
    json_rows.push_back(std::move(r));
    busbw_sum += row.bandwidth.busbw.gb_per_s();
  }
  out["avg_busbw_gbps"] = busbw_sum / static_cast<double>(rows.size());
  std::cout << out.dump(2) << '\n';
}

// Which algorithm (and protocol, channels) ran, by size range: the table itself keeps nccl-tests' columns.
void print_choices(const std::vector<Row>& rows, const CalibratedModel* model) {
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= rows.size(); ++i) {
    if (i < rows.size() && choice(rows[i].outcome, model) == choice(rows[begin].outcome, model)) continue;
    fmt::print(std::cout, "# {:>12} .. {:<12} {}\n", rows[begin].table.size.value, rows[i - 1].table.size.value,
               choice(rows[begin].outcome, model));
    begin = i;
  }
}

// The flags, checked without building the topology or simulating (the cli_args fuzz target runs this alone).
void check_collective_flags(const CollectiveOptions& options) {
  (void)parse_topology_spec(options.topology, "--topology");
  (void)spec_from_flags(options);
  (void)requested_sizes(options);
}

int run_collective(const CollectiveOptions& options) {
  check_collective_flags(options);  // before building the topology, which may take long
  const TopologySpec topology_spec = parse_topology_spec(options.topology, "--topology");
  run::check_memory_budget(topology_spec, "");
  const Topology topology = build_topology(topology_spec);
  CollectiveSpec base = make_spec(options, topology);
  // --calibration: the calibrated regimes replace NCCL's protocols (and its algorithm applies, if it has one).
  std::optional<CalibratedModel> calibrated;
  if (!options.calibration.empty()) {
    const Calibration calibration = read_calibration(options.calibration);
    if (base.protocol) {
      throw InputError("a protocol cannot be combined with a calibration: its regimes replace NCCL's protocols",
                       SourceLocation{"--protocol"});
    }
    calibrated = to_model(calibration);
    base.latency = LatencySource::calibrated;
    base.calibration = &*calibrated;
    if (options.algo == "auto" && calibration.algorithm) base.algorithm = calibration.algorithm;
  }
  const std::vector<Bytes> sizes = requested_sizes(options);

  Router router(topology);
  std::vector<Row> rows;
  for (CollectiveRow row : table_rows(base, sizes, static_cast<int>(base.root.value()))) {
    CollectiveSpec spec = base;
    spec.size = row.size;
    const CollectiveOutcome outcome = [&] {
      try {
        return simulate_collective(router, spec);
      } catch (const SimTimeOverflow& e) {
        // The network (and the latency model) set a collective's time: too slow a link, too long a latency.
        throw InputError(fmt::format("{} (a {} collective)", e.message(), format_bytes(spec.size)),
                         SourceLocation{"--topology"});
      } catch (const InputError& e) {
        throw e.at(SourceLocation{options.algo == "auto" || options.algo == "best" ? "--op" : "--algo"});
      }
    }();
    row.time = outcome.time;
    row.bandwidth = bus_bandwidth(base.op, base.ranks, row.size, row.time);
    rows.push_back({row, outcome});
  }

  if (options.json) {
    print_json(topology, base, rows);
    return 0;
  }
  fmt::print(std::cout, "# syncsim collective (simulated), layout of nccl-tests' {}\n", nccl_tests_name(base.op));
  fmt::print(std::cout, "# topology {}\n# op {}  algorithm {}  ranks {}  latency model {}  GB = 1e9 bytes\n#\n",
             topology.description(), to_string(base.op), options.algo, base.ranks, to_string(base.latency));
  print_nccl_tests_header(std::cout);
  for (const auto& row : rows) print_nccl_tests_row(std::cout, row.table);
  print_nccl_tests_footer(std::cout, [&] {
    std::vector<CollectiveRow> table;
    for (const auto& row : rows) table.push_back(row.table);
    return table;
  }());
  fmt::print(std::cout, "# algorithm/protocol x channels by size (bytes):\n");
  print_choices(rows, base.calibration);
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
  command->add_flag("--no-symmetry", options->no_symmetry,
                    "Step every rank one step at a time, without symmetry classes or the ring's cycle evaluation "
                    "(same results, slower)");
  command->add_flag("--json", options->json, "Print the rows as JSON");
  command->add_option("--calibration", options->calibration,
                      "Calibration file from `syncsim calibrate`: its fitted regimes replace NCCL's latency model");
  command->add_option("--gpu", options->gpu,
                      "GPU model (catalog name): applies NCCL's bus-bandwidth ceiling for its architecture "
                      "(A100: 235 GB/s, Hopper: 370 GB/s) with the nccl latency model, and turns on NVSwitch "
                      "reduction (NVLS) where the topology says nvls=auto and the GPU is Hopper or newer");
  if (check) *check = [options] { check_collective_flags(*options); };
  return [options]() { return run_collective(*options); };
}

}  // namespace syncsim::app
