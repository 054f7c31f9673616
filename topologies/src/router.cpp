#include "syncsim/topology/router.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <span>
#include <utility>

#include "route_table.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/run_cost.hpp"

namespace syncsim {

namespace {

constexpr std::uint32_t kUnlabeled = std::numeric_limits<std::uint32_t>::max();

std::uint64_t pair_key(NodeId src, NodeId dst) {
  return (std::uint64_t{src.value()} << 32) | dst.value();
}

// How good the rest of a path is, compared lexicographically once the hop count ties: fewer GPUs forwarding
// traffic first (GPUs relay only where the shape demands it, as in rings and tori; a DGX does not hop through a
// peer GPU to reach another rail), then the wider bottleneck (NVLink before a shared PCIe NIC), then the GPUs that
// relay nearer the source (the larger sum of their hops to the destination): where rails are planes of their own,
// a send to another rail crosses NVLink to the GPU on the destination's rail *before* the network, as NCCL's PXN
// does, rather than after it.
struct PathValue {
  std::uint32_t gpu_transits = kUnlabeled;
  std::uint32_t relay_hops = 0;
  double width = 0;
  bool better_than(const PathValue& o) const {
    if (gpu_transits != o.gpu_transits) return gpu_transits < o.gpu_transits;
    return width != o.width ? width > o.width : relay_hops > o.relay_hops;
  }
  bool operator==(const PathValue&) const = default;
};

// A link as one direction of the search reads it: the node at its far end, stored inline with its bandwidth.
struct Arc {
  std::uint32_t node;
  double bandwidth;
  LinkId link;
};

// Links per node in CSR form (arcs[offset[v] .. offset[v+1]]), in link id order.
struct Adjacency {
  std::vector<std::uint32_t> offset;
  std::vector<Arc> arcs;

  std::span<const Arc> of(std::uint32_t v) const {
    return std::span<const Arc>(arcs).subspan(offset[v], offset[v + 1] - offset[v]);
  }
  std::size_t degree(std::uint32_t v) const { return offset[v + 1] - offset[v]; }
};

// The numbers D-mod-k counts destinations in, as InfiniBand's fat-tree routing numbers them: the endpoints of each
// network switch in the order of its ports, switch after switch, so that the destinations below one leaf are
// consecutive and a leaf's flows to them take distinct uplinks. A GPU behind a NIC takes its NIC's number (a
// rail-optimized server's GPU g is then numbered by its node within rail g, not by g + 8 * node, which would put a
// rail's destinations on every eighth uplink only). Nodes on no network switch keep their id, as in topologies
// without a network, where the GPUs' own order is the leaf order.
std::vector<std::uint64_t> number_ports(const Topology& topology, const Adjacency& outgoing) {
  const std::size_t n = topology.node_count();
  constexpr std::uint64_t kUnnumbered = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint64_t> number(n, kUnnumbered);
  const auto is_switch = [&](std::uint32_t v) { return topology.node(NodeId{v}).kind == NodeKind::network_switch; };
  std::uint64_t next = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (!is_switch(v)) continue;
    for (const Arc& arc : outgoing.of(v)) {
      if (!is_switch(arc.node) && number[arc.node] == kUnnumbered) number[arc.node] = next++;
    }
  }
  if (next == 0) {  // no network: every node keeps its id
    for (std::uint32_t v = 0; v < n; ++v) number[v] = v;
    return number;
  }
  for (std::uint32_t v = 0; v < n; ++v) {
    if (number[v] != kUnnumbered || topology.node(NodeId{v}).kind != NodeKind::gpu) continue;
    for (const Arc& arc : outgoing.of(v)) {
      if (topology.node(NodeId{arc.node}).kind == NodeKind::nic && number[arc.node] != kUnnumbered) {
        number[v] = number[arc.node];
        break;
      }
    }
  }
  // The rest (a switch, a GPU with no NIC of its own) after every port, in id order.
  for (std::uint32_t v = 0; v < n; ++v) {
    if (number[v] == kUnnumbered) number[v] = next + v;
  }
  return number;
}

// A node's labels in both searches (indexed by side: 0 from the source, 1 to the destination) and its best value
// towards the destination, side by side: a search reads and writes them together, and on a 32,768-GPU fabric five
// arrays of them were five cache misses per node. Valid only where stamp == the search's generation, so a new search
// costs O(1) instead of clearing O(nodes) arrays.
struct NodeLabels {
  std::array<std::uint32_t, 2> stamp{};
  std::array<std::uint32_t, 2> dist{};
  PathValue best;
};

// Hop counts from one end of a breadth-first search, grown a level at a time, in the labels' `side`.
struct Levels {
  std::vector<NodeLabels>* labels = nullptr;
  std::size_t side = 0;
  std::vector<std::uint32_t> order;      // labeled nodes, nearest first
  std::vector<std::size_t> level_begin;  // level k is order[level_begin[k] .. level_begin[k+1] or the end]

  std::uint32_t depth() const { return static_cast<std::uint32_t>(level_begin.size() - 1); }
  std::span<const std::uint32_t> level(std::uint32_t k) const {
    const std::size_t end = k + 1 < level_begin.size() ? level_begin[k + 1] : order.size();
    return std::span<const std::uint32_t>(order).subspan(level_begin[k], end - level_begin[k]);
  }
  void start(std::uint32_t v, std::uint32_t generation) {
    order.clear();
    level_begin.assign(1, 0);
    label(v, generation);
  }
  // Opens the next level and returns the previous one's range in `order`, to be read by index: the new level grows
  // the same vector.
  std::pair<std::size_t, std::size_t> open_level() {
    const std::pair<std::size_t, std::size_t> frontier{level_begin.back(), order.size()};
    level_begin.push_back(order.size());
    return frontier;
  }
  void label(std::uint32_t v, std::uint32_t generation) {  // at the deepest level
    NodeLabels& at = (*labels)[v];
    at.stamp[side] = generation;
    at.dist[side] = depth();
    order.push_back(v);
  }
};

}  // namespace

// One route is one bidirectional breadth-first search: levels grow from the source over outgoing links and from the
// destination over incoming ones, always on the side whose next level costs fewer links, until a level meets the
// other side. On a fabric the two searches meet at the spines after a few hundred links, where one search from the
// destination would label the whole fabric (every leaf behind every spine) before reaching a far source; on a
// 4096-port switch they meet at the switch without expanding its ports.
//
// The route's choices need, for every node on a shortest path, its distance to the destination and its best
// PathValue over the shortest paths from there. For nodes the destination's search labeled, both come from that
// search (each node's value pushed to it by its neighbours one hop closer). For the source's side they come from
// the meeting level back towards the source, over the links the source's search crossed. Both are properties of
// the graph, so the route is the one any correct search gives: the same pair takes the same path whatever was
// asked before.
struct Router::Impl {
  const Topology& topology;
  Adjacency outgoing;
  Adjacency incoming;
  std::vector<char> is_gpu;
  std::vector<std::uint64_t> port_order;  // the destination's number for D-mod-k (number_ports)
  std::uint32_t generation = 0;
  std::vector<NodeLabels> labels;
  Levels from_src;  // hops from the source
  Levels to_dst;    // hops to the destination; where the route's choices read distances
  std::vector<LinkId> candidates;
  topology_detail::RouteTable routes;
  Route scratch;    // append_route_links's, not kept
  WorkBudget work;  // over every search of this router

  Impl(const Topology& t, std::uint64_t budget) : topology(t), work(kRouteSearchWork, budget) {
    const std::size_t n = t.node_count();
    is_gpu.resize(n);
    for (std::uint32_t v = 0; v < n; ++v) is_gpu[v] = t.node(NodeId{v}).kind == NodeKind::gpu ? 1 : 0;
    const auto build = [&](Adjacency& adjacency, bool by_source) {
      adjacency.offset.assign(n + 1, 0);
      for (std::uint32_t l = 0; l < t.link_count(); ++l) {
        const Link& link = t.link(LinkId{l});
        ++adjacency.offset[(by_source ? link.src : link.dst).value() + 1];
      }
      for (std::size_t v = 0; v < n; ++v) adjacency.offset[v + 1] += adjacency.offset[v];
      adjacency.arcs.resize(t.link_count());
      std::vector<std::uint32_t> fill(adjacency.offset.begin(), adjacency.offset.end() - 1);
      for (std::uint32_t l = 0; l < t.link_count(); ++l) {
        const Link& link = t.link(LinkId{l});
        const NodeId here = by_source ? link.src : link.dst;
        const NodeId there = by_source ? link.dst : link.src;
        adjacency.arcs[fill[here.value()]++] = Arc{there.value(), link.bandwidth.bytes_per_second, LinkId{l}};
      }
    };
    build(outgoing, true);
    build(incoming, false);
    labels.assign(n, NodeLabels{});
    from_src.labels = to_dst.labels = &labels;
    from_src.side = 0;
    to_dst.side = 1;
    port_order = number_ports(t, outgoing);
  }

  bool src_labeled(std::uint32_t v) const { return labels[v].stamp[0] == generation; }
  bool dst_labeled(std::uint32_t v) const { return labels[v].stamp[1] == generation; }
  std::uint32_t dist_to_dst(std::uint32_t v) const { return labels[v].dist[1]; }  // where dst_labeled
  std::uint32_t distance_to_dst(std::uint32_t v) const { return dst_labeled(v) ? dist_to_dst(v) : kUnlabeled; }
  PathValue& best(std::uint32_t v) { return labels[v].best; }
  const PathValue& best(std::uint32_t v) const { return labels[v].best; }

  // The value of reaching the destination from an arc's source through the arc into `next`.
  // `next` is labeled by the destination's side, so its distance is known.
  PathValue via(std::uint32_t next, const Arc& arc, std::uint32_t dst) const {
    const PathValue& rest = best(next);
    const bool relays = next != dst && is_gpu[next];
    return {rest.gpu_transits + (relays ? 1U : 0U), rest.relay_hops + (relays ? dist_to_dst(next) : 0U),
            std::min(arc.bandwidth, rest.width)};
  }

  template <typename Frontier>
  std::size_t links_out_of(const Frontier& nodes, const Adjacency& adjacency) const {
    std::size_t links = 0;
    for (const std::uint32_t v : nodes) links += adjacency.degree(v);
    return links;
  }

  void begin_search(NodeId src, NodeId dst) {
    if (++generation == 0) {  // wrapped: old stamps could collide, so clear them once
      for (NodeLabels& node : labels) node.stamp = {};
      generation = 1;
    }
    from_src.start(src.value(), generation);
    to_dst.start(dst.value(), generation);
    best(dst.value()) = PathValue{0, 0, std::numeric_limits<double>::infinity()};
  }

  // Labels the source side's next level; true when it meets the destination's side.
  bool grow_from_src() {
    const auto [begin, end] = from_src.open_level();
    bool met = false;
    for (std::size_t i = begin; i < end; ++i) {
      for (const Arc& arc : outgoing.of(from_src.order[i])) {
        if (src_labeled(arc.node)) continue;
        from_src.label(arc.node, generation);
        met = met || dst_labeled(arc.node);
      }
    }
    return met;
  }

  // Labels the destination side's next level, each new node's best value final once the whole level is done;
  // true when it meets the source's side.
  bool grow_to_dst(std::uint32_t dst) {
    const auto [begin, end] = to_dst.open_level();
    const std::uint32_t next = to_dst.depth();
    bool met = false;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t at = to_dst.order[i];
      for (const Arc& arc : incoming.of(at)) {
        const std::uint32_t from = arc.node;
        if (!dst_labeled(from)) {
          to_dst.label(from, generation);
          best(from) = PathValue{};
          met = met || src_labeled(from);
        }
        if (dist_to_dst(from) != next) continue;
        const PathValue value = via(at, arc, dst);
        if (value.better_than(best(from))) best(from) = value;
      }
    }
    return met;
  }

  // Once the sides meet at distance D = (source side's depth) + (destination side's depth), every shortest path
  // crosses the source side's last level at a node the destination's side labeled. The source side's nodes that
  // reach such a node level by level are on shortest paths; they get their distance and value here, walking back
  // towards the source. (None of them was labeled by the destination's side: that would make a shorter path.)
  void close_src_side(std::uint32_t dst) {
    const std::uint32_t total = from_src.depth() + to_dst.depth();
    for (std::uint32_t level = from_src.depth(); level-- > 0;) {
      const std::uint32_t remaining = total - level;
      for (const std::uint32_t v : from_src.level(level)) {
        PathValue value;
        bool on_path = false;
        for (const Arc& arc : outgoing.of(v)) {
          if (distance_to_dst(arc.node) != remaining - 1) continue;
          const PathValue through = via(arc.node, arc, dst);
          if (!on_path || through.better_than(value)) value = through;
          on_path = true;
        }
        if (!on_path) continue;
        labels[v].stamp[1] = generation;
        labels[v].dist[1] = remaining;
        best(v) = value;
      }
    }
  }

  // The links out of `at` that continue a best shortest path, in link id order (the order D-mod-k counts in).
  // They are found from whichever side has fewer links: `at`'s own, or those into the next level when the
  // destination's side labeled it (a spine has a port per leaf, the next level a handful of nodes).
  void next_hops(std::uint32_t at, std::uint32_t dst) {
    const std::uint32_t d = dist_to_dst(at);
    const PathValue& target = best(at);
    candidates.clear();
    if (d - 1 <= to_dst.depth()) {
      const std::span<const std::uint32_t> next_level = to_dst.level(d - 1);
      if (links_out_of(next_level, incoming) < outgoing.degree(at)) {
        for (const std::uint32_t next : next_level) {
          for (const Arc& arc : incoming.of(next)) {
            if (arc.node == at && via(next, arc, dst) == target) candidates.push_back(arc.link);
          }
        }
        std::sort(candidates.begin(), candidates.end());
        return;
      }
    }
    for (const Arc& arc : outgoing.of(at)) {
      if (distance_to_dst(arc.node) + 1 == d && via(arc.node, arc, dst) == target) candidates.push_back(arc.link);
    }
  }

  bool all_parallel() const {
    const NodeId first = topology.link(candidates.front()).dst;
    return std::all_of(candidates.begin(), candidates.end(), [&](LinkId l) { return topology.link(l).dst == first; });
  }

  // The route from src to dst, written over `route` (whose links' storage is reused).
  void compute(NodeId src, NodeId dst, Route& route) {
    begin_search(src, dst);
    for (bool met = false; !met;) {
      const std::span<const std::uint32_t> src_frontier = from_src.level(from_src.depth());
      const std::span<const std::uint32_t> dst_frontier = to_dst.level(to_dst.depth());
      // A side with nothing left to label has reached all it can without meeting the other.
      if (src_frontier.empty() || dst_frontier.empty()) {
        throw InputError(fmt::format("no route from {} to {}", topology.node(src).name, topology.node(dst).name));
      }
      const std::size_t src_links = links_out_of(src_frontier, outgoing);
      const std::size_t dst_links = links_out_of(dst_frontier, incoming);
      work.spend(std::min(src_links, dst_links) + 1);  // the smaller side grows
      met = src_links <= dst_links ? grow_from_src() : grow_to_dst(dst.value());
    }
    close_src_side(dst.value());

    route.links.clear();
    route.latency = SimTime::zero();
    route.bottleneck = Bandwidth{std::numeric_limits<double>::infinity()};
    // Destination-mod-k: each choice point takes the next "digit" of the destination's port number in the mixed radix
    // of the candidate counts seen so far, as InfiniBand fat-tree routing does. Flows to different destinations of one
    // leaf then spread evenly over its uplinks instead of colliding the way hashed ECMP does.
    //
    // Parallel links (candidates that all reach one node, as a spine's links to a core) take the digit the last
    // choice read, without using one up: a flow that climbed a spine's k-th link to a core comes down the k-th of
    // the core's links to the next spine, so flows that parted on the way up stay apart on the way down.
    std::uint64_t digits = port_order[dst.value()];
    std::uint64_t last_read = digits;
    NodeId at = src;
    while (at != dst) {
      next_hops(at.value(), dst.value());
      SYNCSIM_INVARIANT(!candidates.empty(), "router lost the shortest path");
      std::uint64_t choice = 0;
      if (candidates.size() > 1 && all_parallel()) {
        choice = last_read % candidates.size();
      } else if (candidates.size() > 1) {
        last_read = digits;
        choice = digits % candidates.size();
        digits /= candidates.size();
      }
      const Link& link = topology.link(candidates[choice]);
      route.links.push_back(candidates[choice]);
      route.latency += link.latency;
      if (link.dst != dst) route.latency += topology.node(link.dst).latency;
      route.bottleneck = std::min(route.bottleneck, link.bandwidth);
      at = link.dst;
    }
  }
};

Router::Router(const Topology& topology, std::uint64_t route_search_budget)
    : topology_(topology), impl_(std::make_unique<Impl>(topology, route_search_budget)) {
  static std::atomic<std::uint64_t> made{0};
  serial_ = ++made;
}

Router::~Router() = default;

void Router::renew_budget() {
  impl_->work.renew();
}

void Router::check_endpoints(NodeId src, NodeId dst) const {
  SYNCSIM_INVARIANT(src != dst, "route asked from a node to itself");
  SYNCSIM_INVARIANT(src.value() < topology_.node_count() && dst.value() < topology_.node_count(),
                    "route endpoint out of range");
}

const Route& Router::route(NodeId src, NodeId dst) {
  check_endpoints(src, dst);
  const std::uint64_t key = pair_key(src, dst);
  if (const Route* known = impl_->routes.find(key)) return *known;
  Route route;
  impl_->compute(src, dst, route);
  return impl_->routes.insert(key, std::move(route));
}

void Router::append_route_links(NodeId src, NodeId dst, std::vector<LinkId>& links) {
  check_endpoints(src, dst);
  const Route* known = impl_->routes.find(pair_key(src, dst));
  if (known == nullptr) {
    impl_->compute(src, dst, impl_->scratch);
    known = &impl_->scratch;
  }
  links.insert(links.end(), known->links.begin(), known->links.end());
}

const Route& Router::gpu_route(std::size_t src_gpu, std::size_t dst_gpu) {
  return route(topology_.gpu(src_gpu), topology_.gpu(dst_gpu));
}

}  // namespace syncsim
