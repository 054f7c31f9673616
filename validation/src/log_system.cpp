#include "syncsim/validation/log_system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// `text` (a valid spec) with each key of `values` set: replaced in place where the key is there, appended where
// it is not.
std::string set_keys(std::string_view text, const std::vector<std::pair<std::string, std::string>>& values) {
  const std::size_t colon = text.find(':');
  std::string out(trim(text.substr(0, colon)));
  std::vector<std::string> items;
  std::vector<bool> done(values.size(), false);
  std::string_view rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    const std::string_view key = trim(item.substr(0, item.find('=')));
    std::string replaced(item);
    for (std::size_t v = 0; v < values.size(); ++v) {
      if (key == values[v].first) {
        replaced = values[v].first + "=" + values[v].second;
        done[v] = true;
      }
    }
    items.push_back(std::move(replaced));
  }
  for (std::size_t v = 0; v < values.size(); ++v) {
    if (!done[v]) items.push_back(values[v].first + "=" + values[v].second);
  }
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? ":" : ",") + items[i];
  return out;
}

// nccl-tests run with `-d all` or `-o all` prints rows of several data types or reduction ops in one table. Each is
// a fine measurement, but validation and calibration compare rows by size alone: a float row and a half row of
// one size are two different measurements of "the same" point, and a fit through both is neither. Refused, with
// both lines, rather than averaged silently.
void check_one_kind_of_row(const NcclTestsLog& log) {
  if (log.rows.empty()) return;
  const NcclTestsRow& first = log.rows.front();
  for (const NcclTestsRow& row : log.rows) {
    const bool type_differs = row.type != first.type;
    if (!type_differs && row.redop == first.redop) continue;
    const std::string what = type_differs ? "data type" : "reduction op";
    const std::string& a = type_differs ? first.type : first.redop;
    const std::string& b = type_differs ? row.type : row.redop;
    throw InputError(fmt::format("the log mixes {}s: '{}' here, '{}' at line {}; syncsim compares rows by size alone, "
                                 "so give one {} per log (run nccl-tests with one -d TYPE and one -o OP, or split "
                                 "the table)",
                                 what, b, a, first.line, what),
                     SourceLocation{log.source, row.line}, type_differs ? "type" : "redop");
  }
}

}  // namespace

std::vector<MeasuredPoint> measured_points(const NcclTestsLog& log, Placement placement) {
  check_one_kind_of_row(log);
  std::vector<MeasuredPoint> points;
  for (const NcclTestsRow& row : log.rows) {
    if (row.size_bytes <= 0) continue;
    const double out = row.out_of_place.time_us;
    const double in = row.in_place.time_us;
    const double time = placement == Placement::out_of_place ? out
                        : placement == Placement::in_place   ? in
                                                             : std::min(out, in);
    // Below the simulated clock's picosecond no prediction can be compared with it: an error against 1e-300 us
    // would print hundreds of digits.
    constexpr double kClockResolutionUs = 1e-6;
    if (!(time >= kClockResolutionUs)) {
      throw InputError(fmt::format("the {} time of {} us for {} bytes: a measured time must be positive and at least "
                                   "the simulated clock's resolution, 1 ps",
                                   to_string(placement), time, row.size_bytes),
                       SourceLocation{log.source, row.line}, "time");
    }
    points.push_back({Bytes{row.size_bytes}, time, row.line});
  }
  if (points.empty()) {
    throw InputError("no rows with a size above 0 bytes to compare with", SourceLocation{log.source});
  }
  return points;
}

namespace {

// The trays per NVLink domain for `hosts` hosts of `per_host` GPUs, at most `most` trays a domain: the fewest
// domains that hold them, filled evenly. Throws when the hosts do not split evenly.
std::int64_t trays_per_domain(int hosts, std::int64_t most, std::string_view source) {
  const std::int64_t domains = (hosts + most - 1) / most;
  if (hosts % domains != 0) {
    throw InputError(fmt::format("the log's {} hosts do not fill {} NVLink domains of at most {} trays evenly (give "
                                 "nvlink_domain=T with T dividing {})",
                                 hosts, domains, most, hosts),
                     SourceLocation{std::string(source)});
  }
  return hosts / domains;
}

}  // namespace

std::string scale_topology_spec(std::string_view family, int ranks, int hosts, std::string_view source,
                                const std::optional<GpuSpec>& gpu) {
  const TopologySpec spec = parse_topology_spec(family, source);
  if (spec.kind == "dgx") {
    if (hosts < 1 || ranks % hosts != 0) {
      throw InputError(fmt::format("a dgx topology needs the same rank count on every host; the log has {} ranks "
                                   "on {} hosts (give a file: topology for uneven hosts)",
                                   ranks, hosts),
                       SourceLocation{std::string(source)});
    }
    const int per_host = ranks / hosts;
    std::vector<std::pair<std::string, std::string>> values{{"nodes", std::to_string(hosts)},
                                                            {"gpus", std::to_string(per_host)}};
    // A rail count above the GPUs per host is no longer valid: one NIC per GPU is the nearest shape.
    const auto rails = spec.params.find("rails");
    if (rails != spec.params.end() && parse_count(rails->second) > per_host) {
      values.emplace_back("rails", std::to_string(per_host));
    }
    const bool has_fabric = gpu && gpu->nvlink_bandwidth && gpu->nvlink_domain_gpus;
    if (has_fabric && !spec.params.contains("nvlink_bw")) {
      values.emplace_back("nvlink_bw", fmt::format("{}GB/s", gpu->nvlink_bandwidth->gb_per_s()));
    }
    const auto domain = spec.params.find("nvlink_domain");
    std::optional<std::int64_t> most_trays;
    if (domain != spec.params.end()) most_trays = parse_count(domain->second);
    if (!most_trays && has_fabric) most_trays = std::max(1, *gpu->nvlink_domain_gpus / per_host);
    if (most_trays && (*most_trays > 1 || domain != spec.params.end())) {
      values.emplace_back("nvlink_domain", std::to_string(trays_per_domain(hosts, *most_trays, source)));
    }
    return set_keys(family, values);
  }
  if (spec.kind == "ring" || spec.kind == "mesh" || spec.kind == "switch" || spec.kind == "fattree") {
    return set_keys(family, {{"n", std::to_string(ranks)}});
  }
  return std::string(trim(family));
}

std::optional<GpuSpec> catalog_gpu_of_device(const std::string& name) {
  try {
    return find_gpu(name);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::vector<std::string> log_warnings(const NcclTestsLog& log) {
  std::vector<std::string> out = log.warnings;
  for (const std::string& device : log.gpu_names) {
    if (catalog_gpu_of_device(device)) continue;
    out.push_back(
        fmt::format("device '{}' is not in the GPU catalog (docs/compute.md): its link rates are the "
                    "topology's defaults; name them in --topology (nvlink_bw=...)",
                    device));
  }
  return out;
}

namespace {

// validate and calibrate simulate every size of a log at the log's own scale. The collective executor's cost grows
// with the square of the ranks (10,000 ranks take about 5 s a log, 100,000 would take many minutes), so a larger
// log is refused at once instead of leaving the command running; `syncsim collective` and `syncsim run` still
// simulate such scales, one collective at a time.
constexpr int kMaxSimulatedLogRanks = 4096;

int simulated_ranks(const NcclTestsLog& log) {
  if (log.ranks > kMaxSimulatedLogRanks) {
    throw InputError(fmt::format("the log has {} ranks; validate and calibrate simulate each of its sizes at that "
                                 "scale, which takes minutes beyond {} ranks: give a log of at most {} ranks",
                                 log.ranks, kMaxSimulatedLogRanks, kMaxSimulatedLogRanks),
                     SourceLocation{log.source});
  }
  return log.ranks;
}

// The one catalog GPU every rank of the log runs, or nullopt.
std::optional<GpuSpec> log_gpu(const NcclTestsLog& log) {
  std::optional<GpuSpec> found;
  for (const std::string& name : log.gpu_names) {
    std::optional<GpuSpec> gpu = catalog_gpu_of_device(name);
    if (!gpu || (found && found->name != gpu->name)) return std::nullopt;
    found = std::move(gpu);
  }
  return found;
}

}  // namespace

LogSystem::LogSystem(const NcclTestsLog& log, std::string_view topology_family, std::string_view source)
    : spec_(scale_topology_spec(topology_family, simulated_ranks(log), log.hosts, source, log_gpu(log))),
      topology_(std::make_unique<Topology>(build_topology(spec_, source))),
      router_(std::make_unique<Router>(*topology_)),
      op_(log.collective),
      ranks_(static_cast<std::size_t>(log.ranks)) {
  for (const NcclTestsRow& row : log.rows) {
    if (row.root && *row.root >= 0) root_ = Rank{static_cast<std::uint32_t>(*row.root)};
  }
  if (ranks_ < 2 || ranks_ > topology_->gpu_count()) {
    throw InputError(fmt::format("the log {} has {} ranks, but the topology {} has {} GPUs (a collective needs 2 "
                                 "to the topology's GPU count)",
                                 log.source, ranks_, spec_, topology_->gpu_count()),
                     SourceLocation{std::string(source)});
  }
  std::array<bool, 3> seen{};
  const auto note = [&](std::size_t a, std::size_t b) {
    if (a != b) seen[static_cast<std::size_t>(classify(*topology_, router_->gpu_route(a, b)))] = true;
  };
  for (std::size_t r = 1; r < ranks_; ++r) {
    note(0, r);
    note(r - 1, r);
  }
  for (std::size_t c = 0; c < seen.size(); ++c) {
    if (seen[c]) classes_.push_back(static_cast<LinkKind>(c));
  }
  for (const std::string& device : log.gpu_names) {
    const std::optional<GpuSpec> gpu = catalog_gpu_of_device(device);
    const std::string name = gpu ? gpu->name : device;
    if (gpu_name_.find(name) == std::string::npos) gpu_name_ += (gpu_name_.empty() ? "" : " + ") + name;
  }
  std::optional<int> capability;
  bool same = !log.gpu_names.empty();
  for (const std::string& name : log.gpu_names) {
    const std::optional<GpuSpec> gpu = catalog_gpu_of_device(name);
    const std::optional<int> cc = gpu ? gpu->compute_capability : std::nullopt;
    same = same && cc && (!capability || *capability == *cc);
    capability = cc;
  }
  if (same && capability) {
    busbw_cap_ = nccl_busbw_cap(*capability);
    compute_capability_ = capability;
  }
}

CollectiveOutcome LogSystem::simulate(Bytes size, const CalibratedModel* model, std::optional<Algorithm> algorithm) {
  CollectiveSpec spec;
  spec.op = op_;
  spec.size = size;
  spec.ranks = ranks_;
  spec.algorithm = algorithm;
  spec.root = root_;
  spec.latency = model ? LatencySource::calibrated : LatencySource::nccl;
  spec.busbw_cap = busbw_cap_;
  spec.compute_capability = compute_capability_;
  spec.calibration = model;
  return simulate_collective(*router_, spec);
}

CollectiveOutcome LogSystem::simulate(Bytes size, const TransferCost& cost, std::optional<Algorithm> algorithm) {
  const CalibratedModel model{{"regime"}, {cost}, {}};
  return simulate(size, &model, algorithm);
}

SystemShape LogSystem::shape() {
  return system_shape(*router_, ranks_, gpu_name_);
}

}  // namespace syncsim
