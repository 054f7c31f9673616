// Summary: counts by kind, bisection bandwidth against closed forms, diameter, and the printed text.
#include "syncsim/topology/topology_summary.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "syncsim/topology/dot_io.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {
Bandwidth gbps(double value) {
  return Bandwidth::from_gbps(value);
}
}  // namespace

TEST_CASE("bisection of a ring is two links: the cut crosses the ring twice", "[summary]") {
  // System: ring of 8 at B = 100 Gbps, GPUs 0-3 vs 4-7. Expected: links 3-4 and 7-0 cross the cut, 2B.
  const TopologySummary summary = summarize(build_topology("ring:n=8,bw=100Gbps,lat=1us"));
  CHECK(summary.bisection_bandwidth.bytes_per_second == Approx(gbps(200).bytes_per_second));
  CHECK(summary.diameter_hops == 4);
  CHECK(summary.diameter_latency == SimTime::from_us(4));
  CHECK(summary.gpu_count == 8);
  CHECK(summary.links_by_kind.at(LinkKind::network) == 8);
}

TEST_CASE("bisection of a switch is n/2 GPU links", "[summary]") {
  // System: 8 GPUs on one switch at B. Expected: the 4 GPUs of one half send at B each, 4B.
  const TopologySummary summary = summarize(build_topology("switch:n=8,bw=100Gbps,lat=5us"));
  CHECK(summary.bisection_bandwidth.bytes_per_second == Approx(gbps(400).bytes_per_second));
  CHECK(summary.diameter_hops == 2);
  CHECK(summary.diameter_latency == SimTime::from_us(10));
  CHECK(summary.nodes_by_kind.at(NodeKind::gpu) == 8);
  CHECK(summary.nodes_by_kind.at(NodeKind::network_switch) == 1);
}

TEST_CASE("bisection of a fat tree divides by its oversubscription", "[summary]") {
  // System: 32 GPUs, radix 8 (4 leaves per half, 4 spines), B per GPU link. Expected: full bisection 16B; with
  // oversub 4 each leaf's uplinks carry B in total, so the cut is 4 leaves * B = 4B.
  const TopologySummary full = summarize(build_topology("fattree:n=32,radix=8,bw=100Gbps,lat=1us"));
  const TopologySummary thin = summarize(build_topology("fattree:n=32,radix=8,bw=100Gbps,lat=1us,oversub=4"));
  CHECK(full.bisection_bandwidth.bytes_per_second == Approx(gbps(1600).bytes_per_second));
  CHECK(thin.bisection_bandwidth.bytes_per_second == Approx(gbps(400).bytes_per_second));
  CHECK(full.diameter_hops == 4);
  CHECK(full.diameter_latency == SimTime::from_us(4));
}

TEST_CASE("bisection of a torus is twice the cross-section, for the wraparound", "[summary]") {
  // 4x4 torus split into rows 0-1 and 2-3: 4 columns cross twice (between rows 1-2 and 3-0).
  const TopologySummary summary = summarize(build_topology("torus:dims=4x4,bw=10GB/s"));
  CHECK(summary.bisection_bandwidth.bytes_per_second == Approx(80e9));
  CHECK(summary.diameter_hops == 4);
}

TEST_CASE("dgx: the diameter crosses a spine, physical links counted once per kind", "[summary]") {
  const TopologySummary summary = summarize(build_topology("dgx:nodes=2"));
  CHECK(summary.links_by_kind.at(LinkKind::nvlink) == 16);
  CHECK(summary.links_by_kind.at(LinkKind::pcie) == 16);
  CHECK(summary.links_by_kind.at(LinkKind::network) == 16 + 8 * 2);
  CHECK(summary.nodes_by_kind.at(NodeKind::nic) == 16);
  CHECK(summary.diameter_hops == 6);
  CHECK(summary.diameter_latency == SimTime::from_us(8));
  // Node 0's 8 NICs at 200 Gbps each bound the flow between the two nodes.
  CHECK(summary.bisection_bandwidth.bytes_per_second == Approx(gbps(1600).bytes_per_second));
}

TEST_CASE("large topologies use the per-GPU search and agree with the routed diameter", "[summary]") {
  const TopologySummary large = summarize(build_topology("switch:n=300,bw=100Gbps,lat=5us,switch_lat=1us"));
  CHECK(large.diameter_hops == 2);
  CHECK(large.diameter_latency == SimTime::from_us(11));
  const TopologySummary ring = summarize(build_topology("ring:n=300,bw=100Gbps,lat=1us"));
  CHECK(ring.diameter_hops == 150);
  CHECK(ring.diameter_latency == SimTime::from_us(150));
}

TEST_CASE("to_text prints the summary lines", "[summary]") {
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  const std::string text = to_text(summarize(topology), topology);
  CHECK_THAT(text, Catch::Contains("topology  switch:n=8,bw=100Gbps,lat=5us\n"));
  CHECK_THAT(text, Catch::Contains("nodes     9 (8 gpu, 1 network_switch)\n"));
  CHECK_THAT(text, Catch::Contains("links     8 duplex (8 network)\n"));
  CHECK_THAT(text, Catch::Contains("bisection 50 GB/s (400 Gbps) between GPUs 0-3 and 4-7\n"));
  CHECK_THAT(text, Catch::Contains("diameter  2 hops, 10 us\n"));
}

TEST_CASE("to_text prints big bisections in plain Gbps", "[summary]") {
  // 4x4x4 torus cut across the first dimension: 16 rings of 4 cross it twice, 32 links of 50 GB/s.
  const Topology topology = build_topology("torus:dims=4x4x4,bw=50GB/s");
  CHECK_THAT(to_text(summarize(topology), topology),
             Catch::Contains("bisection 1.6 TB/s (12800 Gbps) between GPUs 0-31 and 32-63\n"));
}

namespace {

// The diameter as one breadth-first search from every GPU measures it (the definition the summary keeps beyond
// 256 GPUs): the hop count along the search tree, and the latency along it, a node's own latency counting for
// routes that pass through it.
std::pair<std::size_t, SimTime> diameter_by_search_from_every_gpu(const Topology& topology) {
  std::size_t max_hops = 0;
  std::int64_t max_latency = 0;
  const std::size_t nodes = topology.node_count();
  for (std::size_t g = 0; g < topology.gpu_count(); ++g) {
    const NodeId src = topology.gpu(g);
    std::vector<std::int64_t> hops(nodes, -1);
    std::vector<std::int64_t> latency(nodes, 0);
    std::vector<NodeId> queue{src};
    hops[src.value()] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const NodeId at = queue[head];
      const std::int64_t base = latency[at.value()] + (at == src ? 0 : topology.node(at).latency.ps());
      for (const LinkId l : topology.out_links(at)) {
        const Link& link = topology.link(l);
        if (hops[link.dst.value()] >= 0) continue;
        hops[link.dst.value()] = hops[at.value()] + 1;
        latency[link.dst.value()] = base + link.latency.ps();
        queue.push_back(link.dst);
      }
    }
    for (std::size_t d = 0; d < topology.gpu_count(); ++d) {
      const NodeId dst = topology.gpu(d);
      if (hops[dst.value()] < 0) continue;
      max_hops = std::max(max_hops, static_cast<std::size_t>(hops[dst.value()]));
      max_latency = std::max(max_latency, latency[dst.value()]);
    }
  }
  return {max_hops, SimTime::from_ps(max_latency)};
}

// 420 GPUs on 40 switches, one-way links with latencies that differ by direction. GPUs come in groups of 7 whose
// outgoing links are identical, the 7th of each group one picosecond off; switches join in a ring plus random chords.
Topology random_switched_digraph() {
  Topology topology;
  std::mt19937 random(7);
  const auto uniform = [&](int below) { return static_cast<int>(random() % static_cast<unsigned>(below)); };
  std::vector<NodeId> switches;
  for (int s = 0; s < 40; ++s) {
    Node node;
    node.name = fmt::format("sw{}", s);
    node.kind = NodeKind::network_switch;
    node.latency = SimTime::from_ns(uniform(500));
    switches.push_back(topology.add_node(std::move(node)));
  }
  std::vector<NodeId> gpus;
  for (int g = 0; g < 420; ++g) {
    Node node;
    node.name = fmt::format("gpu{}", g);
    node.latency = SimTime::from_ns(100 * uniform(4));
    gpus.push_back(topology.add_node(std::move(node)));
  }
  const Bandwidth bw = gbps(100);
  for (int s = 0; s < 40; ++s) {
    topology.add_simplex_link(switches[s], switches[(s + 1) % 40], bw, SimTime::from_ns(50), LinkKind::network);
    for (int c = 0; c < 2; ++c) {
      const int t = uniform(40);
      if (t != s) {
        topology.add_simplex_link(switches[s], switches[t], bw, SimTime::from_ns(1 + uniform(900)), LinkKind::network);
      }
    }
  }
  for (int g = 0; g < 420; ++g) {
    const int group = g / 7;
    const std::int64_t lat_ps = (group % 5) * 100'000 + (g % 7 == 6 ? 1 : 0);
    const NodeId first = switches[group % 40];
    const NodeId second = switches[(group * 3 + 1) % 40];
    topology.add_simplex_link(gpus[g], first, bw, SimTime::from_ps(lat_ps), LinkKind::network);
    topology.add_simplex_link(gpus[g], second, bw, SimTime::from_ps(lat_ps + 10'000), LinkKind::network);
    topology.add_simplex_link(first, gpus[g], bw, SimTime::from_ns(1 + uniform(999)), LinkKind::network);
    if (g % 3 == 0) {
      topology.add_simplex_link(switches[(group + 5) % 40], gpus[g], bw, SimTime::from_ns(1 + uniform(999)),
                                LinkKind::network);
    }
  }
  return topology;
}

}  // namespace

TEST_CASE("beyond 256 GPUs the diameter of GPUs with identical links is the one every GPU's search gives",
          "[summary]") {
  // System: 420 GPUs on 40 switches, one-way links with latencies that differ by direction. GPUs come in groups of
  // 7 whose outgoing links are identical (the summary searches once or twice per group), the 7th of each group
  // one picosecond off (a group of its own); switches join in a ring plus random chords. Expected: the same
  // diameter, hops and latency, as a search from every GPU.
  const Topology topology = random_switched_digraph();
  REQUIRE(topology.gpu_count() > 256);
  const auto [hops, latency] = diameter_by_search_from_every_gpu(topology);
  const TopologySummary summary = summarize(topology);
  CHECK(summary.diameter_hops == hops);
  CHECK(summary.diameter_latency == latency);
  CHECK(hops >= 3);  // the groups' searches reach far: not a trivial answer
}

TEST_CASE("a star of 200,000 GPUs is summarized with the diameter of a star", "[summary]") {
  // System: switch:n=200000 (one group of identical GPUs: two searches, not 200,000). Expected: GPU, switch, GPU.
  const TopologySummary summary = summarize(build_topology("switch:n=200000,bw=100Gbps,lat=1us,switch_lat=300ns"));
  CHECK(summary.diameter_hops == 2);
  CHECK(summary.diameter_latency == SimTime::from_ns(2300));
}

TEST_CASE("a link faster than int64 bytes per second saturates the bisection instead of overflowing", "[summary]") {
  // Found by fuzzing (tests/fuzz/regressions/topology_file): a DOT bandwidth of 10^43 GB/s made the sum of the
  // capacities, and the max-flow's "unlimited" arcs, overflow int64 (undefined behaviour). The fastest rate a
  // bandwidth may now say, 1e24 B/s, is still past int64.
  const Topology topology =
      read_dot_text("graph g {\n  a -- b [bw=\"1e15GB/s\"];\n  b -- c [bw=\"1e15GB/s\"];\n}\n", "fast.dot");
  const TopologySummary summary = summarize(topology);
  CHECK(summary.bisection_bandwidth.bytes_per_second == Approx(9.223372036854775807e18));
}

TEST_CASE("above the work budget the diameter is bounded by a few searches, and exact where the bounds meet",
          "[summary]") {
  // System: small topologies of every generator and the random digraph, summarized with no work budget (so the
  // bounded path runs) and with the default one (exact). Expected: lower <= exact <= upper, in hops and latency;
  // where the summary says exact, the exact values.
  std::vector<std::pair<std::string, Topology>> cases;
  for (const char* spec :
       {"ring:n=9,bw=100Gbps,lat=1us", "ring:n=10,bw=100Gbps,lat=1us", "torus:dims=4x5,bw=10GB/s,lat=1us",
        "torus:dims=3x4x5,bw=10GB/s,lat=2us", "mesh:n=6,bw=100Gbps,lat=2us",
        "switch:n=8,bw=100Gbps,lat=5us,switch_lat=1us", "fattree:n=32,radix=8,bw=100Gbps,lat=1us", "dgx:nodes=2",
        "dgx:nodes=4,gpus=4", "dgx:nodes=3,gpus=4,rails=2,radix=4"}) {
    cases.emplace_back(spec, build_topology(spec));
  }
  cases.emplace_back("random digraph", random_switched_digraph());
  for (const auto& [name, topology] : cases) {
    INFO(name);
    const TopologySummary exact = summarize(topology);
    const TopologySummary bounded = summarize(topology, 0);
    REQUIRE(exact.diameter_exact);
    CHECK(exact.diameter_hops_upper == exact.diameter_hops);
    CHECK(bounded.diameter_hops <= exact.diameter_hops);
    CHECK(exact.diameter_hops <= bounded.diameter_hops_upper);
    CHECK(bounded.diameter_latency <= exact.diameter_latency);
    CHECK(exact.diameter_latency <= bounded.diameter_latency_upper);
    if (bounded.diameter_exact) {
      CHECK(bounded.diameter_hops == exact.diameter_hops);
      CHECK(bounded.diameter_latency == exact.diameter_latency);
    }
    // Every GPU of these is as far from the rest as any other: the first search already finds the diameter.
    if (name.rfind("ring", 0) == 0 || name.rfind("torus", 0) == 0) CHECK(bounded.diameter_hops == exact.diameter_hops);
  }
  // A mesh is one hop everywhere: proven in one pass. A star, a fat tree and a DGX pair by the search from their
  // centre (the hops; the DGX pair's latency stays a bound: its GPU searches miss the slowest pair).
  CHECK(summarize(cases[4].second, 0).diameter_exact);
  CHECK(summarize(cases[5].second, 0).diameter_exact);
  CHECK(summarize(cases[6].second, 0).diameter_exact);
  CHECK(summarize(cases[7].second, 0).diameter_hops_upper == 6);
}

TEST_CASE("a ring of 200,000 GPUs gets its diameter bounded, and says so", "[summary]") {
  // System: ring:n=200000 at 1 us per link: 200,000 searches of 600,000 steps would be far above the budget.
  // Expected: the first search finds the true diameter, 100,000 hops and 100 ms, as a lower bound; the upper bound
  // is what a search through one node can prove (a ring's every node is as far out: n - 1 hops, 199,999 us).
  const Topology topology = build_topology("ring:n=200000,bw=100Gbps,lat=1us");
  const TopologySummary summary = summarize(topology);
  CHECK_FALSE(summary.diameter_exact);
  CHECK(summary.diameter_hops == 100000);
  CHECK(summary.diameter_latency == SimTime::from_ps(100'000'000'000));
  CHECK(summary.diameter_hops_upper == 199999);
  CHECK(summary.diameter_latency_upper == SimTime::from_ps(199'999'000'000));
  CHECK_THAT(to_text(summary, topology),
             Catch::Contains("diameter  >= 100000 hops, >= 100 ms (<= 199999 hops, <= 200 ms; exact search above the "
                             "work budget)\n"));
}

TEST_CASE("a DGX cluster above the work budget is bounded by searches from its hub", "[summary]") {
  // System: dgx:nodes=2000 (16,000 GPUs, no two with the same links: 16,000 searches, above the budget), rail planes
  // with a core tier at radix 64. Expected: at least the ten hops of a route to another rail in another pod (NVLink
  // to the rail's GPU, NIC, leaf, spine, core, spine, leaf, NIC, GPU), and an upper bound from one hub's searches
  // that a single rail plane cannot make tight (a core reaches the other rails only through their GPUs).
  const Topology topology = build_topology("dgx:nodes=2000,gpus=8");
  const TopologySummary summary = summarize(topology);
  CHECK_FALSE(summary.diameter_exact);
  CHECK(summary.diameter_hops == 10);
  CHECK(summary.diameter_hops_upper >= 10);
  CHECK_THAT(to_text(summary, topology), Catch::Contains("diameter  >= 10 hops"));
}

TEST_CASE("to_text marks the bounded parts of a diameter and only those", "[summary]") {
  const Topology topology = build_topology("ring:n=8,bw=100Gbps,lat=1us");
  TopologySummary summary = summarize(topology);
  summary.diameter_exact = false;
  summary.diameter_hops = 6;
  summary.diameter_hops_upper = 6;
  summary.diameter_latency = SimTime::from_us(8);
  summary.diameter_latency_upper = SimTime::from_us(12);
  CHECK_THAT(to_text(summary, topology),
             Catch::Contains("diameter  6 hops, >= 8 us (<= 12 us; exact search above the work budget)\n"));
  summary.diameter_hops_upper = 9;
  summary.diameter_latency_upper = SimTime::from_us(8);
  CHECK_THAT(to_text(summary, topology),
             Catch::Contains("diameter  >= 6 hops, 8 us (<= 9 hops; exact search above the work budget)\n"));
}
