// CollNetDirect and CollNetChain (InfiniBand SHARP): the SHARP trees found on the fabric, the bytes every link
// carries against the closed forms of collnet_plan.hpp, and when auto picks them.
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/collnet_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

CollectiveSpec allreduce(Algorithm algorithm, std::int64_t size) {
  CollectiveSpec spec;
  spec.size = Bytes{size};
  spec.algorithm = algorithm;
  spec.latency = LatencySource::physical;
  return spec;
}

// Bytes carried by the links from nodes of one kind to nodes of another.
double bytes_between(const Topology& topology, const CollectiveOutcome& out, NodeKind from, NodeKind to) {
  double bytes = 0;
  for (const LinkTraffic& link : out.links) {
    const Link& l = topology.link(link.link);
    if (topology.node(l.src).kind == from && topology.node(l.dst).kind == to) bytes += link.bytes_carried;
  }
  return bytes;
}

}  // namespace

TEST_CASE("SHARP trees: a leaf per rail when the nodes share it, the spine above two leaves", "[collnet]") {
  const Topology one_leaf = build_topology("dgx:nodes=4,gpus=8,sharp=on");
  Router router(one_leaf);
  const auto trees = sharp_trees(router, nccl_node_groups(one_leaf, 32));
  REQUIRE(trees.size() == 8);
  for (std::size_t q = 0; q < 8; ++q) {
    CHECK(trees[q].leaves.size() == 1);
    CHECK(!trees[q].root);
    CHECK(trees[q].heads ==
          std::vector<Rank>{Rank{static_cast<std::uint32_t>(q)}, Rank{static_cast<std::uint32_t>(8 + q)},
                            Rank{static_cast<std::uint32_t>(16 + q)}, Rank{static_cast<std::uint32_t>(24 + q)}});
  }
  CHECK(trees[0].leaves[0] != trees[1].leaves[0]);  // rail-optimized: a leaf per rail

  // Radix 4: two nodes per leaf, so each rail has two leaves joined by a spine.
  const Topology two_leaves = build_topology("dgx:nodes=4,gpus=2,radix=4,sharp=on");
  Router router2(two_leaves);
  const auto deep = sharp_trees(router2, nccl_node_groups(two_leaves, 8));
  REQUIRE(deep.size() == 2);
  CHECK(deep[0].leaves.size() == 2);
  REQUIRE(deep[0].root);
  CHECK(two_leaves.node(*deep[0].root).name.rfind("spine", 0) == 0);
  CHECK(deep[0].leaf_of == std::vector<std::uint32_t>{0, 0, 1, 1});

  // No SHARP, no trees.
  const Topology plain = build_topology("dgx:nodes=4,gpus=8");
  Router router3(plain);
  CHECK(sharp_trees(router3, nccl_node_groups(plain, 32)).empty());
}

TEST_CASE("CollNetDirect: each NIC carries S/g each way, each GPU's NVLink 2(g-1)/g S", "[collnet]") {
  const Topology topology = build_topology("dgx:nodes=4,gpus=8,nic_bw=200Gbps,sharp=on");
  Router router(topology);
  const double size = 64 << 20;
  const CollectiveOutcome out = simulate_collective(router, allreduce(Algorithm::collnet_direct, 64 << 20));
  CHECK(out.algorithm == Algorithm::collnet_direct);
  CHECK(out.channels == 1);
  // 32 NICs up S/8 each and 32 down; a ring would move 2 (31/32) S/8 through each.
  CHECK(bytes_between(topology, out, NodeKind::nic, NodeKind::network_switch) == Approx(32 * size / 8));
  CHECK(bytes_between(topology, out, NodeKind::network_switch, NodeKind::nic) == Approx(32 * size / 8));
  // Sent in all: per GPU 7 shards out (A), its shard up (B) and 7 copies out (E); per leaf its 4 heads' results.
  CHECK(out.stats.bytes_sent == Approx(32 * (7 + 1 + 7) * size / 8 + 8 * 4 * size / 8));
  CHECK(out.stats.bytes_reduced == Approx(32 * 7 * size / 8));  // the switches add the rest at line rate
}

TEST_CASE("CollNetDirect halves the NIC time of a ring on a NIC-bound cluster", "[collnet]") {
  const Topology topology = build_topology("dgx:nodes=4,gpus=8,nvlink_bw=450GB/s,nic_bw=200Gbps,sharp=on");
  Router router(topology);
  const std::int64_t size = std::int64_t{1} << 30;
  const CollectiveOutcome collnet = simulate_collective(router, allreduce(Algorithm::collnet_direct, size));
  const CollectiveOutcome ring = simulate_collective(router, allreduce(Algorithm::ring, size));
  // The NIC bound: S/8 each way at 25 GB/s; the ring's is 2 (31/32) S/8.
  const double nic_bound = static_cast<double>(size) / 8 / 25e9;
  CHECK(collnet.time.seconds() >= nic_bound);
  CHECK(collnet.time.seconds() <= 1.25 * nic_bound);  // the NVLink stages and the pipeline's fill on top
  CHECK(ring.time.seconds() / collnet.time.seconds() > 1.5);
}

TEST_CASE("CollNetChain: a chain per rail, each NIC carries its channel's S/C each way", "[collnet]") {
  const Topology topology = build_topology("dgx:nodes=3,gpus=4,nic_bw=200Gbps,sharp=on");
  Router router(topology);
  const double size = 32 << 20;
  const CollectiveOutcome out = simulate_collective(router, allreduce(Algorithm::collnet_chain, 32 << 20));
  CHECK(out.channels == 4);
  CHECK(bytes_between(topology, out, NodeKind::nic, NodeKind::network_switch) == Approx(3 * size));
  // Per channel and node: 3 hops up the chain and 3 down (S/4 each), the head's S/4 up; each leaf sends 3 results.
  CHECK(out.stats.bytes_sent == Approx(4 * 3 * (6 + 1) * size / 4 + 4 * 3 * size / 4));
  CHECK(out.stats.bytes_reduced == Approx(4 * 3 * 3 * size / 4));
}

TEST_CASE("CollNet over two levels: the leaves' partial sums meet in the spine", "[collnet]") {
  const Topology topology = build_topology("dgx:nodes=4,gpus=2,radix=4,sharp=on");
  Router router(topology);
  const double size = 8 << 20;
  for (const Algorithm algorithm : {Algorithm::collnet_direct, Algorithm::collnet_chain}) {
    const CollectiveOutcome out = simulate_collective(router, allreduce(algorithm, 8 << 20));
    // Each rail: 4 heads up (S/2 each), 2 leaves to the spine and back; under Direct and Chain alike, S/2 per rail.
    CHECK(bytes_between(topology, out, NodeKind::nic, NodeKind::network_switch) == Approx(2 * 4 * size / 2));
    CHECK(bytes_between(topology, out, NodeKind::network_switch, NodeKind::network_switch) ==
          Approx(2 * 2 * 2 * size / 2));
  }
}

TEST_CASE("CollNet needs SHARP, auto runs it on SHARP fabrics where it is cheaper", "[collnet]") {
  const Topology plain = build_topology("dgx:nodes=4,gpus=8");
  Router router(plain);
  CHECK_THROWS_WITH(simulate_collective(router, allreduce(Algorithm::collnet_direct, 1 << 20)),
                    Catch::Contains("needs network switches that reduce (InfiniBand SHARP): sharp=on"));
  CollectiveSpec spec;
  spec.size = Bytes{std::int64_t{1} << 30};
  spec.protocol = Protocol::ll;
  spec.latency = LatencySource::nccl;
  spec.algorithm = Algorithm::collnet_chain;
  const Topology sharp = build_topology("dgx:nodes=4,gpus=8,sharp=on");
  Router router2(sharp);
  CHECK_THROWS_WITH(simulate_collective(router2, spec), Catch::Contains("Simple protocol only"));

  CollectiveSpec automatic;
  automatic.size = Bytes{std::int64_t{1} << 30};
  CHECK(is_collnet(simulate_collective(router2, automatic).algorithm));
  CHECK(!is_collnet(simulate_collective(router, automatic).algorithm));
  // Without NVSwitches (one GPU per node on a fat tree) NCCL runs the chain only.
  const Topology fabric = build_topology("fattree:n=8,radix=8,bw=100Gbps,sharp=on");
  Router router3(fabric);
  CHECK(simulate_collective(router3, automatic).algorithm == Algorithm::collnet_chain);
}
