// Summary: counts by kind, bisection bandwidth against closed forms, diameter, and the printed text.
#include "syncsim/topology/topology_summary.hpp"

#include <catch2/catch.hpp>

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
