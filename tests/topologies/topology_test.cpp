// Topology: the graph container — ids, duplex pairs, GPU numbering, kinds, connectivity check.
#include "syncsim/topology/topology.hpp"

#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {
Node gpu_node(std::string name) {
  return Node{std::move(name), NodeKind::gpu, SimTime::zero(), std::nullopt};
}
Node switch_node(std::string name) {
  return Node{std::move(name), NodeKind::network_switch, SimTime::from_ns(100), std::nullopt};
}
}  // namespace

TEST_CASE("duplex links come in pairs that name each other as reverse", "[topology]") {
  Topology topology;
  const NodeId a = topology.add_node(gpu_node("a"));
  const NodeId sw = topology.add_node(switch_node("sw"));
  const NodeId b = topology.add_node(gpu_node("b"));
  const LinkId ab = topology.add_duplex_link(a, sw, Bandwidth::from_gbps(100), SimTime::from_us(1), LinkKind::network);
  topology.add_duplex_link(b, sw, Bandwidth::from_gbps(50), SimTime::from_us(2), LinkKind::pcie);

  CHECK(topology.node_count() == 3);
  CHECK(topology.link_count() == 4);
  const Link& forward = topology.link(ab);
  const Link& backward = topology.link(forward.reverse);
  CHECK(forward.src == a);
  CHECK(forward.dst == sw);
  CHECK(backward.src == sw);
  CHECK(backward.dst == a);
  CHECK(backward.reverse == ab);
  CHECK(backward.bandwidth == Bandwidth::from_gbps(100));
  CHECK(topology.out_links(sw).size() == 2);
  CHECK(topology.out_links(a).size() == 1);
}

TEST_CASE("GPUs are numbered in the order they are added, other nodes get no GPU index", "[topology]") {
  Topology topology;
  const NodeId sw = topology.add_node(switch_node("sw"));
  const NodeId g0 = topology.add_node(gpu_node("first"));
  const NodeId g1 = topology.add_node(gpu_node("second"));
  CHECK(topology.gpu_count() == 2);
  CHECK(topology.gpu(0) == g0);
  CHECK(topology.gpu(1) == g1);
  CHECK(topology.gpu_index(g1) == std::optional<std::size_t>{1});
  CHECK_FALSE(topology.gpu_index(sw).has_value());
}

TEST_CASE("a simplex link pairs with a later link the other way", "[topology]") {
  Topology topology;
  const NodeId a = topology.add_node(gpu_node("a"));
  const NodeId b = topology.add_node(gpu_node("b"));
  const LinkId ab = topology.add_simplex_link(a, b, Bandwidth::from_gbps(10), SimTime::zero(), LinkKind::nvlink);
  CHECK(topology.link(ab).reverse == ab);
  const LinkId ba = topology.add_simplex_link(b, a, Bandwidth::from_gbps(20), SimTime::zero(), LinkKind::nvlink);
  CHECK(topology.link(ab).reverse == ba);
  CHECK(topology.link(ba).reverse == ab);
  // A third link a->b has no partner left.
  const LinkId again = topology.add_simplex_link(a, b, Bandwidth::from_gbps(10), SimTime::zero(), LinkKind::nvlink);
  CHECK(topology.link(again).reverse == again);
}

TEST_CASE("copies are independent", "[topology]") {
  Topology original;
  original.add_node(gpu_node("a"));
  original.set_description("original");
  Topology copy = original;
  copy.add_node(gpu_node("b"));
  copy.set_description("copy");
  CHECK(original.node_count() == 1);
  CHECK(copy.node_count() == 2);
  CHECK(original.description() == "original");
  Topology moved = std::move(copy);
  CHECK(moved.gpu_count() == 2);
}

TEST_CASE("zero bandwidth is rejected", "[topology]") {
  Topology topology;
  const NodeId a = topology.add_node(gpu_node("a"));
  const NodeId b = topology.add_node(gpu_node("b"));
  CHECK_THROWS_AS(topology.add_duplex_link(a, b, Bandwidth{0}, SimTime::zero(), LinkKind::network), InputError);
}

TEST_CASE("kinds print and parse both ways", "[topology]") {
  for (const NodeKind kind : {NodeKind::gpu, NodeKind::nvswitch, NodeKind::pcie_switch, NodeKind::cpu, NodeKind::nic,
                              NodeKind::network_switch}) {
    CHECK(parse_node_kind(to_string(kind)) == kind);
  }
  for (const LinkKind kind : {LinkKind::nvlink, LinkKind::pcie, LinkKind::network}) {
    CHECK(parse_link_kind(to_string(kind)) == kind);
  }
  CHECK(to_string(NodeKind::network_switch) == "network_switch");
  try {
    parse_link_kind("infiniband");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("infiniband") && Catch::Contains("nvlink, pcie, network"));
  }
  CHECK_THROWS_AS(parse_node_kind("tpu"), InputError);
}

TEST_CASE("check_gpus_connected names two GPUs that cannot reach each other", "[topology]") {
  Topology topology;
  const NodeId a = topology.add_node(gpu_node("a"));
  const NodeId b = topology.add_node(gpu_node("b"));
  const NodeId c = topology.add_node(gpu_node("c"));
  topology.add_duplex_link(a, b, Bandwidth::from_gbps(1), SimTime::zero(), LinkKind::network);
  try {
    topology.check_gpus_connected();
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("from a to c"));
  }
  // One way only: c reaches a, but nothing reaches c.
  topology.add_simplex_link(c, a, Bandwidth::from_gbps(1), SimTime::zero(), LinkKind::network);
  CHECK_THROWS_WITH(topology.check_gpus_connected(), Catch::Contains("from a to c"));
  topology.add_simplex_link(b, c, Bandwidth::from_gbps(1), SimTime::zero(), LinkKind::network);
  CHECK_NOTHROW(topology.check_gpus_connected());
}
