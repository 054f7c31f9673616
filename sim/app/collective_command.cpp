// `syncsim collective`: simulate one collective over a size sweep and print it as nccl-tests would.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/collectives/size_range.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/memory_budget.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "syncsim/validation/calibration.hpp"

namespace syncsim::app {

namespace {

struct CollectiveOptions {
  std::string topology;
  std::string op = "allreduce";
  std::string algo = "auto";
  std::string protocol = "auto";
  std::string latency = "nccl";
  std::string sizes = "8:1G";
  std::size_t ranks = 0;
  std::uint32_t channels = 0;
  int root = 0;
  std::string pipeline = "auto";
  bool per_flow = false;
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

CollectiveSpec make_spec(const CollectiveOptions& options, const Topology& topology) {
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
  spec.ranks = options.ranks == 0 ? topology.gpu_count() : options.ranks;
  if (spec.ranks < 2 || spec.ranks > topology.gpu_count()) {
    throw InputError(
        fmt::format("expected 2 to {} ranks (the topology's GPUs), got {}", topology.gpu_count(), spec.ranks),
        SourceLocation{"--ranks"});
  }
  if (options.root < 0 || static_cast<std::size_t>(options.root) >= spec.ranks) {
    throw InputError(fmt::format("root {} does not exist among {} ranks", options.root, spec.ranks),
                     SourceLocation{"--root"});
  }
  spec.root = Rank{static_cast<std::uint32_t>(options.root)};
  if (options.channels > 0) spec.channels = options.channels;
  if (options.pipeline != "auto") {
    const std::int64_t slices = at_flag("--pipeline", [&] { return parse_count(options.pipeline); });
    if (slices < 1) throw InputError("expected 'auto' or a slice count of at least 1", SourceLocation{"--pipeline"});
    spec.pipeline_slices = static_cast<std::uint32_t>(slices);
    const bool chain = spec.op == CollectiveOp::broadcast || spec.op == CollectiveOp::reduce;
    const bool tree = !spec.algorithm || *spec.algorithm == Algorithm::tree;
    if (!chain && !tree) {
      throw InputError(fmt::format("--pipeline applies to broadcast, reduce and tree algorithms, not a {} {}",
                                   to_string(*spec.algorithm), to_string(spec.op)),
                       SourceLocation{"--pipeline"});
    }
  }
  spec.bulk = !options.per_flow;
  if (!options.gpu.empty()) {
    const GpuSpec gpu = at_flag("--gpu", [&] { return find_gpu(options.gpu); });
    if (gpu.compute_capability) spec.busbw_cap = nccl_busbw_cap(*gpu.compute_capability);
  }
  return spec;
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

int run_collective(const CollectiveOptions& options) {
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
  const std::vector<Bytes> sizes = at_flag("--sizes", [&] { return expand(parse_size_range(options.sizes)); });

  Router router(topology);
  std::vector<Row> rows;
  for (const Bytes requested : sizes) {
    CollectiveRow row = make_row(base.op, base.ranks, requested, options.root);
    CollectiveSpec spec = base;
    spec.size = row.size;
    const CollectiveOutcome outcome = [&] {
      try {
        return simulate_collective(router, spec);
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

}  // namespace

Action add_collective_command(CLI::App& app) {
  auto options = std::make_shared<CollectiveOptions>();
  CLI::App* command =
      app.add_subcommand("collective", "Simulate one collective over a range of sizes; print nccl-tests' table");
  command->add_option("--topology,-t", options->topology, "Topology spec, e.g. switch:n=8,bw=100Gbps,lat=5us")
      ->required();
  command->add_option("--op", options->op, "allreduce | reduce_scatter | all_gather | broadcast | reduce")
      ->capture_default_str();
  command
      ->add_option("--algo", options->algo,
                   "ring | tree | halving_doubling | hierarchical | direct | auto (NCCL's choice) | best (any)")
      ->capture_default_str();
  command->add_option("--protocol", options->protocol, "NCCL protocol: ll | ll128 | simple | auto")
      ->capture_default_str();
  command
      ->add_option("--latency-model", options->latency,
                   "nccl: NCCL's per-step latencies and protocol efficiencies; physical: the topology's latencies")
      ->capture_default_str();
  command->add_option("--channels", options->channels, "Channels (rings/trees at once); default: one per rail");
  command->add_option("--sizes", options->sizes, "MIN:MAX[:FACTOR] bytes, e.g. 8:1G (K/M/G are powers of 1024)")
      ->capture_default_str();
  command->add_option("--ranks", options->ranks, "Use the first N GPUs (default: all)");
  command->add_option("--root", options->root, "Root rank of broadcast and reduce")->capture_default_str();
  command->add_option("--pipeline", options->pipeline, "Chain/tree pipeline slices: auto (512 KiB each) or a count")
      ->capture_default_str();
  command->add_flag("--per-flow", options->per_flow, "Simulate every transfer as a flow (no bulk steps)");
  command->add_flag("--json", options->json, "Print the rows as JSON");
  command->add_option("--calibration", options->calibration,
                      "Calibration file from `syncsim calibrate`: its fitted regimes replace NCCL's latency model");
  command->add_option("--gpu", options->gpu,
                      "GPU model (catalog name): applies NCCL's bus-bandwidth ceiling for its architecture "
                      "(A100: 235 GB/s, Hopper: 370 GB/s) with the nccl latency model");
  return [options]() { return run_collective(*options); };
}

}  // namespace syncsim::app
