#pragma once
// A GPU type's own node in a plan (`--gpu-types` x `--networks`): the catalog knows each GPU's NVLink rate per
// direction and the GPUs one NVLink domain joins as sold (gpu_spec.hpp), so a `dgx` fabric that leaves `nvlink_bw`
// out takes the rate of the GPU planned on it — an A100 node gets 300 GB/s and an H100 node 450 GB/s on one
// fabric spec — and a spec that gives a rate, or more GPUs per node than the GPU's NVLink domain holds, is kept as
// written, with a warning that names both.
#include <string>
#include <vector>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::planner {

// `spec` with the GPU's NVLink rate where a dgx spec has none (other kinds, and GPUs without NVLink, unchanged).
TopologySpec with_gpu_node(TopologySpec spec, const GpuSpec& gpu);

// What `spec` (the network labelled `network`) says against the GPU's own node: one sentence each.
std::vector<std::string> node_contradictions(const TopologySpec& spec, const std::string& network, const GpuSpec& gpu);

}  // namespace syncsim::planner
