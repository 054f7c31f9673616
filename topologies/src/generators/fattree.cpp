// fattree: a two- or three-tier Clos of radix-k switches, with an oversubscription ratio at the first uplink.
//
// Every link runs at bw, as in a real fabric; oversubscription is in the port count, not the link speed. A leaf
// gives k/2 ports to GPUs and u = ceil((k/2) / oversub) to the tier above, one to each of u spines (a ratio that
// does not divide k/2 rounds to whole uplinks, i.e. slightly less oversubscribed). So one flow crossing leaves
// still runs at bw, while a leaf whose GPUs all send out shares u uplinks: 1/oversub of their bandwidth each.
//
// Two tiers (leaf/spine):
//
//        spine0      spine1          (u spines; u = k/2 when oversub = 1)
//         |    \    /    |
//         |     \  /     |           every leaf <-> every spine, bw each
//         |      \/      |
//         |      /\      |
//        leaf0       leaf1           (ceil(n / (k/2)) leaves, at most k)
//        /   \       /   \           bw each
//     gpu0  gpu1  gpu2  gpu3         GPU i under leaf i / (k/2)
//
// Three tiers (k-ary fat tree): pods of k/2 edge and u aggregation switches, every edge linked to every
// aggregation switch of its pod; aggregation switch j of every pod links to core switches j*k/2 .. j*k/2 + k/2 - 1.
// At most k pods of k^2/4 GPUs: k^3/4 GPUs.
//
// sharp=on makes every switch reduce in the network (InfiniBand SHARP, NCCL's CollNet); off by default.
//
// Only the edge switches (leaves) the GPUs need are built, but every spine, and every aggregation switch of a pod
// in use, so that ECMP has all its equal-cost paths. A single pod needs no core, so none is built then.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "generators.hpp"

namespace syncsim::topology_detail {

namespace {

struct FatTreeShape {
  std::int64_t n;
  std::int64_t radix;
  Bandwidth bw;
  std::int64_t uplinks;  // per leaf (edge): ceil((k/2) / oversub)
  SimTime lat;
  SimTime switch_lat;
  SwitchReduction sharp;  // every switch reduces (InfiniBand SHARP) or none does
};

NodeId add_switch(Topology& topology, std::string_view prefix, std::int64_t index, const FatTreeShape& shape) {
  return topology.add_node(
      Node{fmt::format("{}{}", prefix, index), NodeKind::network_switch, shape.switch_lat, std::nullopt, shape.sharp});
}

void attach_gpus(Topology& topology, const FatTreeShape& shape, const std::vector<NodeId>& gpus,
                 const std::vector<NodeId>& leaves) {
  const std::int64_t half = shape.radix / 2;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    topology.add_duplex_link(gpus[i], leaves[i / static_cast<std::size_t>(half)], shape.bw, shape.lat,
                             LinkKind::network);
  }
}

Topology two_tier(const FatTreeShape& shape) {
  const std::int64_t half = shape.radix / 2;
  Topology topology;
  const std::vector<NodeId> gpus = add_gpus(topology, shape.n);
  std::vector<NodeId> leaves;
  for (std::int64_t l = 0; l < ceil_div(shape.n, half); ++l) leaves.push_back(add_switch(topology, "leaf", l, shape));
  std::vector<NodeId> spines;
  for (std::int64_t s = 0; s < shape.uplinks; ++s) {
    spines.push_back(add_switch(topology, "spine", s, shape));
  }
  attach_gpus(topology, shape, gpus, leaves);
  for (const NodeId leaf : leaves) {
    for (const NodeId spine : spines) {
      topology.add_duplex_link(leaf, spine, shape.bw, shape.lat, LinkKind::network);
    }
  }
  return topology;
}

Topology three_tier(const FatTreeShape& shape) {
  const std::int64_t half = shape.radix / 2;
  const std::int64_t edge_count = ceil_div(shape.n, half);
  const std::int64_t pod_count = ceil_div(edge_count, half);
  Topology topology;
  const std::vector<NodeId> gpus = add_gpus(topology, shape.n);
  std::vector<NodeId> edges;
  for (std::int64_t e = 0; e < edge_count; ++e) edges.push_back(add_switch(topology, "edge", e, shape));
  std::vector<NodeId> aggs;
  const std::int64_t u = shape.uplinks;
  for (std::int64_t a = 0; a < pod_count * u; ++a) aggs.push_back(add_switch(topology, "agg", a, shape));
  std::vector<NodeId> cores;
  if (pod_count > 1) {
    for (std::int64_t c = 0; c < u * half; ++c) cores.push_back(add_switch(topology, "core", c, shape));
  }
  attach_gpus(topology, shape, gpus, edges);
  for (std::int64_t e = 0; e < edge_count; ++e) {
    const std::int64_t pod = e / half;
    for (std::int64_t a = 0; a < u; ++a) {
      topology.add_duplex_link(edges[static_cast<std::size_t>(e)], aggs[static_cast<std::size_t>(pod * u + a)],
                               shape.bw, shape.lat, LinkKind::network);
    }
  }
  for (std::size_t c = 0; c < cores.size(); ++c) {
    const std::int64_t group = static_cast<std::int64_t>(c) / half;  // aggregation switch index within a pod
    for (std::int64_t pod = 0; pod < pod_count; ++pod) {
      topology.add_duplex_link(aggs[static_cast<std::size_t>(pod * u + group)], cores[c], shape.bw, shape.lat,
                               LinkKind::network);
    }
  }
  return topology;
}

}  // namespace

Topology build_fattree(const SpecParams& params) {
  const std::int64_t n = count_in_range(params, "n", std::nullopt, 2, kMaxGpus);
  const std::int64_t radix = count_in_range(params, "radix", 16, 4, 1024);
  if (radix % 2 != 0) params.fail("radix", fmt::format("must be even (half the ports face down), got {}", radix));
  const std::int64_t tiers = count_in_range(params, "tiers", 2, 2, 3);
  const Bandwidth bw = params.bandwidth("bw");
  const SimTime lat = params.duration("lat", SimTime::zero());
  const SimTime switch_lat = params.duration("switch_lat", SimTime::zero());
  const double oversub = params.number("oversub", 1.0);
  if (!(oversub >= 1.0))
    params.fail("oversub", fmt::format("must be a ratio of at least 1 (like 4 for 4:1), got {}", oversub));

  const std::int64_t half = radix / 2;
  const std::int64_t capacity = tiers == 2 ? radix * half : radix * radix * radix / 4;
  if (n > capacity) {
    params.fail("n", tiers == 2 ? fmt::format("a 2-tier fat tree of radix {} holds at most {} GPUs, got {}; use "
                                              "tiers=3 or a larger radix",
                                              radix, capacity, n)
                                : fmt::format("a 3-tier fat tree of radix {} holds at most {} GPUs, got {}; use a "
                                              "larger radix",
                                              radix, capacity, n));
  }
  const auto uplinks =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(half) / oversub)));
  const SwitchReduction sharp = params.switch_reduction("sharp", SwitchReduction::off);
  const FatTreeShape shape{n, radix, bw, uplinks, lat, switch_lat, sharp};
  return tiers == 2 ? two_tier(shape) : three_tier(shape);
}

}  // namespace syncsim::topology_detail
