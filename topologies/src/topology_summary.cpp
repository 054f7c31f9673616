#include "syncsim/topology/topology_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "max_flow.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

namespace {

// Up to this many GPUs the diameter is measured on the Router's own routes (n^2 of them, cached while summarizing).
// Beyond it, one breadth-first search per GPU gives the exact hop diameter and the latency along the search tree,
// which equals the routed latency whenever equal-hop paths have equal latency (every generated topology).
constexpr std::size_t kRoutedDiameterMaxGpus = 256;

struct Diameter {
  std::size_t hops = 0;
  SimTime latency;
};

Diameter routed_diameter(const Topology& topology) {
  Diameter result;
  Router router(topology);
  const std::size_t n = topology.gpu_count();
  // Destination-major, so the router's per-destination search is reused by every source.
  for (std::size_t dst = 0; dst < n; ++dst) {
    for (std::size_t src = 0; src < n; ++src) {
      if (src == dst) continue;
      const Route& route = router.gpu_route(src, dst);
      result.hops = std::max(result.hops, route.links.size());
      result.latency = std::max(result.latency, route.latency);
    }
  }
  return result;
}

Diameter searched_diameter(const Topology& topology) {
  // The graph as flat arrays first: this loop runs (GPUs x links) times, 10^8 steps for a 4096-GPU cluster.
  struct Arc {
    std::uint32_t dst;
    std::int64_t latency_ps;
  };
  const std::size_t nodes = topology.node_count();
  std::vector<std::uint32_t> offset(nodes + 1, 0);
  std::vector<Arc> arcs;
  arcs.reserve(topology.link_count());
  std::vector<std::int64_t> node_latency(nodes);
  for (std::uint32_t v = 0; v < nodes; ++v) {
    node_latency[v] = topology.node(NodeId{v}).latency.ps();
    for (const LinkId l : topology.out_links(NodeId{v})) {
      arcs.push_back(Arc{topology.link(l).dst.value(), topology.link(l).latency.ps()});
    }
    offset[v + 1] = static_cast<std::uint32_t>(arcs.size());
  }
  std::vector<std::uint32_t> gpus;
  for (std::size_t g = 0; g < topology.gpu_count(); ++g) gpus.push_back(topology.gpu(g).value());

  constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> hops(nodes);
  std::vector<std::int64_t> latency(nodes);
  std::vector<std::uint32_t> queue(nodes);
  std::uint32_t max_hops = 0;
  std::int64_t max_latency = 0;
  for (const std::uint32_t src : gpus) {
    std::fill(hops.begin(), hops.end(), kUnreached);
    std::size_t tail = 0;
    queue[tail++] = src;
    hops[src] = 0;
    latency[src] = 0;
    for (std::size_t head = 0; head < tail; ++head) {
      const std::uint32_t at = queue[head];
      // A node's own latency counts when a route passes through it, i.e. for everything beyond it.
      const std::int64_t base = latency[at] + (at == src ? 0 : node_latency[at]);
      for (std::uint32_t a = offset[at]; a < offset[at + 1]; ++a) {
        const std::uint32_t next = arcs[a].dst;
        if (hops[next] != kUnreached) continue;
        hops[next] = hops[at] + 1;
        latency[next] = base + arcs[a].latency_ps;
        queue[tail++] = next;
      }
    }
    for (const std::uint32_t dst : gpus) {
      if (hops[dst] == kUnreached) continue;
      max_hops = std::max(max_hops, hops[dst]);
      max_latency = std::max(max_latency, latency[dst]);
    }
  }
  return Diameter{max_hops, SimTime::from_ps(max_latency)};
}

std::string gpu_range(std::size_t first, std::size_t last) {
  return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
}

}  // namespace

TopologySummary summarize(const Topology& topology) {
  TopologySummary summary;
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) ++summary.nodes_by_kind[topology.node(NodeId{v}).kind];
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    if (link.reverse.value() >= l) ++summary.links_by_kind[link.kind];  // each duplex pair once
  }
  const std::size_t n = topology.gpu_count();
  summary.gpu_count = n;
  if (n < 2) return summary;

  std::vector<NodeId> lower;
  std::vector<NodeId> upper;
  for (std::size_t g = 0; g < n; ++g) (g < n / 2 ? lower : upper).push_back(topology.gpu(g));
  summary.bisection_bandwidth = topology_detail::max_flow(topology, lower, upper);

  const Diameter diameter = n <= kRoutedDiameterMaxGpus ? routed_diameter(topology) : searched_diameter(topology);
  summary.diameter_hops = diameter.hops;
  summary.diameter_latency = diameter.latency;
  return summary;
}

std::string to_text(const TopologySummary& summary, const Topology& topology) {
  std::string nodes_detail;
  std::size_t node_total = 0;
  for (const auto& [kind, count] : summary.nodes_by_kind) {
    nodes_detail += fmt::format("{}{} {}", nodes_detail.empty() ? "" : ", ", count, to_string(kind));
    node_total += count;
  }
  std::string links_detail;
  for (const auto& [kind, count] : summary.links_by_kind) {
    links_detail += fmt::format("{}{} {}", links_detail.empty() ? "" : ", ", count, to_string(kind));
  }
  std::size_t duplex = 0;
  std::size_t simplex = 0;
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    if (link.reverse.value() == l) ++simplex;
    if (link.reverse.value() > l) ++duplex;
  }
  const std::string link_totals =
      simplex == 0 ? fmt::format("{} duplex", duplex) : fmt::format("{} duplex, {} simplex", duplex, simplex);

  std::string out;
  out += fmt::format("topology  {}\n", topology.description().empty() ? "(unnamed)" : topology.description());
  out += fmt::format("nodes     {} ({})\n", node_total, nodes_detail);
  out += fmt::format("links     {} ({})\n", link_totals, links_detail);
  const std::size_t n = summary.gpu_count;
  if (n < 2) {
    out += fmt::format("bisection n/a ({} GPU{})\n", n, n == 1 ? "" : "s");
    return out;
  }
  // Network people think in Gbps: print both, without scientific notation for big clusters.
  const double gbps = summary.bisection_bandwidth.bytes_per_second * 8 / 1e9;
  const std::string gbps_text = gbps >= 1e4 ? fmt::format("{:.0f}", gbps) : fmt::format("{:.4g}", gbps);
  out += fmt::format("bisection {} ({} Gbps) between GPUs {} and {}\n", format_bandwidth(summary.bisection_bandwidth),
                     gbps_text, gpu_range(0, n / 2 - 1), gpu_range(n / 2, n - 1));
  out += fmt::format("diameter  {} hops, {}\n", summary.diameter_hops, format_duration(summary.diameter_latency));
  return out;
}

}  // namespace syncsim
