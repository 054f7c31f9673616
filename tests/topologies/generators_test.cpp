// Generators: node and link counts against each shape's formula, plus the details each shape promises.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

std::size_t count_nodes(const Topology& topology, NodeKind kind) {
  std::size_t count = 0;
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) count += topology.node(NodeId{v}).kind == kind ? 1 : 0;
  return count;
}

std::size_t duplex_links(const Topology& topology) {
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) REQUIRE(topology.link(LinkId{l}).reverse != LinkId{l});
  return topology.link_count() / 2;
}

// Names of the nodes a node links to.
std::set<std::string> neighbours(const Topology& topology, NodeId id) {
  std::set<std::string> names;
  for (const LinkId l : topology.out_links(id)) names.insert(topology.node(topology.link(l).dst).name);
  return names;
}

const Link* link_between(const Topology& topology, NodeId a, NodeId b) {
  for (const LinkId l : topology.out_links(a)) {
    if (topology.link(l).dst == b) return &topology.link(l);
  }
  return nullptr;
}

NodeId node_named(const Topology& topology, const std::string& name) {
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    if (topology.node(NodeId{v}).name == name) return NodeId{v};
  }
  FAIL("no node " << name);
  return NodeId{};
}

}  // namespace

TEST_CASE("ring: n GPUs, n duplex links, two neighbours each", "[generators]") {
  const Topology ring = build_topology("ring:n=8,bw=100Gbps,lat=1us");
  CHECK(ring.node_count() == 8);
  CHECK(ring.gpu_count() == 8);
  CHECK(duplex_links(ring) == 8);
  CHECK(neighbours(ring, ring.gpu(0)) == std::set<std::string>{"gpu1", "gpu7"});
  CHECK(ring.node(ring.gpu(3)).name == "gpu3");
  const Link& link = ring.link(ring.out_links(ring.gpu(0))[0]);
  CHECK(link.bandwidth == Bandwidth::from_gbps(100));
  CHECK(link.latency == SimTime::from_us(1));
  CHECK(link.kind == LinkKind::network);
}

TEST_CASE("ring of two has one link, not two between the same pair", "[generators]") {
  const Topology ring = build_topology("ring:n=2,bw=100Gbps");
  CHECK(duplex_links(ring) == 1);
  CHECK(build_topology("ring:n=3,bw=1Gbps,link_kind=nvlink").link(LinkId{0}).kind == LinkKind::nvlink);
}

TEST_CASE("mesh: n(n-1)/2 NVLink links", "[generators]") {
  const Topology mesh = build_topology("mesh:n=5,bw=300GB/s,lat=700ns");
  CHECK(mesh.node_count() == 5);
  CHECK(duplex_links(mesh) == 10);
  CHECK(mesh.link(LinkId{0}).kind == LinkKind::nvlink);
  CHECK(mesh.out_links(mesh.gpu(2)).size() == 4);
}

TEST_CASE("switch: n GPUs and one switch, one link per GPU", "[generators]") {
  const Topology star = build_topology("switch:n=8,bw=100Gbps,lat=5us,switch_lat=200ns");
  CHECK(star.node_count() == 9);
  CHECK(duplex_links(star) == 8);
  CHECK(count_nodes(star, NodeKind::network_switch) == 1);
  const NodeId hub = node_named(star, "sw0");
  CHECK(star.node(hub).latency == SimTime::from_ns(200));
  CHECK(star.out_links(hub).size() == 8);
  // NVLink into a switch makes the switch an NVSwitch.
  const Topology nv = build_topology("switch:n=4,bw=300GB/s,link_kind=nvlink");
  CHECK(count_nodes(nv, NodeKind::nvswitch) == 1);
}

TEST_CASE("torus: one link per GPU per dimension, one per pair in a dimension of 2", "[generators]") {
  SECTION("4x4") {
    const Topology torus = build_topology("torus:dims=4x4,bw=50GB/s");
    CHECK(torus.gpu_count() == 16);
    CHECK(duplex_links(torus) == 32);
  }
  SECTION("3x3, row-major with wraparound") {
    const Topology torus = build_topology("torus:dims=3x3,bw=50GB/s");
    CHECK(neighbours(torus, torus.gpu(0)) == std::set<std::string>{"gpu1", "gpu2", "gpu3", "gpu6"});
    CHECK(neighbours(torus, torus.gpu(4)) == std::set<std::string>{"gpu1", "gpu3", "gpu5", "gpu7"});
  }
  SECTION("4x4x4") {
    CHECK(duplex_links(build_topology("torus:dims=4x4x4,bw=50GB/s")) == 64 * 3);
  }
  SECTION("2x3: the size-2 dimension has 3 links, the size-3 one 6") {
    CHECK(duplex_links(build_topology("torus:dims=2x3,bw=50GB/s")) == 3 + 6);
  }
  SECTION("2x2x2 is a cube") {
    const Topology cube = build_topology("torus:dims=2x2x2,bw=50GB/s");
    CHECK(duplex_links(cube) == 12);
    CHECK(neighbours(cube, cube.gpu(0)) == std::set<std::string>{"gpu1", "gpu2", "gpu4"});
  }
}

TEST_CASE("fattree, 2 tiers: ceil(n/(k/2)) leaves, ceil((k/2)/oversub) spines, leaf-spine full bipartite",
          "[generators]") {
  // radix 8: 4 GPU ports per leaf; oversub 2 leaves 2 uplinks per leaf, so 2 spines.
  const Topology tree = build_topology("fattree:n=32,radix=8,bw=100Gbps,lat=1us,oversub=2");
  CHECK(tree.gpu_count() == 32);
  CHECK(count_nodes(tree, NodeKind::network_switch) == 8 + 2);
  CHECK(duplex_links(tree) == 32 + 8 * 2);
  const NodeId leaf1 = node_named(tree, "leaf1");
  CHECK(neighbours(tree, tree.gpu(5)) == std::set<std::string>{"leaf1"});
  CHECK(neighbours(tree, leaf1) == std::set<std::string>{"gpu4", "gpu5", "gpu6", "gpu7", "spine0", "spine1"});
  // Oversubscription is in the port count: every link runs at bw.
  CHECK(link_between(tree, leaf1, node_named(tree, "spine1"))->bandwidth == Bandwidth::from_gbps(100));
  CHECK(link_between(tree, tree.gpu(5), leaf1)->bandwidth == Bandwidth::from_gbps(100));
  // A ratio that does not divide the down ports rounds to whole uplinks: 4 / 3 -> 2 uplinks.
  CHECK(count_nodes(build_topology("fattree:n=32,radix=8,bw=100Gbps,oversub=3"), NodeKind::network_switch) == 8 + 2);
  CHECK(count_nodes(build_topology("fattree:n=32,radix=8,bw=100Gbps,oversub=8"), NodeKind::network_switch) == 8 + 1);

  const Topology partial = build_topology("fattree:n=30,radix=8,bw=100Gbps");
  CHECK(count_nodes(partial, NodeKind::network_switch) == 8 + 4);
  CHECK(duplex_links(partial) == 30 + 8 * 4);
  CHECK(count_nodes(build_topology("fattree:n=128,bw=100Gbps"), NodeKind::network_switch) == 16 + 8);
}

TEST_CASE("fattree, 3 tiers: the k-ary fat tree", "[generators]") {
  SECTION("k=4 full: 16 GPUs, 20 switches, 48 links") {
    const Topology tree = build_topology("fattree:n=16,radix=4,tiers=3,bw=10Gbps");
    CHECK(count_nodes(tree, NodeKind::network_switch) == 8 + 8 + 4);
    CHECK(duplex_links(tree) == 48);
    // Aggregation switch 1 of every pod reaches cores 2 and 3.
    const NodeId agg3 = node_named(tree, "agg3");  // pod 1, second aggregation switch
    CHECK(neighbours(tree, agg3) == std::set<std::string>{"edge2", "edge3", "core2", "core3"});
    CHECK(link_between(tree, agg3, node_named(tree, "core2"))->bandwidth == Bandwidth::from_gbps(10));
  }
  SECTION("oversub 2 halves the edge uplinks: one aggregation switch per pod, 2 cores") {
    const Topology tree = build_topology("fattree:n=16,radix=4,tiers=3,bw=10Gbps,oversub=2");
    CHECK(count_nodes(tree, NodeKind::network_switch) == 8 + 4 + 2);
    CHECK(duplex_links(tree) == 16 + 8 + 8);
    const NodeId agg1 = node_named(tree, "agg1");  // pod 1's only aggregation switch
    CHECK(neighbours(tree, agg1) == std::set<std::string>{"edge2", "edge3", "core0", "core1"});
    REQUIRE(link_between(tree, node_named(tree, "edge2"), agg1) != nullptr);
    CHECK(link_between(tree, node_named(tree, "edge2"), agg1)->bandwidth == Bandwidth::from_gbps(10));
  }
  SECTION("one pod needs no core") {
    const Topology tree = build_topology("fattree:n=4,radix=4,tiers=3,bw=10Gbps");
    CHECK(count_nodes(tree, NodeKind::network_switch) == 2 + 2);
    CHECK(duplex_links(tree) == 4 + 2 * 2);
  }
  SECTION("a partial pod keeps all its aggregation switches") {
    const Topology tree = build_topology("fattree:n=10,radix=4,tiers=3,bw=10Gbps");
    // 5 edges in 3 pods: 6 aggregation switches, 4 cores.
    CHECK(count_nodes(tree, NodeKind::network_switch) == 5 + 6 + 4);
    CHECK(duplex_links(tree) == 10 + 5 * 2 + 4 * 3);
  }
}

TEST_CASE("dgx: NVSwitch per node, a NIC per rail, rail leaves and spines", "[generators]") {
  SECTION("2 nodes of 8 with the defaults") {
    const Topology dgx = build_topology("dgx:nodes=2");
    CHECK(dgx.gpu_count() == 16);
    CHECK(count_nodes(dgx, NodeKind::nvswitch) == 2);
    CHECK(count_nodes(dgx, NodeKind::nic) == 16);
    CHECK(count_nodes(dgx, NodeKind::network_switch) == 8 + 2);  // a leaf per rail, one spine per node below
    CHECK(duplex_links(dgx) == 16 + 16 + 16 + 8 * 2);
    const NodeId gpu9 = dgx.gpu(9);
    CHECK(dgx.node(gpu9).host == std::optional<int>{1});
    CHECK(neighbours(dgx, gpu9) == std::set<std::string>{"nvswitch1", "nic9"});
    CHECK(neighbours(dgx, node_named(dgx, "nic9")) == std::set<std::string>{"gpu9", "leaf1"});
    CHECK(link_between(dgx, gpu9, node_named(dgx, "nvswitch1"))->bandwidth == Bandwidth::from_gb_per_s(300));
    CHECK(link_between(dgx, gpu9, node_named(dgx, "nvswitch1"))->latency == SimTime::from_ns(700));
    CHECK(link_between(dgx, gpu9, node_named(dgx, "nic9"))->kind == LinkKind::pcie);
    // Every network link runs at NIC speed; a leaf has as many uplinks as nodes below it (oversub 1).
    CHECK(link_between(dgx, node_named(dgx, "leaf0"), node_named(dgx, "spine1"))->bandwidth ==
          Bandwidth::from_gbps(200));
    CHECK(count_nodes(build_topology("dgx:nodes=8,oversub=4"), NodeKind::network_switch) == 8 + 2);
  }
  SECTION("fewer rails share a NIC between neighbouring GPUs") {
    const Topology dgx = build_topology("dgx:nodes=2,rails=4");
    CHECK(count_nodes(dgx, NodeKind::nic) == 8);
    CHECK(neighbours(dgx, dgx.gpu(3)) == std::set<std::string>{"nvswitch0", "nic1"});
    CHECK(neighbours(dgx, dgx.gpu(14)) == std::set<std::string>{"nvswitch1", "nic7"});
  }
  SECTION("more nodes than a leaf's down ports: several leaves per rail") {
    const Topology dgx = build_topology("dgx:nodes=6,gpus=2,radix=8");
    // 4 nodes per leaf, 2 leaves per rail, 2 rails.
    CHECK(count_nodes(dgx, NodeKind::network_switch) == 4 + 4);
    CHECK(neighbours(dgx, node_named(dgx, "nic9")) == std::set<std::string>{"gpu9", "leaf3"});  // node 4, rail 1
    CHECK(link_between(dgx, node_named(dgx, "leaf0"), node_named(dgx, "spine0"))->bandwidth ==
          Bandwidth::from_gbps(200));  // 4 nodes below each leaf: 4 uplinks to 4 spines
  }
  SECTION("a single node still builds its fabric") {
    const Topology dgx = build_topology("dgx:nodes=1,gpus=4,radix=4");
    CHECK(dgx.gpu_count() == 4);
    CHECK(count_nodes(dgx, NodeKind::network_switch) == 4 + 1);
  }
  SECTION("NVLink domains of several nodes: two GB200 NVL72 racks of 18 trays of 4 GPUs") {
    const Topology racks = build_topology("dgx:nodes=36,gpus=4,nvlink_domain=18,nvlink_bw=900GB/s,nic_bw=400Gbps");
    CHECK(racks.gpu_count() == 144);
    CHECK(count_nodes(racks, NodeKind::nvswitch) == 2);  // one fabric per rack
    CHECK(count_nodes(racks, NodeKind::nic) == 144);     // every GPU keeps its own rail
    // Trays are the hosts (as nccl-tests reports them); a rack's NVSwitch fabric belongs to none of them.
    CHECK(racks.node(racks.gpu(5)).host == std::optional<int>{1});
    CHECK(racks.node(racks.gpu(71)).host == std::optional<int>{17});
    CHECK_FALSE(racks.node(node_named(racks, "nvswitch0")).host);
    CHECK(neighbours(racks, racks.gpu(71)) == std::set<std::string>{"nvswitch0", "nic71"});
    CHECK(neighbours(racks, racks.gpu(72)) == std::set<std::string>{"nvswitch1", "nic72"});
    CHECK(link_between(racks, racks.gpu(72), node_named(racks, "nvswitch1"))->bandwidth ==
          Bandwidth::from_gb_per_s(900));
    // nvlink_domain=1 (the default) is the per-node NVSwitch of a DGX, node for node and link for link.
    const Topology one = build_topology("dgx:nodes=2,nvlink_domain=1");
    const Topology plain = build_topology("dgx:nodes=2");
    REQUIRE(one.node_count() == plain.node_count());
    REQUIRE(one.link_count() == plain.link_count());
    for (std::uint32_t i = 0; i < one.node_count(); ++i) CHECK(one.node(NodeId{i}).name == plain.node(NodeId{i}).name);
    CHECK(one.node(node_named(one, "nvswitch1")).host == std::optional<int>{1});
  }
}
