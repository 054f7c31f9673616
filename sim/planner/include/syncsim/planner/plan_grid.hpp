#pragma once
// The plan's grid: which GPU counts, GPU types and networks `syncsim plan` simulates, as sweep points.
//
//   --gpus 8:1024          8, 16, 32, ..., 1024 (doubling; 8:1024:4 multiplies by 4; 16,32,48 lists them)
//   --gpu-types A100-SXM4-80GB,H100-SXM   catalog names; default: the scenario's GPU
//   --networks ib400=dgx:gpus=8,nic_bw=400Gbps;eth25=dgx:gpus=8,nic_bw=25Gbps
//                          topology specs, each optionally named NAME=SPEC; ';' or the flag repeated separates them
//                          (specs hold commas). Default: the scenario's own topology, named "scenario".
//
// A GPU count n becomes a topology of n GPUs: `nodes = ceil(n / gpus)` for dgx (and `cluster.workers = n`), `n`
// for ring, mesh, switch and fattree; a file topology keeps its GPUs and trains on the first n
// (`cluster.workers = n`, at most what the file has). A torus has no single size key: give another network.
// A dgx network without nvlink_bw, nic_bw or pcie_bw takes each GPU type's own rates, as every run resolves a
// scenario (run/gpu_node.hpp): a plan's point and `syncsim run` of it give the same numbers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::planner {

struct PlanNetwork {
  std::string label;
  std::optional<TopologySpec> spec;  // nullopt: the scenario's own topology
};

struct PlanGrid {
  std::vector<std::int64_t> gpu_counts;
  std::vector<std::string> gpu_types;  // canonical names, or the scenario's inline GPU's label
  std::vector<PlanNetwork> networks;
};

// The items of a flag's list between separators, empty ones kept (for the caller to refuse).
std::vector<std::string> split_list(std::string_view text, char separator);

// The scenario's GPU by its catalog name (an alias resolved), or an inline GPU's own name; InputError at
// cluster.gpu for a name the catalog does not know.
std::string scenario_gpu_name(const Scenario& scenario);

// The `--set` override that puts `spec` in a scenario: cluster.topology=KIND:key=value,...
std::string topology_override(const TopologySpec& spec);

// Throws InputError at `--gpus` for an empty, malformed or non-advancing range.
std::vector<std::int64_t> parse_gpu_counts(std::string_view text);
// Throws InputError at `--gpu-types` naming an unknown GPU (with the catalog's names).
std::vector<std::string> parse_gpu_types(const std::vector<std::string>& args);
// Throws InputError at `--networks` for a malformed spec or a name given twice.
std::vector<PlanNetwork> parse_networks(const std::vector<std::string>& args);

// One point per (GPU type, network, count), labels {gpu, network, count}, in that nesting order. Throws
// InputError at `--gpus` for a count the topology cannot have (above a file's GPUs, a torus).
std::vector<SweepPoint> plan_points(const Scenario& base, const PlanGrid& grid);

// What the networks say against the GPU types' own nodes (run/gpu_node.hpp): one warning each, for stderr.
std::vector<std::string> node_warnings(const Scenario& base, const PlanGrid& grid);

// The table row of one simulated point (labels from plan_points): throughput, efficiency, the bottleneck as
// "compute", "stragglers" or "BOUND: RESOURCE", and, with a convergence section, time to target and best loss.
// Prices are the caller's.
PlanPoint plan_point(const SweepPoint& point, const TrainingReport& report);

}  // namespace syncsim::planner
