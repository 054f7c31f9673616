// place_servers on small topologies whose every link is known: where the servers go, and what joins them.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "syncsim/training/server_placement.hpp"

using namespace syncsim;

// Four GPUs on one switch, 100 Gbps (12.5 GB/s) and 2 us per link.
TEST_CASE("dedicated servers hang off the one switch of a star with a GPU's link, or the NIC given") {
  const Topology star = build_topology("switch:n=4,bw=100Gbps,lat=2us");
  Router network(star);
  const PlacedServers placed = place_servers(network, 2, ServerPlacement::dedicated, std::nullopt, 4);
  REQUIRE(placed.servers.size() == 2);
  CHECK(placed.topology.node_count() == star.node_count() + 2);
  CHECK(placed.server_link.bytes_per_second == Approx(12.5e9));
  for (std::size_t j = 0; j < 2; ++j) {
    const NodeId server = placed.servers[j];
    CHECK(placed.topology.node(server).name == fmt::format("ps{}", j));
    CHECK(placed.topology.node(server).kind == NodeKind::cpu);
    REQUIRE(placed.topology.out_links(server).size() == 1);  // one duplex link, to the switch
    const Link& link = placed.topology.link(placed.topology.out_links(server).front());
    CHECK(placed.topology.node(link.dst).kind == NodeKind::network_switch);
    CHECK(link.bandwidth.bytes_per_second == Approx(12.5e9));
    CHECK(link.latency == SimTime::from_us(2));
  }

  const PlacedServers wide = place_servers(network, 1, ServerPlacement::dedicated, Bandwidth{50e9}, 4);
  CHECK(wide.server_link.bytes_per_second == 50e9);
}

TEST_CASE("colocated servers are the first workers' GPUs, at most one per worker") {
  const Topology star = build_topology("switch:n=4,bw=100Gbps,lat=2us");
  Router network(star);
  const PlacedServers placed = place_servers(network, 2, ServerPlacement::colocated, std::nullopt, 4);
  CHECK(placed.servers == std::vector<NodeId>{star.gpu(0), star.gpu(1)});
  CHECK(placed.topology.node_count() == star.node_count());
  CHECK(placed.server_link.bytes_per_second == 0);
  CHECK_THROWS_AS(place_servers(network, 5, ServerPlacement::colocated, std::nullopt, 4), InputError);
}

TEST_CASE("dedicated servers need a network switch") {
  const Topology ring = build_topology("ring:n=4,bw=100Gbps,lat=1us");
  Router network(ring);
  CHECK_THROWS_WITH(place_servers(network, 1, ServerPlacement::dedicated, std::nullopt, 4),
                    Catch::Contains("dedicated servers attach to a network switch"));
}

// fattree:n=32,radix=16: four leaves of 8 GPUs, each with 8 uplinks to the eight spines.
TEST_CASE("dedicated servers spread over the top tier, never behind a worker's leaf") {
  const Topology tree = build_topology("fattree:n=32,bw=25Gbps,radix=16");
  Router network(tree);
  const PlacedServers placed = place_servers(network, 10, ServerPlacement::dedicated, std::nullopt, 32);
  std::vector<NodeId> attached;
  for (const NodeId server : placed.servers) {
    REQUIRE(placed.topology.out_links(server).size() == 1);
    const NodeId at = placed.topology.link(placed.topology.out_links(server).front()).dst;
    CHECK(placed.topology.node(at).name.rfind("spine", 0) == 0);
    for (const LinkId link : tree.out_links(at)) CHECK(tree.node(tree.link(link).dst).kind != NodeKind::gpu);
    attached.push_back(at);
  }
  // Round robin: the first eight on eight different spines, the ninth and tenth back on the first two.
  for (std::size_t j = 0; j < 8; ++j) {
    for (std::size_t k = 0; k < j; ++k) CHECK(attached[j] != attached[k]);
  }
  CHECK(attached[8] == attached[0]);
  CHECK(attached[9] == attached[1]);
  CHECK(placed.server_link.bytes_per_second == Approx(25e9 / 8));
}

TEST_CASE("colocated servers for clients that are groups: one per group, on its first GPU") {
  const Topology nodes = build_topology("dgx:nodes=4,gpus=8,rails=1");
  Router network(nodes);
  const PlacedServers placed = place_servers(network, 3, ServerPlacement::colocated, std::nullopt, 4, 8);
  CHECK(placed.servers == std::vector<NodeId>{nodes.gpu(0), nodes.gpu(8), nodes.gpu(16)});
  CHECK_THROWS_WITH(place_servers(network, 5, ServerPlacement::colocated, std::nullopt, 4, 8),
                    Catch::Contains("5 colocated servers need as many groups, but there are 4"));
}
