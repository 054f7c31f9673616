#include "syncsim/topology/router.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr std::uint32_t kUnlabeled = std::numeric_limits<std::uint32_t>::max();
// Destinations whose search trees stay cached: collectives ask for many sources per destination in a row, and a
// handful covers interleaved patterns (e.g. both ring directions) without holding O(n) trees.
constexpr std::size_t kCachedTrees = 4;

std::uint64_t pair_key(NodeId src, NodeId dst) {
  return (std::uint64_t{src.value()} << 32) | dst.value();
}

// How good the rest of a path is, compared lexicographically once the hop count ties: fewer GPUs forwarding
// traffic first (GPUs relay only where the shape demands it, as in rings and tori; a DGX does not hop through a
// peer GPU to reach another rail), then the wider bottleneck (NVLink before a shared PCIe NIC).
struct PathValue {
  std::uint32_t gpu_transits = kUnlabeled;
  double width = 0;
  bool better_than(const PathValue& o) const {
    return gpu_transits != o.gpu_transits ? gpu_transits < o.gpu_transits : width > o.width;
  }
  bool operator==(const PathValue&) const = default;
};

// A breadth-first search from one destination over reversed links, run lazily: it stops as soon as the source
// asked for has its distance, and resumes (even in the middle of a node's links) for the next source. dist[v] is
// the hop count from v to the destination; best[v] is the PathValue of v's best shortest path, pushed to v by each
// neighbour one hop closer as that neighbour is expanded, so it is final once v's next level has been expanded.
//
// Two shortcuts keep a route on a 4096-port switch O(1) instead of O(ports): when a level has been fully labeled
// and the source links straight into it, the source is labeled without expanding that level (a ring neighbour
// never waits for the switch's 4096 incoming links); and the source's own best value is pulled from its few
// outgoing links instead of waiting for pushes. Labels are valid only where stamp == generation, so reusing a
// tree for a new destination costs O(1) instead of clearing O(nodes) arrays.
struct DestinationTree {
  NodeId dst;
  std::uint32_t generation = 0;
  std::uint64_t last_used = 0;
  std::vector<std::uint32_t> stamp;
  std::vector<std::uint32_t> dist;
  std::vector<PathValue> best;
  std::vector<NodeId> queue;
  std::size_t head = 0;    // queue[head] is the next node to expand
  std::size_t cursor = 0;  // ...and this many of its incoming links are done

  bool labeled(NodeId v) const { return stamp[v.value()] == generation; }
  std::uint32_t distance(NodeId v) const { return labeled(v) ? dist[v.value()] : kUnlabeled; }
  void label(std::uint32_t v, std::uint32_t distance_to_dst) {
    stamp[v] = generation;
    dist[v] = distance_to_dst;
    best[v] = PathValue{};
    queue.push_back(NodeId{v});
  }
};

// An incoming link, with what the search reads from it stored inline.
struct InArc {
  std::uint32_t from;
  double bandwidth;
};

}  // namespace

struct Router::Impl {
  const Topology& topology;
  // Incoming links per node (CSR: in_arcs[in_offset[v] .. in_offset[v+1]]), in link id order.
  std::vector<std::uint32_t> in_offset;
  std::vector<InArc> in_arcs;
  std::vector<LinkId> in_links;  // the link of each arc
  std::vector<char> is_gpu;
  std::vector<DestinationTree> trees;
  std::uint64_t clock = 0;
  std::unordered_map<std::uint64_t, Route> routes;

  explicit Impl(const Topology& t) : topology(t) {
    const std::size_t n = t.node_count();
    is_gpu.resize(n);
    for (std::uint32_t v = 0; v < n; ++v) is_gpu[v] = t.node(NodeId{v}).kind == NodeKind::gpu ? 1 : 0;
    in_offset.assign(n + 1, 0);
    for (std::uint32_t l = 0; l < t.link_count(); ++l) ++in_offset[t.link(LinkId{l}).dst.value() + 1];
    for (std::size_t v = 0; v < n; ++v) in_offset[v + 1] += in_offset[v];
    in_arcs.resize(t.link_count());
    in_links.resize(t.link_count());
    std::vector<std::uint32_t> fill(in_offset.begin(), in_offset.end() - 1);
    for (std::uint32_t l = 0; l < t.link_count(); ++l) {
      const Link& link = t.link(LinkId{l});
      const std::uint32_t slot = fill[link.dst.value()]++;
      in_arcs[slot] = InArc{link.src.value(), link.bandwidth.bytes_per_second};
      in_links[slot] = LinkId{l};
    }
  }

  std::span<const LinkId> incoming(NodeId v) const {
    return std::span<const LinkId>(in_links).subspan(in_offset[v.value()],
                                                     in_offset[v.value() + 1] - in_offset[v.value()]);
  }

  // The value of reaching dst through `link` from its source.
  PathValue via(const DestinationTree& tree, const Link& link) const {
    const PathValue& rest = tree.best[link.dst.value()];
    const bool relays = link.dst != tree.dst && is_gpu[link.dst.value()];
    return {rest.gpu_transits + (relays ? 1U : 0U), std::min(link.bandwidth.bytes_per_second, rest.width)};
  }

  DestinationTree& tree_for(NodeId dst) {
    ++clock;
    for (DestinationTree& tree : trees) {
      if (tree.dst == dst && tree.generation != 0) {
        tree.last_used = clock;
        return tree;
      }
    }
    if (trees.size() < kCachedTrees) {
      trees.emplace_back();
      DestinationTree& fresh = trees.back();
      const std::size_t n = topology.node_count();
      fresh.stamp.assign(n, 0);
      fresh.dist.assign(n, 0);
      fresh.best.assign(n, PathValue{});
    }
    DestinationTree& tree = *std::min_element(trees.begin(), trees.end(),
                                              [](const auto& a, const auto& b) { return a.last_used < b.last_used; });
    tree.dst = dst;
    tree.last_used = clock;
    if (++tree.generation == 0) {  // wrapped: old stamps could collide, so clear them once
      std::fill(tree.stamp.begin(), tree.stamp.end(), 0);
      tree.generation = 1;
    }
    tree.queue.clear();
    tree.head = 0;
    tree.cursor = 0;
    tree.stamp[dst.value()] = tree.generation;
    tree.dist[dst.value()] = 0;
    tree.best[dst.value()] = PathValue{0, std::numeric_limits<double>::infinity()};
    tree.queue.push_back(dst);
    return tree;
  }

  // src's best value from its links one hop closer, whose own values are final: src is labeled, so the level
  // before it is completely labeled and the one before that completely expanded.
  void pull_best(DestinationTree& tree, NodeId src) const {
    PathValue& best = tree.best[src.value()];
    for (const LinkId l : topology.out_links(src)) {
      const Link& link = topology.link(l);
      if (tree.distance(link.dst) + 1 != tree.dist[src.value()]) continue;
      const PathValue value = via(tree, link);
      if (value.better_than(best)) best = value;
    }
  }

  // True when src links into a node at `level`, a level that is completely labeled while src is not: src is then
  // exactly one hop further.
  bool links_into_level(const DestinationTree& tree, NodeId src, std::uint32_t level) const {
    for (const LinkId l : topology.out_links(src)) {
      if (tree.distance(topology.link(l).dst) == level) return true;
    }
    return false;
  }

  // Advances the search until src has its distance, then fixes src's best value. Every node nearer the
  // destination than src then has its final distance and value.
  void settle(DestinationTree& tree, NodeId src) {
    std::uint32_t checked_level = kUnlabeled;
    while (!tree.labeled(src) && tree.head < tree.queue.size()) {
      const NodeId at = tree.queue[tree.head];
      const std::uint32_t level = tree.dist[at.value()];
      // Every node at `level` is labeled: the previous level has been expanded completely.
      if (level != checked_level) {
        checked_level = level;
        if (links_into_level(tree, src, level)) {
          tree.label(src.value(), level + 1);
          break;
        }
      }
      const std::uint32_t next_dist = level + 1;
      const PathValue rest = tree.best[at.value()];
      const std::uint32_t transits = rest.gpu_transits + (at != tree.dst && is_gpu[at.value()] ? 1U : 0U);
      const std::uint32_t end = in_offset[at.value() + 1];
      std::uint32_t arc = in_offset[at.value()] + static_cast<std::uint32_t>(tree.cursor);
      for (; arc < end; ++arc) {
        const std::uint32_t from = in_arcs[arc].from;
        if (tree.stamp[from] != tree.generation) tree.label(from, next_dist);
        if (tree.dist[from] != next_dist) continue;
        const PathValue value{transits, std::min(in_arcs[arc].bandwidth, rest.width)};
        if (value.better_than(tree.best[from])) tree.best[from] = value;
        if (from == src.value()) break;
      }
      if (arc < end) {
        tree.cursor = arc + 1 - in_offset[at.value()];  // stopped at src: resume after this link next time
      } else {
        ++tree.head;
        tree.cursor = 0;
      }
    }
    if (tree.labeled(src)) pull_best(tree, src);
  }

  Route compute(NodeId src, NodeId dst) {
    DestinationTree& tree = tree_for(dst);
    settle(tree, src);
    if (!tree.labeled(src)) {
      throw InputError(fmt::format("no route from {} to {}", topology.node(src).name, topology.node(dst).name));
    }
    Route route;
    route.bottleneck = Bandwidth{std::numeric_limits<double>::infinity()};
    std::vector<LinkId> candidates;
    NodeId at = src;
    // Destination-mod-k: each choice point takes the next "digit" of the destination's id in the mixed radix of
    // the candidate counts seen so far, as InfiniBand fat-tree routing does. Flows to different destinations of
    // one leaf then spread evenly over its uplinks instead of colliding the way hashed ECMP does.
    std::uint64_t digits = dst.value();
    while (at != dst) {
      const std::uint32_t d = tree.dist[at.value()];
      const PathValue& target = tree.best[at.value()];
      candidates.clear();
      const auto consider = [&](LinkId l) {
        const Link& link = topology.link(l);
        if (link.src == at && tree.distance(link.dst) + 1 == d && via(tree, link) == target) candidates.push_back(l);
      };
      // The last hop is found from whichever side is smaller: a 4096-port switch has few links into one GPU.
      const std::span<const LinkId> out = topology.out_links(at);
      const std::span<const LinkId> in = incoming(dst);
      for (const LinkId l : (d == 1 && in.size() < out.size()) ? in : out) consider(l);
      SYNCSIM_INVARIANT(!candidates.empty(), "router lost the shortest path");
      const std::uint64_t choice = digits % candidates.size();
      digits /= candidates.size();
      const Link& link = topology.link(candidates[choice]);
      route.links.push_back(candidates[choice]);
      route.latency += link.latency;
      if (link.dst != dst) route.latency += topology.node(link.dst).latency;
      route.bottleneck = std::min(route.bottleneck, link.bandwidth);
      at = link.dst;
    }
    return route;
  }
};

Router::Router(const Topology& topology) : topology_(topology), impl_(std::make_unique<Impl>(topology)) {}
Router::~Router() = default;

const Route& Router::route(NodeId src, NodeId dst) {
  SYNCSIM_INVARIANT(src != dst, "route asked from a node to itself");
  SYNCSIM_INVARIANT(src.value() < topology_.node_count() && dst.value() < topology_.node_count(),
                    "route endpoint out of range");
  const std::uint64_t key = pair_key(src, dst);
  const auto found = impl_->routes.find(key);
  if (found != impl_->routes.end()) return found->second;
  // unordered_map keeps references to its elements valid across rehashing, so callers may hold on to them.
  return impl_->routes.emplace(key, impl_->compute(src, dst)).first->second;
}

const Route& Router::gpu_route(std::size_t src_gpu, std::size_t dst_gpu) {
  return route(topology_.gpu(src_gpu), topology_.gpu(dst_gpu));
}

}  // namespace syncsim
