// with_link_factors: a copy of a topology with degraded or removed links; find_node and links_between.
#include "syncsim/topology/link_changes.hpp"

#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"

using namespace syncsim;

namespace {

Node named(std::string name, NodeKind kind) {
  return Node{std::move(name), kind, SimTime::zero(), std::nullopt};
}

// gpu0 - sw0 - gpu1 and gpu0 - sw1 - gpu1: two 2-hop paths, through sw0 at 100 GB/s and through sw1 at 50 GB/s.
struct TwoPaths {
  Topology topology;
  NodeId gpu0, gpu1, sw0, sw1;
  TwoPaths() {
    gpu0 = topology.add_node(named("gpu0", NodeKind::gpu));
    gpu1 = topology.add_node(named("gpu1", NodeKind::gpu));
    sw0 = topology.add_node(named("sw0", NodeKind::network_switch));
    sw1 = topology.add_node(named("sw1", NodeKind::network_switch));
    const SimTime latency = SimTime::from_us(1);
    topology.add_duplex_link(gpu0, sw0, Bandwidth::from_gb_per_s(100), latency, LinkKind::network);
    topology.add_duplex_link(sw0, gpu1, Bandwidth::from_gb_per_s(100), latency, LinkKind::network);
    topology.add_duplex_link(gpu0, sw1, Bandwidth::from_gb_per_s(50), latency, LinkKind::network);
    topology.add_duplex_link(sw1, gpu1, Bandwidth::from_gb_per_s(50), latency, LinkKind::network);
  }
};

}  // namespace

TEST_CASE("find_node and links_between name the two directions of a physical link", "[link_changes]") {
  const TwoPaths t;
  CHECK(find_node(t.topology, "sw1") == t.sw1);
  CHECK_FALSE(find_node(t.topology, "sw7"));
  const std::vector<LinkId> links = links_between(t.topology, t.sw0, t.gpu0);  // either order
  REQUIRE(links.size() == 2);
  CHECK(links[0] == LinkId{0});  // gpu0 -> sw0
  CHECK(links[1] == LinkId{1});  // sw0 -> gpu0
  CHECK(links_between(t.topology, t.gpu0, t.gpu1).empty());
}

TEST_CASE("a factor scales both directions' bandwidth and keeps every id", "[link_changes]") {
  const TwoPaths t;
  std::map<LinkId, double> factors;
  for (const LinkId link : links_between(t.topology, t.gpu0, t.sw0)) factors[link] = 0.25;
  const Topology slow = with_link_factors(t.topology, factors);
  REQUIRE(slow.link_count() == t.topology.link_count());
  REQUIRE(slow.gpu_count() == 2);
  CHECK(slow.gpu(1) == t.gpu1);
  CHECK(slow.link(LinkId{0}).bandwidth == Bandwidth::from_gb_per_s(25));
  CHECK(slow.link(LinkId{1}).bandwidth == Bandwidth::from_gb_per_s(25));
  CHECK(slow.link(LinkId{1}).reverse == LinkId{0});
  CHECK(slow.link(LinkId{2}).bandwidth == Bandwidth::from_gb_per_s(100));
  for (std::uint32_t l = 0; l < slow.link_count(); ++l) {
    const Link& before = t.topology.link(LinkId{l});
    const Link& after = slow.link(LinkId{l});
    CHECK(after.src == before.src);
    CHECK(after.dst == before.dst);
    CHECK(after.latency == before.latency);
    CHECK(after.reverse == before.reverse);
  }
  // The router prefers the widest bottleneck among the 2-hop paths: sw0 (100) before, sw1 (50 > 25) after.
  Router before(t.topology);
  Router after(slow);
  CHECK(before.gpu_route(0, 1).bottleneck == Bandwidth::from_gb_per_s(100));
  CHECK(after.gpu_route(0, 1).bottleneck == Bandwidth::from_gb_per_s(50));
}

TEST_CASE("factor 0 removes a link: routes go around it, or the GPUs fall apart", "[link_changes]") {
  const TwoPaths t;
  std::map<LinkId, double> cut;
  for (const LinkId link : links_between(t.topology, t.sw0, t.gpu1)) cut[link] = 0;
  const Topology without = with_link_factors(t.topology, cut);
  CHECK(without.link_count() == t.topology.link_count() - 2);
  Router router(without);
  CHECK(router.gpu_route(0, 1).bottleneck == Bandwidth::from_gb_per_s(50));
  CHECK_NOTHROW(without.check_gpus_connected());
  for (const LinkId link : links_between(t.topology, t.sw1, t.gpu1)) cut[link] = 0;
  CHECK_THROWS_AS(with_link_factors(t.topology, cut).check_gpus_connected(), InputError);
}

TEST_CASE("with_link_factors rejects a factor outside [0, 1] and an unknown link", "[link_changes]") {
  const TwoPaths t;
  CHECK_THROWS_AS(with_link_factors(t.topology, {{LinkId{0}, 1.5}}), InputError);
  CHECK_THROWS_AS(with_link_factors(t.topology, {{LinkId{0}, -0.1}}), InputError);
  CHECK_THROWS_AS(with_link_factors(t.topology, {{LinkId{99}, 0.5}}), InputError);
}
