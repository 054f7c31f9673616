#include "syncsim/topology/topology_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "max_flow.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/switch_tiers.hpp"

namespace syncsim {

namespace {

// Up to this many GPUs the diameter is measured on the Router's own routes (n^2 of them, cached while summarizing).
// Beyond it, one breadth-first search per GPU gives the exact hop diameter and the latency along the search tree,
// which equals the routed latency whenever equal-hop paths have equal latency (every generated topology).
constexpr std::size_t kRoutedDiameterMaxGpus = 256;

// Searches the bounds may take above the work budget (each one forward and one backward): a handful of linear
// passes, so the bounds of a 200,000-GPU ring cost milliseconds.
constexpr int kBoundingSearches = 8;

struct Diameter {
  std::size_t hops = 0;
  SimTime latency;
  bool exact = true;
  std::size_t hops_upper = 0;  // equal to hops when exact, likewise latency_upper
  SimTime latency_upper;
};

Diameter exact_diameter(std::size_t hops, SimTime latency) {
  return Diameter{hops, latency, true, hops, latency};
}

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
  return exact_diameter(result.hops, result.latency);
}

// The graph as flat arrays, and one breadth-first search over them: the search the hop diameter is measured by.
class SearchGraph {
 public:
  static constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();

  struct Arc {
    std::uint32_t dst;
    std::int64_t latency_ps;
    bool operator==(const Arc&) const = default;
    auto operator<=>(const Arc&) const = default;
  };

  // `reversed`: every link turned around, so a search finds the hops *to* its root (the bounds need both ways).
  explicit SearchGraph(const Topology& topology, bool reversed = false)
      : offset_(topology.node_count() + 1, 0),
        node_latency_(topology.node_count()),
        hops_(topology.node_count()),
        latency_(topology.node_count()),
        parent_(topology.node_count()),
        queue_(topology.node_count()) {
    for (std::uint32_t v = 0; v < topology.node_count(); ++v) node_latency_[v] = topology.node(NodeId{v}).latency.ps();
    if (reversed) {
      build_reversed(topology);
      return;
    }
    arcs_.reserve(topology.link_count());
    for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
      for (const LinkId l : topology.out_links(NodeId{v})) {
        arcs_.push_back(Arc{topology.link(l).dst.value(), topology.link(l).latency.ps()});
      }
      offset_[v + 1] = static_cast<std::uint32_t>(arcs_.size());
    }
  }

  std::size_t node_count() const { return hops_.size(); }
  std::size_t arc_count() const { return arcs_.size(); }
  std::int64_t node_latency(std::uint32_t v) const { return node_latency_[v]; }

  std::span<const Arc> out(std::uint32_t v) const {
    return std::span<const Arc>(arcs_).subspan(offset_[v], offset_[v + 1] - offset_[v]);
  }

  // Hop counts and latencies from src along the search tree; hops(v) == kUnreached where src does not reach v.
  void search(std::uint32_t src) {
    std::fill(hops_.begin(), hops_.end(), kUnreached);
    std::size_t tail = 0;
    queue_[tail++] = src;
    hops_[src] = 0;
    latency_[src] = 0;
    for (std::size_t head = 0; head < tail; ++head) {
      const std::uint32_t at = queue_[head];
      // A node's own latency counts when a route passes through it, i.e. for everything beyond it.
      const std::int64_t base = latency_[at] + (at == src ? 0 : node_latency_[at]);
      for (const Arc& arc : out(at)) {
        if (hops_[arc.dst] != kUnreached) continue;
        hops_[arc.dst] = hops_[at] + 1;
        latency_[arc.dst] = base + arc.latency_ps;
        parent_[arc.dst] = at;
        queue_[tail++] = arc.dst;
      }
    }
  }
  std::uint32_t hops(std::uint32_t v) const { return hops_[v]; }
  std::int64_t latency(std::uint32_t v) const { return latency_[v]; }
  // The node on the last search's tree path to v, `up` hops before it.
  std::uint32_t ancestor(std::uint32_t v, std::uint32_t up) const {
    for (; up > 0; --up) v = parent_[v];
    return v;
  }

 private:
  void build_reversed(const Topology& topology) {
    for (std::uint32_t l = 0; l < topology.link_count(); ++l) ++offset_[topology.link(LinkId{l}).dst.value() + 1];
    for (std::size_t v = 1; v < offset_.size(); ++v) offset_[v] += offset_[v - 1];
    std::vector<std::uint32_t> fill(offset_.begin(), offset_.end() - 1);
    arcs_.resize(topology.link_count());
    for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
      const Link& link = topology.link(LinkId{l});
      arcs_[fill[link.dst.value()]++] = Arc{link.src.value(), link.latency.ps()};
    }
  }

  std::vector<std::uint32_t> offset_;
  std::vector<Arc> arcs_;
  std::vector<std::int64_t> node_latency_;
  std::vector<std::uint32_t> hops_;
  std::vector<std::int64_t> latency_;
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> queue_;
};

// GPUs whose outgoing links are the same list (same targets, same latencies, same order) search alike, so one
// search per such "twin" group gives the searches of all its members. Why: from any member the first level is the
// same nodes with the same latencies, and a member's links lead only into that level, so expanding a member adds
// nothing. The searches from two members therefore label every non-member alike, and label each other member x
// alike too (x is reached by the same non-members' links whoever the root is), except the root itself. The labels
// of the other members come from the first member's search, the first member's own label from the second's.
// A star of 200,000 GPUs is one group (two searches instead of 200,000); a fat tree one group per leaf switch.
std::vector<std::vector<std::uint32_t>> twin_groups(const SearchGraph& graph, const std::vector<std::uint32_t>& gpus) {
  std::vector<std::uint32_t> order = gpus;
  const auto less = [&](std::uint32_t a, std::uint32_t b) {
    const auto x = graph.out(a);
    const auto y = graph.out(b);
    return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
  };
  std::stable_sort(order.begin(), order.end(), less);
  std::vector<std::vector<std::uint32_t>> groups;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || less(order[i - 1], order[i])) groups.emplace_back();
    groups.back().push_back(order[i]);
  }
  return groups;
}

// One search per twin group (two for a group of several), as twin_groups explains.
std::size_t searches_for(const std::vector<std::vector<std::uint32_t>>& groups) {
  std::size_t searches = 0;
  for (const std::vector<std::uint32_t>& group : groups) searches += group.size() > 1 ? 2 : 1;
  return searches;
}

Diameter searched_diameter(SearchGraph& graph, const std::vector<std::uint32_t>& gpus,
                           const std::vector<std::vector<std::uint32_t>>& groups) {
  std::uint32_t max_hops = 0;
  std::int64_t max_latency = 0;
  const auto note = [&](std::uint32_t dst) {
    if (graph.hops(dst) == SearchGraph::kUnreached) return;
    max_hops = std::max(max_hops, graph.hops(dst));
    max_latency = std::max(max_latency, graph.latency(dst));
  };
  for (const std::vector<std::uint32_t>& group : groups) {
    graph.search(group.front());
    for (const std::uint32_t dst : gpus) note(dst);  // the root's own 0 hops change no maximum
    if (group.size() > 1) {
      graph.search(group[1]);
      note(group.front());
    }
  }
  return exact_diameter(max_hops, SimTime::from_ps(max_latency));
}

// What one search says about the GPUs: the farthest reached (the first of the farthest, in GPU order), its hops,
// the largest latency, and whether every GPU was reached.
struct Reach {
  std::uint32_t farthest = 0;
  std::uint32_t hops = 0;
  std::int64_t latency = 0;
  bool all = true;
};

Reach reach(const SearchGraph& graph, const std::vector<std::uint32_t>& gpus) {
  Reach result;
  result.farthest = gpus.front();
  for (const std::uint32_t g : gpus) {
    if (graph.hops(g) == SearchGraph::kUnreached) {
      result.all = false;
      continue;
    }
    if (graph.hops(g) > result.hops) result.farthest = g;
    result.hops = std::max(result.hops, graph.hops(g));
    result.latency = std::max(result.latency, graph.latency(g));
  }
  return result;
}

// A route of `hops` links passes hops - 1 nodes: no route of the diameter's hops can take longer than this.
std::int64_t latency_ceiling(const SearchGraph& graph, std::size_t hops) {
  std::int64_t link_max = 0;
  for (std::uint32_t v = 0; v < graph.node_count(); ++v) {
    for (const SearchGraph::Arc& arc : graph.out(v)) link_max = std::max(link_max, arc.latency_ps);
  }
  std::int64_t node_max = 0;
  for (std::uint32_t v = 0; v < graph.node_count(); ++v) node_max = std::max(node_max, graph.node_latency(v));
  if (hops == 0) return 0;
  const long double ceiling = static_cast<long double>(hops) * link_max + static_cast<long double>(hops - 1) * node_max;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return ceiling >= static_cast<long double>(kMax) ? kMax : static_cast<std::int64_t>(ceiling);
}

// The longest latency of any walk of at most `hops` links from a GPU to a GPU (intermediate nodes' latencies
// counted): every route of the diameter's hops is such a walk, so this bounds the diameter's latency, often far
// tighter than latency_ceiling on mixed links (NVLink, PCIe, network). One pass over the links per hop.
std::int64_t longest_walk_latency(const SearchGraph& graph, const std::vector<std::uint32_t>& gpus, std::size_t hops) {
  constexpr std::int64_t kNone = -1;  // no such walk; latencies are never negative
  std::vector<std::int64_t> ending(graph.node_count(), kNone);
  for (const std::uint32_t g : gpus) ending[g] = 0;
  std::vector<std::int64_t> next(graph.node_count());
  std::int64_t longest = 0;
  for (std::size_t k = 0; k < hops; ++k) {
    std::fill(next.begin(), next.end(), kNone);
    for (std::uint32_t v = 0; v < graph.node_count(); ++v) {
      if (ending[v] == kNone) continue;
      const std::int64_t base = topology_detail::saturating_add(ending[v], k == 0 ? 0 : graph.node_latency(v));
      for (const SearchGraph::Arc& arc : graph.out(v)) {
        next[arc.dst] = std::max(next[arc.dst], topology_detail::saturating_add(base, arc.latency_ps));
      }
    }
    ending.swap(next);
    for (const std::uint32_t g : gpus) longest = std::max(longest, ending[g]);
  }
  return longest;
}

// When every GPU links straight to every other (a mesh), the diameter is one hop and each search would stop at its
// first level: the first link to each GPU, in link order. Exact in one pass over the links.
std::optional<Diameter> one_hop_diameter(const SearchGraph& graph, const std::vector<std::uint32_t>& gpus) {
  std::vector<std::uint32_t> seen(graph.node_count(), SearchGraph::kUnreached);
  std::vector<bool> is_gpu(graph.node_count(), false);
  for (const std::uint32_t g : gpus) is_gpu[g] = true;
  std::int64_t max_latency = 0;
  for (const std::uint32_t src : gpus) {
    std::size_t reached = 0;
    for (const SearchGraph::Arc& arc : graph.out(src)) {
      if (!is_gpu[arc.dst] || arc.dst == src || seen[arc.dst] == src) continue;
      seen[arc.dst] = src;
      ++reached;
      max_latency = std::max(max_latency, arc.latency_ps);
    }
    if (reached + 1 < gpus.size()) return std::nullopt;
  }
  return exact_diameter(1, SimTime::from_ps(max_latency));
}

// The node with the most links (in and out; the first such): a switch at the core of a tree, where one search
// both ways bounds every route tightly.
std::uint32_t hub(const SearchGraph& graph, const SearchGraph& reversed) {
  std::uint32_t best = 0;
  for (std::uint32_t v = 1; v < graph.node_count(); ++v) {
    if (graph.out(v).size() + reversed.out(v).size() > graph.out(best).size() + reversed.out(best).size()) best = v;
  }
  return best;
}

// Above the work budget: bounds from a few searches, exact when they meet. Lower: the farthest GPU of searches from
// GPUs, each searched from the last one's farthest (a double sweep). Upper: d(s,t) <= d(s,w) + d(w,t), so the
// hops into w plus the hops out of w bound every pair when w reaches every GPU both ways; w is first the node with
// the most links, then alternates between far GPUs and the midpoint of the last far path (near a centre, where the
// bound is tightest: a fat tree's or a DGX cluster's spine proves the exact hops). A ring or torus keeps a gap
// (every node is as far from the rest as any other, so the bound is twice the diameter). No randomness: the same
// graph gets the same searches.
Diameter bounded_diameter(const Topology& topology, SearchGraph& graph, const std::vector<std::uint32_t>& gpus) {
  if (std::optional<Diameter> mesh = one_hop_diameter(graph, gpus)) return *mesh;
  SearchGraph reversed(topology, true);
  std::vector<bool> is_gpu(graph.node_count(), false);
  for (const std::uint32_t g : gpus) is_gpu[g] = true;
  std::vector<bool> searched(graph.node_count(), false);

  std::size_t lower = 0;
  std::int64_t lower_latency = 0;
  std::size_t upper = graph.node_count() - 1;  // a fewest-hop route visits no node twice
  // Searches from root both ways and tightens the bounds; returns what it found going out.
  const auto visit = [&](std::uint32_t root) {
    searched[root] = true;
    graph.search(root);
    const Reach out = reach(graph, gpus);
    if (is_gpu[root]) {
      lower = std::max<std::size_t>(lower, out.hops);
      lower_latency = std::max(lower_latency, out.latency);
    }
    reversed.search(root);
    const Reach in = reach(reversed, gpus);
    if (out.all && in.all) upper = std::min<std::size_t>(upper, std::size_t{out.hops} + in.hops);
    return out;
  };
  // From a GPU, next the midpoint of its far path; from anywhere else, its farthest GPU (a far start for a sweep).
  std::uint32_t root = hub(graph, reversed);
  // Symmetric graphs (rings, tori) gain nothing from more searches: stop after two in a row that tighten nothing.
  int fruitless = 0;
  for (int i = 0; i < kBoundingSearches && lower < upper && fruitless < 2; ++i) {
    const std::pair<std::size_t, std::size_t> before{lower, upper};
    const Reach out = visit(root);
    fruitless = std::pair{lower, upper} == before ? fruitless + 1 : 0;
    root = is_gpu[root] ? graph.ancestor(out.farthest, (out.hops + 1) / 2) : out.farthest;
    if (searched[root]) root = out.farthest;
    if (searched[root]) root = gpus.front();
    if (searched[root]) break;
  }
  // The walk bound costs no more searches' worth than the bounds above took.
  const std::int64_t upper_latency =
      upper <= 2 * kBoundingSearches ? std::min(latency_ceiling(graph, upper), longest_walk_latency(graph, gpus, upper))
                                     : latency_ceiling(graph, upper);
  if (lower == upper && lower_latency == upper_latency) {
    return exact_diameter(lower, SimTime::from_ps(lower_latency));
  }
  return Diameter{lower, SimTime::from_ps(lower_latency), false, upper, SimTime::from_ps(upper_latency)};
}

Diameter diameter(const Topology& topology, double work_budget) {
  const double work = static_cast<double>(topology.node_count() + topology.link_count());
  const std::size_t n = topology.gpu_count();
  if (n <= kRoutedDiameterMaxGpus && static_cast<double>(n) * work <= work_budget) return routed_diameter(topology);
  SearchGraph graph(topology);
  std::vector<std::uint32_t> gpus;
  for (std::size_t g = 0; g < n; ++g) gpus.push_back(topology.gpu(g).value());
  const std::vector<std::vector<std::uint32_t>> groups = twin_groups(graph, gpus);
  if (static_cast<double>(searches_for(groups)) * work <= work_budget) return searched_diameter(graph, gpus, groups);
  return bounded_diameter(topology, graph, gpus);
}

std::string gpu_range(std::size_t first, std::size_t last) {
  return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
}

// Exact: "5 hops, 9 us". Bounded: each part that is not exact as a lower bound, its upper bound in parentheses,
// e.g. ">= 100000 hops, 100 ms (<= 199999 hops; exact search above the work budget)".
std::string diameter_text(const TopologySummary& summary) {
  if (summary.diameter_exact) {
    return fmt::format("diameter  {} hops, {}\n", summary.diameter_hops, format_duration(summary.diameter_latency));
  }
  const bool hops_exact = summary.diameter_hops == summary.diameter_hops_upper;
  const bool latency_exact = summary.diameter_latency == summary.diameter_latency_upper;
  std::string uppers;
  if (!hops_exact) uppers += fmt::format("<= {} hops", summary.diameter_hops_upper);
  if (!latency_exact) {
    uppers += fmt::format("{}<= {}", uppers.empty() ? "" : ", ", format_duration(summary.diameter_latency_upper));
  }
  return fmt::format("diameter  {}{} hops, {}{} ({}; exact search above the work budget)\n",
                     hops_exact ? "" : ">= ", summary.diameter_hops,
                     latency_exact ? "" : ">= ", format_duration(summary.diameter_latency), uppers);
}

}  // namespace

TopologySummary summarize(const Topology& topology, double diameter_work_budget) {
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

  const Diameter measured = diameter(topology, diameter_work_budget);
  summary.diameter_hops = measured.hops;
  summary.diameter_latency = measured.latency;
  summary.diameter_exact = measured.exact;
  summary.diameter_hops_upper = measured.hops_upper;
  summary.diameter_latency_upper = measured.latency_upper;
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
  out += diameter_text(summary);
  out += to_text(switch_tiers(topology));
  return out;
}

}  // namespace syncsim
