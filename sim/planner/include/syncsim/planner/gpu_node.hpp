#pragma once
// A GPU type's own node in a plan (`--gpu-types` x `--networks`): the catalog knows each GPU's NVLink rate per
// direction, the GPUs one NVLink domain joins as sold, and its reference node's NIC per GPU and host PCIe
// (gpu_spec.hpp), so a `dgx` fabric that leaves `nvlink_bw`, `nic_bw` or `pcie_bw` out takes them from the GPU
// planned on it — on one fabric spec an A100 node gets 300 GB/s NVLink and 200 Gb/s NICs, an H100 node 450 GB/s
// and 400 Gb/s — while what the spec gives is kept. A spec whose NVLink rate is not the GPU's, or that puts more
// GPUs on a node than the GPU's NVLink domain holds, is kept as written with a warning that names both (a NIC rate
// is the fabric's choice, not a contradiction).
#include <string>
#include <vector>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::planner {

// `spec` with the GPU's NVLink, NIC and PCIe rates where a dgx spec has none (other kinds, and what the catalog does
// not know, unchanged).
TopologySpec with_gpu_node(TopologySpec spec, const GpuSpec& gpu);

// What `spec` (the network labelled `network`) says against the GPU's own node: one sentence each.
std::vector<std::string> node_contradictions(const TopologySpec& spec, const std::string& network, const GpuSpec& gpu);

}  // namespace syncsim::planner
