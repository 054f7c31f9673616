// dgx at frontier scale: rail planes of leaves, spines and cores within the radix (generators/dgx_fabric.hpp), the
// tiers `syncsim topo` reports, and the routes real rail-optimized fabrics take (D-mod-k by port, PXN across rails).
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/switch_tiers.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "syncsim/topology/topology_summary.hpp"

using namespace syncsim;

namespace {

struct TierCounts {
  std::size_t switches;
  std::size_t max_ports;
  std::size_t max_down;
  std::size_t max_up;
  bool operator==(const TierCounts&) const = default;
};

std::vector<TierCounts> counts(const Topology& topology) {
  std::vector<TierCounts> out;
  for (const SwitchTier& t : switch_tiers(topology)) out.push_back({t.switches, t.max_ports, t.max_down, t.max_up});
  return out;
}

bool within_radix(const Topology& topology, std::size_t radix) {
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    if (topology.node(NodeId{v}).kind == NodeKind::network_switch && topology.out_links(NodeId{v}).size() > radix) {
      return false;
    }
  }
  return true;
}

// The most routes (of `pairs`) that share one directed network link.
std::size_t busiest_network_link(Router& router, const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  std::map<std::uint32_t, std::size_t> load;
  std::size_t most = 0;
  for (const auto& [src, dst] : pairs) {
    for (const LinkId l : router.gpu_route(src, dst).links) {
      if (router.topology().link(l).kind == LinkKind::network) most = std::max(most, ++load[l.value()]);
    }
  }
  return most;
}

// Every GPU sends to the GPU half the cluster away: a permutation whose every flow crosses the bisection.
std::vector<std::pair<std::size_t, std::size_t>> half_shift(std::size_t gpus) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t g = 0; g < gpus; ++g) pairs.emplace_back(g, (g + gpus / 2) % gpus);
  return pairs;
}

}  // namespace

TEST_CASE("dgx keeps spines shared by the rails while one spine layer takes every leaf", "[dgx_fabric]") {
  // 256 nodes, 8 rails, radix 64: 8 leaves per rail, 64 leaves, so 32 spines of 64 ports join them all.
  const Topology shared = build_topology("dgx:nodes=256");
  CHECK(counts(shared) == std::vector<TierCounts>{{64, 64, 32, 32}, {32, 64, 64, 0}});
  // One more node needs 72 leaves: each rail becomes a plane of its own, one pod each (9 leaves, 32 spines).
  const Topology planes = build_topology("dgx:nodes=257");
  CHECK(counts(planes) == std::vector<TierCounts>{{72, 64, 32, 32}, {8 * 32, 9, 9, 0}});
  CHECK(within_radix(planes, 64));
}

TEST_CASE("dgx at 16,384 GPUs builds leaf, spine and core tiers within the radix", "[dgx_fabric]") {
  // Per rail: 2,048 NIC ports, 64 leaves of 32, two pods of 32 leaves; each pod's 32 spines give 32 ports down and 32
  // up, and each spine position's core takes 32 links from the spine of both pods (64 ports).
  const Topology fabric = build_topology("dgx:nodes=2048,gpus=8,nic_bw=400Gbps");
  CHECK(fabric.gpu_count() == 16384);
  CHECK(counts(fabric) == std::vector<TierCounts>{{8 * 64, 64, 32, 32}, {8 * 2 * 32, 64, 32, 32}, {8 * 32, 64, 64, 0}});
  CHECK(within_radix(fabric, 64));

  Router router(fabric);
  // Same rail, other pod: GPU, NIC, leaf, spine, core, spine, leaf, NIC, GPU.
  CHECK(router.gpu_route(0, 1024 * 8).links.size() == 8);
  // Another rail: NVLink to the source node's GPU on rail 3 first (PXN), then rail 3's plane.
  const Route& cross = router.gpu_route(0, 1024 * 8 + 3);
  REQUIRE(cross.links.size() == 10);
  CHECK(fabric.link(cross.links[0]).kind == LinkKind::nvlink);
  CHECK(fabric.node(fabric.link(cross.links[1]).dst).name == "gpu3");
  CHECK(fabric.link(cross.links.back()).kind == LinkKind::pcie);
}

TEST_CASE("dgx at 100,000 GPUs: 12,500 ports per rail plane, 13 pods, every switch within the radix", "[dgx_fabric]") {
  // 391 leaves per plane, 13 pods; a spine's 32 uplinks go 4 to each of 8 cores per spine position (4 x 13 = 52
  // ports on a core).
  const Topology fabric = build_topology("dgx:nodes=12500,gpus=8,nic_bw=400Gbps");
  CHECK(fabric.gpu_count() == 100000);
  CHECK(counts(fabric) ==
        std::vector<TierCounts>{{8 * 391, 64, 32, 32}, {8 * 13 * 32, 64, 32, 32}, {8 * 32 * 8, 52, 52, 0}});
  CHECK(within_radix(fabric, 64));
  // NVL72 racks (18 trays of 4 GPUs on one NVLink domain) as the nodes of the same kind of fabric: 1,389 racks.
  const Topology racks = build_topology("dgx:nodes=25002,gpus=4,nvlink_domain=18,nvlink_bw=900GB/s,nic_bw=400Gbps");
  CHECK(racks.gpu_count() == 100008);
  CHECK(switch_tiers(racks).size() == 3);
  CHECK(within_radix(racks, 64));
}

TEST_CASE("a dgx the radix cannot join names the core tier and a radix that would do", "[dgx_fabric]") {
  // radix 16: leaves of 8 nodes, pods of 8 leaves; 2,000 nodes are 32 pods per plane, and a core has 16 ports.
  // radix 20 gives 200 leaves of 10 in 20 pods of 10: one port per pod on a 20-port core.
  CHECK_THROWS_WITH(build_topology("dgx:nodes=2000,gpus=1,radix=16"),
                    Catch::Contains("core tier overflows") && Catch::Contains("32 pods") &&
                        Catch::Contains("radix=20 builds it") && Catch::Contains("radix"));
  CHECK_NOTHROW(build_topology("dgx:nodes=2000,gpus=1,radix=20"));
  CHECK_THROWS_AS(build_topology("dgx:nodes=64,core_oversub=0.5"), InputError);
}

TEST_CASE("a non-blocking three-tier dgx carries a permutation across its bisection at full rate", "[dgx_fabric]") {
  // System: 64 single-GPU nodes at radix 8, one rail: 16 leaves of 4 in 4 pods, 4 spines per pod, 4 cores per spine
  // position. Expected: bisection = 32 NICs' worth; the half shift puts at most one flow on each directed link, so
  // every flow runs at nic_bw; oversubscribing the leaf or the spine by 2 halves the bisection.
  const Bandwidth nic = Bandwidth::from_gbps(400);
  const Topology fabric = build_topology("dgx:nodes=64,gpus=1,radix=8,nic_bw=400Gbps");
  REQUIRE(switch_tiers(fabric).size() == 3);
  CHECK(summarize(fabric).bisection_bandwidth.bytes_per_second == Approx(32 * nic.bytes_per_second));
  Router router(fabric);
  CHECK(busiest_network_link(router, half_shift(64)) == 1);

  for (const std::string tier : {"oversub", "core_oversub"}) {
    const Topology thin = build_topology("dgx:nodes=64,gpus=1,radix=8,nic_bw=400Gbps," + tier + "=2");
    CHECK(summarize(thin).bisection_bandwidth.bytes_per_second == Approx(16 * nic.bytes_per_second));
  }

  // Eight rails, 48 nodes: 12 leaves per rail in 3 pods; the half shift stays on each GPU's rail.
  const Topology rails = build_topology("dgx:nodes=48,gpus=8,radix=8,nic_bw=400Gbps");
  REQUIRE(switch_tiers(rails).size() == 3);
  Router rails_router(rails);
  CHECK(busiest_network_link(rails_router, half_shift(48 * 8)) == 1);
}

TEST_CASE("D-mod-k counts destinations by leaf port: one leaf's flows to another leaf's nodes take distinct uplinks",
          "[dgx_fabric]") {
  // System: 64 nodes, 8 rails, 2 leaves per rail, 32 spines shared. GPU g of node h (h < 32) sends to GPU g of node
  // h + 32. Expected: the 32 flows of each rail leave their leaf on 32 different spines (numbering GPUs 8h + g put
  // them on every eighth uplink, four spines for 32 flows).
  const Topology fabric = build_topology("dgx:nodes=64,gpus=8");
  Router router(fabric);
  for (std::size_t rail = 0; rail < 8; ++rail) {
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t h = 0; h < 32; ++h) pairs.emplace_back(h * 8 + rail, (h + 32) * 8 + rail);
    CHECK(busiest_network_link(router, pairs) == 1);
  }
}

TEST_CASE("pipeline stage pairs 32 nodes apart put one flow on each network link", "[dgx_fabric]") {
  // System: the 2,304-GPU Llama 3.1 405B layout (TP 8 x CP 2 x PP 9 on dgx:nodes=288; stage k's rank r sends to rank
  // r + 256 of stage k + 1, the GPU with the same index 32 nodes on). 288 nodes need 72 leaves: rail planes, one pod
  // each. Expected: every stage transfer stays on its rail and each directed network link carries one of them (GPU
  // numbering used to put a rail's 32 flows on 4 of the leaf's 32 uplinks, 8 per link).
  const Topology fabric = build_topology("dgx:nodes=288,gpus=8,nic_bw=400Gbps");
  Router router(fabric);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t k = 0; k + 1 < 9; k += 2) {
    for (std::size_t r = k * 256; r < (k + 1) * 256; ++r) pairs.emplace_back(r, r + 256);
  }
  CHECK(busiest_network_link(router, pairs) == 1);
}
