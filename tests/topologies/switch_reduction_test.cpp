// Switches that reduce in the network (topology.hpp, SwitchReduction): the dgx and fattree keys and the DOT
// attribute that set them.
#include <catch2/catch.hpp>
#include <sstream>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/dot_io.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// The reduction of every node of `kind` when they all agree; fails the test when they do not.
SwitchReduction reduction_of(const Topology& topology, NodeKind kind) {
  std::optional<SwitchReduction> found;
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    const Node& node = topology.node(NodeId{v});
    if (node.kind != kind) continue;
    if (found) REQUIRE(*found == node.reduction);
    found = node.reduction;
  }
  REQUIRE(found);
  return *found;
}

}  // namespace

TEST_CASE("dgx's nvls key sets the NVSwitches, auto by default, sharp sets the leaves and spines", "[topology]") {
  CHECK(reduction_of(build_topology("dgx:nodes=2,gpus=4"), NodeKind::nvswitch) == SwitchReduction::automatic);
  CHECK(reduction_of(build_topology("dgx:nodes=2,gpus=4"), NodeKind::network_switch) == SwitchReduction::off);
  CHECK(reduction_of(build_topology("dgx:nodes=2,gpus=4,nvls=off"), NodeKind::nvswitch) == SwitchReduction::off);
  CHECK(reduction_of(build_topology("dgx:nodes=2,gpus=4,nvls=on"), NodeKind::nvswitch) == SwitchReduction::on);
  CHECK(reduction_of(build_topology("dgx:nodes=2,gpus=4,sharp=on"), NodeKind::network_switch) == SwitchReduction::on);
  CHECK(reduction_of(build_topology("fattree:n=8,radix=4,bw=100Gbps,sharp=on"), NodeKind::network_switch) ==
        SwitchReduction::on);
  CHECK(reduction_of(build_topology("fattree:n=8,radix=4,bw=100Gbps"), NodeKind::network_switch) ==
        SwitchReduction::off);
  CHECK_THROWS_WITH(build_topology("fattree:n=8,radix=4,bw=100Gbps,sharp=yes"),
                    Catch::Contains("sharp") && Catch::Contains("unknown switch reduction 'yes' (expected one of: "
                                                                "off, on, auto)"));
}

TEST_CASE("a DOT node's reduction attribute reads and writes back", "[topology][dot]") {
  const Topology topology = build_topology("dgx:nodes=1,gpus=2,nvls=on");
  std::ostringstream dot;
  write_dot(topology, dot);
  CHECK_THAT(dot.str(), Catch::Contains("kind=\"nvswitch\", host=\"0\", reduction=\"on\""));
  const Topology back = read_dot_text(dot.str(), "t.dot");
  CHECK(reduction_of(back, NodeKind::nvswitch) == SwitchReduction::on);
  CHECK(reduction_of(back, NodeKind::network_switch) == SwitchReduction::off);

  CHECK_THROWS_WITH(read_dot_text("graph g { a [reduction=\"on\"]; b; a -- b [bw=\"1GB/s\"]; }", "t.dot"),
                    Catch::Contains("only an nvswitch or a network_switch reduces"));
  CHECK_THROWS_WITH(read_dot_text("graph g { a; s [kind=\"nvswitch\", reduction=\"sometimes\"]; a -- s [bw=\"1GB/s\"]; "
                                  "b; b -- s [bw=\"1GB/s\"]; }",
                                  "t.dot"),
                    Catch::Contains("unknown switch reduction 'sometimes'"));
}
