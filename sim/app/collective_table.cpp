#include "collective_table.hpp"

#include "calibration_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "syncsim/collectives/size_range.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/run_cost.hpp"
#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/run/memory_budget.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::app {

namespace {

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
}  // namespace

void check_collective_flags(const CollectiveOptions& options) {
  (void)parse_topology_spec(options.topology, "--topology");
  (void)spec_from_flags(options);
  (void)requested_sizes(options);
}

CollectiveTable simulate_collective_table(const CollectiveOptions& options) {
  check_collective_flags(options);  // before building the topology, which may take long
  const TopologySpec topology_spec = parse_topology_spec(options.topology, "--topology");
  run::check_memory_budget(topology_spec, "");
  const Topology topology = build_topology(topology_spec);
  CollectiveTable table;
  table.topology = topology.description();
  CollectiveSpec& base = table.spec;
  base = make_spec(options, topology);
  Router router(topology);
  // --calibration: the calibrated regimes replace NCCL's protocols (and its algorithm applies, if it has one).
  std::optional<Calibration> calibration;
  if (!options.calibration.empty()) {
    calibration = read_calibration(options.calibration);
    const std::string gpu = options.gpu.empty() ? "" : find_gpu(options.gpu).name;
    table.calibration_lines =
        check_calibration_domain(*calibration, options.calibration, system_shape(router, base.ranks, gpu),
                                 options.strict_calibration, SourceLocation{"--strict-calibration"});
    if (base.protocol) {
      throw InputError("a protocol cannot be combined with a calibration: its regimes replace NCCL's protocols",
                       SourceLocation{"--protocol"});
    }
    table.calibrated = std::make_unique<CalibratedModel>(to_model(*calibration));
    base.latency = LatencySource::calibrated;
    base.calibration = table.calibrated.get();
    if (options.algo == "auto" && calibration->algorithm) base.algorithm = calibration->algorithm;
  }
  const std::vector<Bytes> sizes = requested_sizes(options);

  // One run-cost budget for all the sizes: the command as a whole is what must end (run_cost.hpp).
  WorkBudget flow_work(kFlowSolveWork, kFlowSolveBudget);
  for (CollectiveRow row : table_rows(base, sizes, static_cast<int>(base.root.value()))) {
    CollectiveSpec spec = base;
    spec.size = row.size;
    spec.flow_work = &flow_work;
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
    table.rows.push_back(
        {row, outcome, calibration ? std::optional(error_band(*calibration, row.size)) : std::nullopt});
  }
  return table;
}

nlohmann::ordered_json to_json(const CollectiveTable& table) {
  const CollectiveSpec& spec = table.spec;
  const std::vector<CollectiveTableRow>& rows = table.rows;
  nlohmann::ordered_json out;
  out["topology"] = table.topology;
  out["op"] = to_string(spec.op);
  out["ranks"] = spec.ranks;
  out["latency_model"] = to_string(spec.latency);
  out["simulated"] = true;
  auto& json_rows = out["rows"] = nlohmann::ordered_json::array();
  double busbw_sum = 0;
  for (const auto& [row, outcome, band] : rows) {
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
    if (band) {
      r["band_low_us"] = row.time.us() * (1 + band->low);
      r["band_high_us"] = row.time.us() * (1 + band->high);
    }
    json_rows.push_back(std::move(r));
    busbw_sum += row.bandwidth.busbw.gb_per_s();
  }
  out["avg_busbw_gbps"] = busbw_sum / static_cast<double>(rows.size());
  return out;
}

}  // namespace syncsim::app
