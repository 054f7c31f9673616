#pragma once
// The `cluster:` section of a scenario: the GPU kind, the topology and how many of its GPUs train.
//
//   cluster:
//     gpu: A100-SXM4-80GB                       # a catalog name (resolved by the compute model), or inline:
//     # gpu: {name: my-gpu, peak_tflops: {fp32: 19.5, fp16: 312}, mem_bw: 2TB/s, mem: 80GB}
//     # gpu: {name: H100-SXM-80GB, power_limit: 500W}   # a catalog GPU under a board-power cap
//     topology: {kind: dgx, nodes: 4, gpus: 8}  # or the spec string "dgx:nodes=4,gpus=8"
//     workers: 16                               # optional: the first 16 GPUs; default all
//     speed_spread: 0.01                        # optional: the chips' speed spread (chip_spread.hpp); 0: identical
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "syncsim/compute/chip_spread.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim {

struct GpuConfig {
  // A catalog name (not resolved here: the compute model owns the catalog), or an inline GPU's label.
  Located<std::string> name;
  // Set when the file defines the GPU itself (built with make_gpu_spec). In the file peaks are TFLOP/s, fp32
  // required; a single number gives every precision the same peak.
  std::optional<GpuSpec> inline_spec;
  // Set when the GPU comes from a GPU profile (gpu_profile.hpp; `gpu: {profile: results.json}`), the path resolved
  // against the scenario's folder; inline_spec then holds the measured GPU, and compute starts from efficiency 1.
  std::optional<Located<std::string>> profile;
  // A board-power cap in watts (`gpu: {name: H100-SXM-80GB, power_limit: 500W}`), at most the catalog GPU's board
  // power (checked where the GPU is resolved): it lowers the compute clock (compute_model.hpp).
  std::optional<Located<double>> power_limit;
};

// A topology as built from a spec, with the spec (kind and values) it was built from.
struct BuiltTopology {
  std::string kind;
  std::map<std::string, std::string> params;
  Topology topology;
};

struct ClusterConfig {
  GpuConfig gpu;
  // Built by build_topology(); every value keeps its place in the file (param_locations), so a topology error
  // points into the scenario. See build_scenario_topology() for the key paths.
  TopologySpec topology;
  // How many GPUs train (ranks 0..workers-1 on GPUs 0..workers-1); nullopt: every GPU of the topology.
  std::optional<Located<std::int64_t>> workers;
  // The standard deviation of the chips' compute speed, a fraction of the median chip's (chip_spread.hpp): the job
  // computes at its slowest chip's pace. nullopt: kDefaultSpeedSpread.
  std::optional<Located<double>> speed_spread;
  double speed_spread_or_default() const { return speed_spread ? speed_spread->value : kDefaultSpeedSpread; }
  // The topology the loader built from `topology` and checked the scenario against. The run, the GUI and the
  // planner take it through scenario_topology() (scenario_loader.hpp) rather than build it again; null in a
  // scenario made in code. Immutable, so copies of the scenario share it, across threads too.
  std::shared_ptr<const BuiltTopology> built;
};

}  // namespace syncsim
