// `syncsim collective`: simulate one collective over a size sweep and print it as nccl-tests would.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/collectives/size_range.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::app {

namespace {

struct CollectiveOptions {
  std::string topology;
  std::string op = "allreduce";
  std::string algo = "ring";
  std::string sizes = "8:1G";
  std::size_t ranks = 0;
  int root = 0;
  std::string pipeline = "auto";
  bool per_flow = false;
  bool json = false;
};

// NCCL moves a broadcast or reduce in chunks of about 512 KiB along its chain; `auto` does the same, so large
// broadcasts pipeline and small ones pay the chain latency once.
constexpr std::int64_t kAutoSliceBytes = 512 * 1024;
constexpr std::uint32_t kMaxAutoSlices = 1024;

std::uint32_t pipeline_slices(const CollectiveOptions& options, CollectiveOp op, Bytes size) {
  if (op != CollectiveOp::broadcast && op != CollectiveOp::reduce) {
    if (options.pipeline != "auto" && options.pipeline != "1") {
      throw InputError(fmt::format("--pipeline applies to broadcast and reduce, not {}", to_string(op)),
                       SourceLocation{"--pipeline"});
    }
    return 1;
  }
  if (options.pipeline == "auto") {
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(size.value / kAutoSliceBytes, 1, kMaxAutoSlices));
  }
  try {
    const std::int64_t slices = parse_count(options.pipeline);
    if (slices < 1) throw InputError("expected 'auto' or a slice count of at least 1");
    return static_cast<std::uint32_t>(slices);
  } catch (const InputError& e) {
    throw e.at(SourceLocation{"--pipeline"});
  }
}

template <typename F>
auto at_flag(const char* flag, F&& parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    throw e.at(SourceLocation{flag});
  }
}

int run_collective(const CollectiveOptions& options) {
  const Topology topology = build_topology(options.topology, "--topology");
  const CollectiveOp op = at_flag("--op", [&] { return parse_collective_op(options.op); });
  if (options.algo != "ring") {
    throw InputError(fmt::format("unknown algorithm '{}': expected ring", options.algo), SourceLocation{"--algo"});
  }
  const std::vector<Bytes> sizes = at_flag("--sizes", [&] { return expand(parse_size_range(options.sizes)); });
  const std::size_t ranks = options.ranks == 0 ? topology.gpu_count() : options.ranks;
  if (ranks < 2 || ranks > topology.gpu_count()) {
    throw InputError(fmt::format("expected 2 to {} ranks (the topology's GPUs), got {}", topology.gpu_count(), ranks),
                     SourceLocation{"--ranks"});
  }
  if (options.root < 0 || static_cast<std::size_t>(options.root) >= ranks) {
    throw InputError(fmt::format("root {} does not exist among {} ranks", options.root, ranks),
                     SourceLocation{"--root"});
  }

  Router router(topology);
  ExecutorOptions executor_options;
  executor_options.bulk = !options.per_flow;
  std::vector<CollectiveRow> rows;
  for (const Bytes requested : sizes) {
    CollectiveRow row = make_row(op, ranks, requested, options.root);
    RingOptions ring;
    ring.root = Rank{static_cast<std::uint32_t>(options.root)};
    ring.pipeline_slices = pipeline_slices(options, op, row.size);
    const RingPlan plan(op, ranks, row.size, ring);
    row.time = time_collective(router, plan, executor_options).time;
    row.bandwidth = bus_bandwidth(op, ranks, row.size, row.time);
    rows.push_back(row);
  }

  if (options.json) {
    nlohmann::ordered_json out;
    out["topology"] = topology.description();
    out["op"] = to_string(op);
    out["algorithm"] = options.algo;
    out["ranks"] = ranks;
    out["simulated"] = true;
    auto& json_rows = out["rows"] = nlohmann::ordered_json::array();
    double busbw_sum = 0;
    for (const auto& row : rows) {
      json_rows.push_back({{"size_bytes", row.size.value},
                           {"count", row.count},
                           {"type", row.type},
                           {"redop", row.redop},
                           {"root", row.root},
                           {"time_us", row.time.us()},
                           {"algbw_gbps", row.bandwidth.algbw.gb_per_s()},
                           {"busbw_gbps", row.bandwidth.busbw.gb_per_s()}});
      busbw_sum += row.bandwidth.busbw.gb_per_s();
    }
    out["avg_busbw_gbps"] = busbw_sum / static_cast<double>(rows.size());
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  fmt::print(std::cout, "# syncsim collective (simulated), layout of nccl-tests' {}\n", nccl_tests_name(op));
  fmt::print(std::cout, "# topology {}\n# op {}  algorithm {}  ranks {}  GB = 1e9 bytes\n#\n", topology.description(),
             to_string(op), options.algo, ranks);
  print_nccl_tests_header(std::cout);
  for (const auto& row : rows) print_nccl_tests_row(std::cout, row);
  print_nccl_tests_footer(std::cout, rows);
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
  command->add_option("--algo", options->algo, "Algorithm: ring")->capture_default_str();
  command->add_option("--sizes", options->sizes, "MIN:MAX[:FACTOR] bytes, e.g. 8:1G (K/M/G are powers of 1024)")
      ->capture_default_str();
  command->add_option("--ranks", options->ranks, "Use the first N GPUs (default: all)");
  command->add_option("--root", options->root, "Root rank of broadcast and reduce")->capture_default_str();
  command->add_option("--pipeline", options->pipeline, "Broadcast/reduce pipeline slices: auto (512 KiB) or a count")
      ->capture_default_str();
  command->add_flag("--per-flow", options->per_flow, "Simulate every transfer as a flow (no bulk steps)");
  command->add_flag("--json", options->json, "Print the rows as JSON");
  return [options]() { return run_collective(*options); };
}

}  // namespace syncsim::app
