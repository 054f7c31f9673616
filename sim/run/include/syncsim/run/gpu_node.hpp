#pragma once
// A GPU's own node, applied wherever a scenario is resolved (`run`, `sweep`, `plan`, the Python module, the GUI), so
// that they all simulate the same machine for the same point: the catalog knows each GPU's NVLink rate per
// direction, the GPUs one NVLink domain joins as sold, and its reference node's NIC per GPU and host PCIe
// (gpu_spec.hpp), so a `dgx` topology that leaves `nvlink_bw`, `nic_bw` or `pcie_bw` out takes them from its GPU —
// on one spec an A100 node gets 300 GB/s NVLink and 200 Gb/s NICs, an H100 node 450 GB/s and 400 Gb/s, rather than
// the generator's own defaults — while what the spec gives is kept. A plan's network whose NVLink rate is not the
// GPU's, or that puts more GPUs on a node than the GPU's NVLink domain holds, is kept as written with a warning that
// names both (a NIC rate is the fabric's choice, not a contradiction).
#include <memory>
#include <string>
#include <vector>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::run {

// `spec` with the GPU's NVLink, NIC and PCIe rates where a dgx spec has none (other kinds, and what the catalog does
// not know, unchanged).
TopologySpec with_gpu_node(TopologySpec spec, const GpuSpec& gpu);

// What `spec` (the network labelled `network`) says against the GPU's own node: one sentence each.
std::vector<std::string> node_contradictions(const TopologySpec& spec, const std::string& network, const GpuSpec& gpu);

// The scenario's GPU: its inline spec, or the catalog's by name (InputError at cluster.gpu for an unknown one); on a
// GPU profile whose scenario runs kernels by shape, the catalog's GPU anchored on the profile (measured_kernel_gpu).
GpuSpec scenario_gpu(const Scenario& scenario);

// Whether the scenario's layers run by shape on its GPU profile: model.kernels, with no efficiency, step time or
// profiler trace setting the compute instead (compute_model.hpp). Without, a profile's rates run at efficiency 1.
bool profile_runs_kernels(const Scenario& scenario);

// The topology a scenario runs on: its spec with_gpu_node, built once (the loader's own when the GPU adds nothing);
// errors keyed at cluster.topology as the loader keys them.
std::shared_ptr<const Topology> node_topology(const Scenario& scenario, const GpuSpec& gpu);
std::shared_ptr<const Topology> node_topology(const Scenario& scenario);  // with scenario_gpu

}  // namespace syncsim::run
