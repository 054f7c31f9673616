// Router: fewest-hop routes, their latency and bottleneck, and deterministic ECMP over equal-cost paths.
#include "syncsim/topology/router.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// The names of the nodes a route passes through, endpoints included.
std::vector<std::string> path_of(const Topology& topology, const Route& route) {
  std::vector<std::string> names{topology.node(topology.link(route.links.front()).src).name};
  for (const LinkId l : route.links) names.push_back(topology.node(topology.link(l).dst).name);
  return names;
}

bool is_connected_path(const Topology& topology, const Route& route, NodeId src, NodeId dst) {
  NodeId at = src;
  for (const LinkId l : route.links) {
    if (topology.link(l).src != at) return false;
    at = topology.link(l).dst;
  }
  return at == dst;
}

}  // namespace

TEST_CASE("switch: GPU -> switch -> GPU, two hops, twice the link latency", "[router]") {
  // System: 8 GPUs on one switch, 5 us per link. Expected: every route is 2 links and 10 us.
  const Topology star = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Router router(star);
  const Route& route = router.gpu_route(0, 5);
  CHECK(route.links.size() == 2);
  CHECK(route.latency == SimTime::from_us(10));
  CHECK(route.bottleneck == Bandwidth::from_gbps(100));
  CHECK(path_of(star, route) == std::vector<std::string>{"gpu0", "sw0", "gpu5"});

  // A switch's own latency counts once, for the node passed through.
  const Topology slow = build_topology("switch:n=8,bw=100Gbps,lat=5us,switch_lat=1us");
  Router slow_router(slow);
  CHECK(slow_router.gpu_route(3, 1).latency == SimTime::from_us(11));
}

TEST_CASE("routes are cached: the same pair returns the same object", "[router]") {
  const Topology ring = build_topology("ring:n=8,bw=100Gbps,lat=1us");
  Router router(ring);
  const Route& first = router.gpu_route(0, 4);
  for (std::size_t src = 0; src < 8; ++src) {
    for (std::size_t dst = 0; dst < 8; ++dst) {
      if (src != dst) router.gpu_route(src, dst);
    }
  }
  CHECK(&router.gpu_route(0, 4) == &first);
}

TEST_CASE("ring: fewest hops the short way round", "[router]") {
  const Topology ring = build_topology("ring:n=8,bw=100Gbps,lat=1us");
  Router router(ring);
  CHECK(router.gpu_route(0, 1).links.size() == 1);
  CHECK(router.gpu_route(0, 7).links.size() == 1);
  CHECK(router.gpu_route(0, 3).links.size() == 3);
  CHECK(router.gpu_route(0, 3).latency == SimTime::from_us(3));
  CHECK(router.gpu_route(6, 1).links.size() == 3);
  CHECK(path_of(ring, router.gpu_route(6, 1)) == std::vector<std::string>{"gpu6", "gpu7", "gpu0", "gpu1"});
  // Opposite GPUs have two equal paths; either is fine, and it is a real path.
  const Route& across = router.gpu_route(0, 4);
  CHECK(across.links.size() == 4);
  CHECK(is_connected_path(ring, across, ring.gpu(0), ring.gpu(4)));
}

TEST_CASE("torus: hop count is the sum of the per-dimension ring distances", "[router]") {
  const Topology torus = build_topology("torus:dims=4x4x4,bw=50GB/s,lat=1us");
  Router router(torus);
  // GPU (0,0,0) to (2,3,1): 2 + 1 + 1 hops.
  CHECK(router.gpu_route(0, 2 * 16 + 3 * 4 + 1).links.size() == 4);
  CHECK(router.gpu_route(0, 63).links.size() == 3);
}

TEST_CASE("fattree: 4 hops between leaves, and D-mod-k spreads pairs over the spines", "[router]") {
  const Topology tree = build_topology("fattree:n=32,radix=8,bw=100Gbps,lat=1us,oversub=2");
  Router router(tree);
  CHECK(router.gpu_route(0, 3).links.size() == 2);  // same leaf
  std::set<std::string> spines;
  for (std::size_t src = 0; src < 32; ++src) {
    const std::size_t dst = (src + 4) % 32;  // always on another leaf
    const Route& route = router.gpu_route(src, dst);
    REQUIRE(route.links.size() == 4);
    CHECK(route.latency == SimTime::from_us(4));
    CHECK(route.bottleneck == Bandwidth::from_gbps(100));  // oversubscription is in ports, not link speed
    spines.insert(path_of(tree, route)[2]);
  }
  CHECK(spines.size() > 1);
  for (const std::string& spine : spines) CHECK_THAT(spine, Catch::StartsWith("spine"));
}

TEST_CASE("ECMP is deterministic: a fresh router, in another order, picks the same paths", "[router]") {
  const Topology tree = build_topology("fattree:n=16,radix=4,tiers=3,bw=100Gbps");
  Router forward(tree);
  Router backward(tree);
  std::vector<std::vector<LinkId>> first;
  for (std::size_t src = 0; src < 16; ++src) {
    for (std::size_t dst = 0; dst < 16; ++dst) {
      if (src != dst) first.push_back(forward.gpu_route(src, dst).links);
    }
  }
  std::vector<std::vector<LinkId>> second;
  for (std::size_t src = 16; src-- > 0;) {
    for (std::size_t dst = 16; dst-- > 0;) {
      if (src != dst) second.push_back(backward.gpu_route(src, dst).links);
    }
  }
  std::reverse(second.begin(), second.end());
  CHECK(first == second);
  // Between pods: edge -> agg -> core -> agg -> edge, and several cores in use.
  std::set<std::string> cores;
  for (std::size_t dst = 4; dst < 16; ++dst) cores.insert(path_of(tree, forward.gpu_route(0, dst))[3]);
  CHECK(forward.gpu_route(0, 15).links.size() == 6);
  CHECK(cores.size() > 1);
}

TEST_CASE("dgx: NVSwitch inside a node, the rail's leaf between nodes, a spine across rails", "[router]") {
  const Topology dgx = build_topology("dgx:nodes=2,gpus=8");
  Router router(dgx);
  const Route& local = router.gpu_route(0, 5);
  CHECK(path_of(dgx, local) == std::vector<std::string>{"gpu0", "nvswitch0", "gpu5"});
  CHECK(local.latency == SimTime::from_ns(1400));
  CHECK(local.bottleneck == Bandwidth::from_gb_per_s(300));

  const Route& same_rail = router.gpu_route(2, 10);
  CHECK(path_of(dgx, same_rail) == std::vector<std::string>{"gpu2", "nic2", "leaf2", "nic10", "gpu10"});
  CHECK(same_rail.latency == SimTime::from_us(4));
  CHECK(same_rail.bottleneck == Bandwidth::from_gbps(200));

  // Across rails the route climbs to a spine rather than hopping through a peer GPU over NVLink.
  const std::vector<std::string> cross = path_of(dgx, router.gpu_route(2, 13));
  REQUIRE(cross.size() == 7);
  CHECK(cross[1] == "nic2");
  CHECK(cross[2] == "leaf2");
  CHECK_THAT(cross[3], Catch::StartsWith("spine"));
  CHECK(cross[4] == "leaf5");

  // GPUs sharing a NIC still talk over NVLink, the wider path.
  const Topology shared = build_topology("dgx:nodes=2,gpus=8,rails=4");
  Router shared_router(shared);
  CHECK(path_of(shared, shared_router.gpu_route(0, 1)) == std::vector<std::string>{"gpu0", "nvswitch0", "gpu1"});
}

TEST_CASE("dgx NVLink domains: NVLink between the trays of a rack, the rails between racks", "[router]") {
  const Topology racks = build_topology("dgx:nodes=36,gpus=4,nvlink_domain=18,nvlink_bw=900GB/s,nic_bw=400Gbps");
  Router router(racks);
  // GPU 0 (tray 0) and GPU 71 (tray 17) of rack 0: two NVLink hops through the rack's fabric.
  const Route& in_rack = router.gpu_route(0, 71);
  CHECK(path_of(racks, in_rack) == std::vector<std::string>{"gpu0", "nvswitch0", "gpu71"});
  CHECK(in_rack.bottleneck == Bandwidth::from_gb_per_s(900));
  // GPU 0 and GPU 72 (rack 1, tray 18, rail 0): the rail's leaf at NIC speed.
  const Route& across = router.gpu_route(0, 72);
  CHECK(path_of(racks, across) == std::vector<std::string>{"gpu0", "nic0", "leaf0", "nic72", "gpu72"});
  CHECK(across.bottleneck == Bandwidth::from_gbps(400));
}

TEST_CASE("many sources and destinations interleaved give the same routes as one at a time", "[router]") {
  // Every pair, one source after another: what was asked before must not change a route.
  const Topology torus = build_topology("torus:dims=4x4,bw=50GB/s");
  Router interleaved(torus);
  for (std::size_t src = 0; src < 16; ++src) {
    for (std::size_t dst = 0; dst < 16; ++dst) {
      if (src != dst) interleaved.gpu_route(src, dst);
    }
  }
  for (std::size_t dst = 0; dst < 16; ++dst) {
    for (std::size_t src = 0; src < 16; ++src) {
      if (src == dst) continue;
      Router alone(torus);
      CHECK(alone.gpu_route(src, dst).links == interleaved.gpu_route(src, dst).links);
    }
  }
}

TEST_CASE("a route's links asked without keeping it are the route's, asked before or after it is kept", "[router]") {
  // A 3-tier fat tree (D-mod-k choices at every tier) and a rail-optimized DGX fabric (PXN relays over NVLink).
  for (const char* spec : {"fattree:n=16,radix=4,tiers=3,bw=100Gbps", "dgx:nodes=8,gpus=4,radix=4"}) {
    const Topology topology = build_topology(spec);
    Router looked(topology);
    Router kept(topology);
    const std::size_t n = topology.gpu_count();
    for (std::size_t src = 0; src < n; ++src) {
      for (std::size_t dst = 0; dst < n; ++dst) {
        if (src == dst) continue;
        const NodeId a = topology.gpu(src);
        const NodeId b = topology.gpu(dst);
        std::vector<LinkId> before{LinkId{7}};  // appended after what is there
        looked.append_route_links(a, b, before);
        const std::vector<LinkId> route = kept.route(a, b).links;
        std::vector<LinkId> after;
        kept.append_route_links(a, b, after);  // now read from the kept route
        REQUIRE(before.front() == LinkId{7});
        CHECK(std::vector<LinkId>(before.begin() + 1, before.end()) == route);
        CHECK(after == route);
        CHECK(looked.route(a, b).links == route);  // nothing asked before changes a route
      }
    }
  }
}

TEST_CASE("an unreachable destination is an InputError naming both ends", "[router]") {
  Topology topology;
  const NodeId a = topology.add_node(Node{"a", NodeKind::gpu, SimTime::zero(), std::nullopt});
  const NodeId b = topology.add_node(Node{"b", NodeKind::gpu, SimTime::zero(), std::nullopt});
  topology.add_simplex_link(a, b, Bandwidth::from_gbps(1), SimTime::zero(), LinkKind::network);
  Router router(topology);
  CHECK(router.route(a, b).links.size() == 1);
  CHECK_THROWS_WITH(router.route(b, a), Catch::Contains("no route from b to a"));
}

namespace {

// Reference answer by exhaustive dynamic programming over all shortest paths to dst: the fewest hops, then the
// fewest GPUs relaying, then the widest bottleneck. The router must reach the same optimum.
struct Optimum {
  std::size_t hops;
  std::size_t gpu_transits;
  double width;
  std::size_t relay_hops;  // summed over the relaying GPUs: their hops to the destination (nearer the source wins)
  bool better_than(const Optimum& o) const {
    if (gpu_transits != o.gpu_transits) return gpu_transits < o.gpu_transits;
    return width != o.width ? width > o.width : relay_hops > o.relay_hops;
  }
  bool same_as(const Optimum& o) const {
    return gpu_transits == o.gpu_transits && width == o.width && relay_hops == o.relay_hops;
  }
};

// D-mod-k's destination numbers: each network switch's non-switch neighbours in port order, switch after switch; a
// GPU without a switch port takes its NIC's; the rest follow in id order (every node its id when there is no switch).
std::vector<std::uint64_t> port_numbers(const Topology& topology) {
  const std::size_t n = topology.node_count();
  std::vector<std::optional<std::uint64_t>> number(n);
  const auto is_switch = [&](NodeId v) { return topology.node(v).kind == NodeKind::network_switch; };
  std::uint64_t next = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (!is_switch(NodeId{v})) continue;
    for (const LinkId l : topology.out_links(NodeId{v})) {
      const NodeId to = topology.link(l).dst;
      if (!is_switch(to) && !number[to.value()]) number[to.value()] = next++;
    }
  }
  for (std::uint32_t v = 0; v < n; ++v) {
    if (next == 0 || number[v] || topology.node(NodeId{v}).kind != NodeKind::gpu) continue;
    for (const LinkId l : topology.out_links(NodeId{v})) {
      const NodeId to = topology.link(l).dst;
      if (topology.node(to).kind == NodeKind::nic && number[to.value()]) {
        number[v] = number[to.value()];
        break;
      }
    }
  }
  std::vector<std::uint64_t> out(n);
  for (std::uint32_t v = 0; v < n; ++v) out[v] = next == 0 ? v : number[v] ? *number[v] : next + v;
  return out;
}

std::vector<std::optional<Optimum>> optimum_to(const Topology& topology, NodeId dst) {
  const std::size_t n = topology.node_count();
  std::vector<std::optional<Optimum>> best(n);
  best[dst.value()] = Optimum{0, 0, std::numeric_limits<double>::infinity(), 0};
  // Relax level by level: a node at distance d is final once all nodes at d-1 are.
  for (std::size_t level = 1; level < n; ++level) {
    bool changed = false;
    for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
      const Link& link = topology.link(LinkId{l});
      const auto& rest = best[link.dst.value()];
      if (!rest || rest->hops != level - 1) continue;
      const bool relays = link.dst != dst && topology.node(link.dst).kind == NodeKind::gpu;
      const Optimum candidate{level, rest->gpu_transits + (relays ? 1 : 0),
                              std::min(rest->width, link.bandwidth.bytes_per_second),
                              rest->relay_hops + (relays ? rest->hops : 0)};
      auto& current = best[link.src.value()];
      if (current && current->hops < level) continue;
      if (!current || candidate.better_than(*current)) {
        current = candidate;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return best;
}

// The path the router's contract names: from the source, at each node the links into a node one hop closer whose
// optimum extends to this node's optimum, in link id order; the destination's port number picks among them digit by
// digit (D-mod-k). Any correct search gives exactly this path.
std::vector<LinkId> d_mod_k_path(const Topology& topology, const std::vector<std::optional<Optimum>>& optimum,
                                 NodeId src, NodeId dst) {
  std::vector<LinkId> path;
  std::uint64_t digits = port_numbers(topology)[dst.value()];
  std::uint64_t last_read = digits;
  for (NodeId at = src; at != dst;) {
    const Optimum& here = *optimum[at.value()];
    std::vector<LinkId> candidates;
    for (const LinkId l : topology.out_links(at)) {
      const Link& link = topology.link(l);
      const auto& rest = optimum[link.dst.value()];
      if (!rest || rest->hops + 1 != here.hops) continue;
      const bool relays = link.dst != dst && topology.node(link.dst).kind == NodeKind::gpu;
      const Optimum through{here.hops, rest->gpu_transits + (relays ? 1 : 0),
                            std::min(rest->width, link.bandwidth.bytes_per_second),
                            rest->relay_hops + (relays ? rest->hops : 0)};
      if (through.same_as(here)) candidates.push_back(l);
    }
    if (candidates.empty()) return {};
    // Parallel links (all to one node) reuse the digit the last choice read; other choices read the next digit.
    const bool parallel = std::all_of(candidates.begin(), candidates.end(), [&](LinkId l) {
      return topology.link(l).dst == topology.link(candidates.front()).dst;
    });
    LinkId chosen = candidates.front();
    if (candidates.size() > 1 && parallel) {
      chosen = candidates[last_read % candidates.size()];
    } else if (candidates.size() > 1) {
      last_read = digits;
      chosen = candidates[digits % candidates.size()];
      digits /= candidates.size();
    }
    path.push_back(chosen);
    at = topology.link(chosen).dst;
  }
  return path;
}

// A small irregular topology: GPUs and switches with links of mixed bandwidths and latencies.
Topology irregular() {
  Topology topology;
  std::vector<NodeId> ids;
  for (int i = 0; i < 14; ++i) {
    const bool gpu = i % 3 != 2;
    std::string name = "n";
    name += std::to_string(i);
    ids.push_back(topology.add_node(
        Node{name, gpu ? NodeKind::gpu : NodeKind::network_switch, SimTime::from_ns(gpu ? 0 : 50), std::nullopt}));
  }
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (std::size_t i = 1; i < ids.size(); ++i) {  // a spanning tree keeps it connected...
    topology.add_duplex_link(ids[i], ids[next() % i], Bandwidth::from_gbps(10.0 * (1 + next() % 4)),
                             SimTime::from_ns(100.0 * (1 + next() % 3)), LinkKind::network);
  }
  for (int extra = 0; extra < 12; ++extra) {  // ...and extra links make equal-length alternatives
    const std::size_t a = next() % ids.size();
    const std::size_t b = next() % ids.size();
    if (a == b) continue;
    topology.add_duplex_link(ids[a], ids[b], Bandwidth::from_gbps(10.0 * (1 + next() % 4)), SimTime::from_ns(100),
                             LinkKind::network);
  }
  return topology;
}

}  // namespace

TEST_CASE("routes are optimal (fewest hops, then fewest GPU relays, then widest) and the D-mod-k choice among them",
          "[router]") {
  const auto check_all_pairs = [](const Topology& topology) {
    Router router(topology);
    for (std::size_t t = 0; t < topology.gpu_count(); ++t) {
      const NodeId dst = topology.gpu(t);
      const auto optimum = optimum_to(topology, dst);
      for (std::size_t s = 0; s < topology.gpu_count(); ++s) {
        if (s == t) continue;
        const NodeId src = topology.gpu(s);
        const Route& route = router.route(src, dst);
        REQUIRE(optimum[src.value()].has_value());
        REQUIRE(is_connected_path(topology, route, src, dst));
        std::size_t transits = 0;
        SimTime latency;
        for (std::size_t i = 0; i < route.links.size(); ++i) {
          const Link& link = topology.link(route.links[i]);
          latency += link.latency;
          if (i + 1 < route.links.size()) {
            transits += topology.node(link.dst).kind == NodeKind::gpu ? 1 : 0;
            latency += topology.node(link.dst).latency;
          }
        }
        CHECK(route.links.size() == optimum[src.value()]->hops);
        CHECK(transits == optimum[src.value()]->gpu_transits);
        CHECK(route.bottleneck.bytes_per_second == optimum[src.value()]->width);
        CHECK(route.latency == latency);
        CHECK(route.links == d_mod_k_path(topology, optimum, src, dst));
      }
    }
  };
  SECTION("irregular") {
    check_all_pairs(irregular());
  }
  SECTION("dgx with shared NICs and several leaves per rail") {
    check_all_pairs(build_topology("dgx:nodes=3,gpus=4,rails=2,radix=4"));
  }
  SECTION("3-tier fat tree") {
    check_all_pairs(build_topology("fattree:n=12,radix=4,tiers=3,bw=10Gbps,oversub=2"));
  }
  SECTION("torus") {
    check_all_pairs(build_topology("torus:dims=3x4,bw=10Gbps"));
  }
  SECTION("dgx with many leaves per rail and several spines") {
    check_all_pairs(build_topology("dgx:nodes=12,gpus=4,rails=4,radix=4"));
  }
  SECTION("dgx rail planes with a core tier and parallel links (PXN across rails)") {
    check_all_pairs(build_topology("dgx:nodes=20,gpus=2,radix=8"));
  }
  SECTION("switch") {
    check_all_pairs(build_topology("switch:n=9,bw=10Gbps"));
  }
  SECTION("ring") {
    check_all_pairs(build_topology("ring:n=7,bw=10Gbps"));
  }
}
