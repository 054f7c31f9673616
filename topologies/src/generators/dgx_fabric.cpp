#include "dgx_fabric.hpp"
#include "generators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace syncsim::topology_detail {

namespace {

// The largest radix a spec may name (spec key `radix`); the overflow error searches no further.
constexpr std::int64_t kMaxRadix = 1024;

std::int64_t uplinks(std::int64_t down, double oversub) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(down) / oversub)));
}

// Pods per rail plane at a radix: leaves of radix/2 nodes, pods of radix/2 leaves.
std::int64_t pods_at(std::int64_t nodes, std::int64_t radix) {
  const std::int64_t half = radix / 2;
  return ceil_div(ceil_div(nodes, std::min(nodes, half)), half);
}

// The smallest even radix above `radix` whose core switches have a port for every pod of a plane.
std::optional<std::int64_t> radix_that_builds(std::int64_t nodes, std::int64_t radix) {
  for (std::int64_t r = radix + 2; r <= kMaxRadix; r += 2) {
    if (pods_at(nodes, r) <= r) return r;
  }
  return std::nullopt;
}

NodeId add_switch(Topology& topology, std::string name, SwitchReduction reduction) {
  return topology.add_node(Node{std::move(name), NodeKind::network_switch, SimTime::zero(), std::nullopt, reduction});
}

}  // namespace

DgxFabricShape plan_dgx_fabric(const SpecParams& params, std::int64_t nodes, std::int64_t rails, std::int64_t radix,
                               double oversub, double core_oversub) {
  DgxFabricShape shape;
  shape.nodes = nodes;
  shape.rails = rails;
  shape.radix = radix;
  const std::int64_t half = radix / 2;
  shape.nodes_per_leaf = std::min(nodes, half);
  shape.leaves_per_rail = ceil_div(nodes, shape.nodes_per_leaf);
  shape.leaf_uplinks = uplinks(shape.nodes_per_leaf, oversub);
  shape.shared_spines = rails * shape.leaves_per_rail <= radix;
  if (shape.shared_spines) return shape;

  shape.pods = ceil_div(shape.leaves_per_rail, half);
  shape.leaves_per_pod = std::min(shape.leaves_per_rail, half);
  if (shape.pods > radix) {
    const std::optional<std::int64_t> enough = radix_that_builds(nodes, radix);
    params.fail("radix",
                fmt::format("the core tier overflows: a rail plane of {} nodes needs {} pods of {} leaves and a core "
                            "switch joins one port per pod, but the radix is {} ({})",
                            nodes, shape.pods, half, radix,
                            enough ? fmt::format("radix={} builds it", *enough)
                                   : fmt::format("no radix up to {} builds it", kMaxRadix)));
  }
  if (shape.pods > 1) {
    shape.spine_uplinks = uplinks(half, core_oversub);
    for (std::int64_t m = shape.spine_uplinks; m >= 1; --m) {
      if (shape.spine_uplinks % m == 0 && m * shape.pods <= radix) {
        shape.links_per_core = m;
        break;
      }
    }
  }
  return shape;
}

std::vector<NodeId> add_dgx_fabric(Topology& topology, const DgxFabricShape& shape, Bandwidth bandwidth,
                                   SimTime latency, SwitchReduction reduction) {
  std::vector<NodeId> leaves;
  const std::int64_t leaf_count = shape.rails * shape.leaves_per_rail;
  for (std::int64_t l = 0; l < leaf_count; ++l)
    leaves.push_back(add_switch(topology, fmt::format("leaf{}", l), reduction));
  if (shape.shared_spines) {
    // Spines after all leaves, each joined to every leaf: the order (and so every id) syncsim always had.
    for (std::int64_t s = 0; s < shape.leaf_uplinks; ++s) {
      const NodeId spine = add_switch(topology, fmt::format("spine{}", s), reduction);
      for (const NodeId leaf : leaves) topology.add_duplex_link(leaf, spine, bandwidth, latency, LinkKind::network);
    }
    return leaves;
  }
  const std::int64_t u = shape.leaf_uplinks;
  const std::int64_t m = shape.links_per_core;
  const std::int64_t cores_per_group = m > 0 ? shape.spine_uplinks / m : 0;
  for (std::int64_t r = 0; r < shape.rails; ++r) {
    // spines[p * u + s]: spine s of pod p in this rail's plane.
    std::vector<NodeId> spines;
    for (std::int64_t p = 0; p < shape.pods; ++p) {
      for (std::int64_t s = 0; s < u; ++s) {
        spines.push_back(add_switch(topology, fmt::format("spine{}", (r * shape.pods + p) * u + s), reduction));
      }
      const std::int64_t first = p * shape.leaves_per_pod;
      const std::int64_t last = std::min(shape.leaves_per_rail, first + shape.leaves_per_pod);
      for (std::int64_t i = first; i < last; ++i) {
        const NodeId leaf = leaves[static_cast<std::size_t>(r * shape.leaves_per_rail + i)];
        for (std::int64_t s = 0; s < u; ++s) {
          topology.add_duplex_link(leaf, spines[static_cast<std::size_t>(p * u + s)], bandwidth, latency,
                                   LinkKind::network);
        }
      }
    }
    if (!shape.has_cores()) continue;
    for (std::int64_t s = 0; s < u; ++s) {
      for (std::int64_t k = 0; k < cores_per_group; ++k) {
        const NodeId core = add_switch(topology, fmt::format("core{}", (r * u + s) * cores_per_group + k), reduction);
        for (std::int64_t p = 0; p < shape.pods; ++p) {
          for (std::int64_t link = 0; link < m; ++link) {
            topology.add_duplex_link(spines[static_cast<std::size_t>(p * u + s)], core, bandwidth, latency,
                                     LinkKind::network);
          }
        }
      }
    }
  }
  return leaves;
}

}  // namespace syncsim::topology_detail
