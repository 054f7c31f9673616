// ring, mesh and switch: single-tier topologies, every GPU one hop from its peers (or its switch).
//
//   ring:n=4            mesh:n=4               switch:n=4
//   gpu0 --- gpu1       gpu0 --- gpu1                 sw0
//    |        |          |  \   /  |          +-----+--+--+-----+
//   gpu3 --- gpu2        |   \ /   |          |     |     |     |
//                        |   / \   |        gpu0  gpu1  gpu2  gpu3
//                       gpu3 --- gpu2
#include <fmt/format.h>

#include "generators.hpp"

namespace syncsim::topology_detail {

namespace {
// A full mesh has n(n-1)/2 links; past this it is surely a typo for `switch`.
constexpr std::int64_t kMaxMeshGpus = 1024;
}  // namespace

std::vector<NodeId> add_gpus(Topology& topology, std::int64_t count, std::optional<int> host) {
  std::vector<NodeId> ids;
  ids.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const auto index = topology.gpu_count();
    ids.push_back(topology.add_node(Node{fmt::format("gpu{}", index), NodeKind::gpu, SimTime::zero(), host}));
  }
  return ids;
}

std::int64_t count_in_range(const SpecParams& params, std::string_view key, std::optional<std::int64_t> fallback,
                            std::int64_t minimum, std::int64_t maximum) {
  const std::int64_t value = params.count(key, fallback);
  if (value < minimum) params.fail(key, fmt::format("must be at least {}, got {}", minimum, value));
  if (value > maximum) params.fail(key, fmt::format("must be at most {}, got {}", maximum, value));
  return value;
}

Topology build_ring(const SpecParams& params) {
  const std::int64_t n = count_in_range(params, "n", std::nullopt, 2, kMaxGpus);
  const Bandwidth bw = params.bandwidth("bw");
  const SimTime lat = params.duration("lat", SimTime::zero());
  const LinkKind kind = params.link_kind("link_kind", LinkKind::network);
  Topology topology;
  const std::vector<NodeId> gpus = add_gpus(topology, n);
  // With two GPUs the "next" and "previous" neighbour are the same GPU: one physical link, not two.
  const std::int64_t links = n == 2 ? 1 : n;
  for (std::int64_t i = 0; i < links; ++i) {
    topology.add_duplex_link(gpus[static_cast<std::size_t>(i)], gpus[static_cast<std::size_t>((i + 1) % n)], bw, lat,
                             kind);
  }
  return topology;
}

Topology build_mesh(const SpecParams& params) {
  const std::int64_t n = count_in_range(params, "n", std::nullopt, 2, kMaxMeshGpus);
  const Bandwidth bw = params.bandwidth("bw");
  const SimTime lat = params.duration("lat", SimTime::zero());
  const LinkKind kind = params.link_kind("link_kind", LinkKind::nvlink);
  Topology topology;
  const std::vector<NodeId> gpus = add_gpus(topology, n);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) topology.add_duplex_link(gpus[i], gpus[j], bw, lat, kind);
  }
  return topology;
}

Topology build_switch(const SpecParams& params) {
  const std::int64_t n = count_in_range(params, "n", std::nullopt, 2, kMaxGpus);
  const Bandwidth bw = params.bandwidth("bw");
  const SimTime lat = params.duration("lat", SimTime::zero());
  const SimTime switch_lat = params.duration("switch_lat", SimTime::zero());
  const LinkKind kind = params.link_kind("link_kind", LinkKind::network);
  Topology topology;
  const std::vector<NodeId> gpus = add_gpus(topology, n);
  // The switch is whatever the links imply: NVLink into an NVSwitch, PCIe into a PCIe switch.
  const NodeKind switch_kind = kind == LinkKind::nvlink ? NodeKind::nvswitch
                               : kind == LinkKind::pcie ? NodeKind::pcie_switch
                                                        : NodeKind::network_switch;
  const std::string_view prefix = kind == LinkKind::nvlink ? "nvswitch" : kind == LinkKind::pcie ? "pcisw" : "sw";
  const NodeId hub = topology.add_node(Node{fmt::format("{}0", prefix), switch_kind, switch_lat, std::nullopt});
  for (const NodeId gpu : gpus) topology.add_duplex_link(gpu, hub, bw, lat, kind);
  return topology;
}

}  // namespace syncsim::topology_detail
