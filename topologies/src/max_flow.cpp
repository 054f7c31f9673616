// Max flow by Dinic's algorithm on a flat (CSR) residual graph built for the purpose:
//
//   super source --inf--> each source node ... links (capacity = bandwidth) ... each sink node --inf--> super sink
//
// Each phase labels nodes by their hop distance from the super source over arcs with residual capacity, then pushes
// a blocking flow along arcs that go one level down; at most (nodes) phases, each O(nodes x arcs) in theory and
// close to linear on cluster networks (a bisection's paths are short and many). The search is iterative, not
// recursive: a ring of 200,000 GPUs has augmenting paths of 100,000 hops.
//
// Capacities are whole bytes per second in int64, not doubles: conservation holds exactly, and a rounding of at most
// 1 B/s per link is far below anything a summary prints. The maximum flow's value is unique, so it is the same
// whatever algorithm finds it (Boost's push-relabel did before; its graph spent an allocation per arc, most of the
// time of `syncsim topo switch:n=200000`).
#include "max_flow.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace syncsim::topology_detail {

namespace {

constexpr std::int64_t kMaxCapacity = std::numeric_limits<std::int64_t>::max();

// A link's capacity in whole bytes per second; a rate beyond int64 (llround's range) is int64's largest.
std::int64_t capacity_of(const Link& link) {
  const double rate = link.bandwidth.bytes_per_second;
  if (!(rate < 9.2e18)) return rate > 0 ? kMaxCapacity : 0;
  return rate > 0 ? static_cast<std::int64_t>(std::llround(rate)) : 0;
}

class ResidualGraph {
 public:
  explicit ResidualGraph(std::size_t nodes) : offset_(nodes + 1, 0) {}

  // Arcs are declared first (so the CSR arrays are sized once), then added in the same order.
  void declare(std::size_t u, std::size_t v) {
    ++offset_[u + 1];
    ++offset_[v + 1];
  }
  void finish_declaring() {
    for (std::size_t v = 1; v < offset_.size(); ++v) offset_[v] += offset_[v - 1];
    fill_.assign(offset_.begin(), offset_.end() - 1);
    to_.resize(offset_.back());
    capacity_.resize(offset_.back());
    twin_.resize(offset_.back());
  }
  // u->v with `capacity`, and its residual twin v->u with none.
  void add(std::size_t u, std::size_t v, std::int64_t capacity) {
    const std::uint32_t forward = fill_[u]++;
    const std::uint32_t backward = fill_[v]++;
    to_[forward] = static_cast<std::uint32_t>(v);
    capacity_[forward] = capacity;
    twin_[forward] = backward;
    to_[backward] = static_cast<std::uint32_t>(u);
    capacity_[backward] = 0;
    twin_[backward] = forward;
  }

  std::int64_t max_flow(std::uint32_t source, std::uint32_t sink) {
    std::int64_t total = 0;
    while (label_levels(source, sink)) total = saturating_add(total, blocking_flow(source, sink));
    return total;
  }

 private:
  static constexpr std::int32_t kUnreached = -1;

  bool label_levels(std::uint32_t source, std::uint32_t sink) {
    level_.assign(offset_.size() - 1, kUnreached);
    queue_.assign(1, source);
    level_[source] = 0;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const std::uint32_t at = queue_[head];
      for (std::uint32_t a = offset_[at]; a < offset_[at + 1]; ++a) {
        if (capacity_[a] > 0 && level_[to_[a]] == kUnreached) {
          level_[to_[a]] = level_[at] + 1;
          queue_.push_back(to_[a]);
        }
      }
    }
    return level_[sink] != kUnreached;
  }

  // Augments along level-increasing paths until none is left; next_[v] is v's first arc not yet known useless.
  std::int64_t blocking_flow(std::uint32_t source, std::uint32_t sink) {
    next_.assign(offset_.begin(), offset_.end() - 1);
    std::int64_t pushed = 0;
    std::vector<std::uint32_t> path;  // arcs from the source
    std::uint32_t at = source;
    for (;;) {
      if (at == sink) {
        std::int64_t bottleneck = std::numeric_limits<std::int64_t>::max();
        for (const std::uint32_t a : path) bottleneck = std::min(bottleneck, capacity_[a]);
        for (const std::uint32_t a : path) {
          capacity_[a] -= bottleneck;
          capacity_[twin_[a]] += bottleneck;
        }
        pushed = saturating_add(pushed, bottleneck);
        path.clear();
        at = source;
        continue;
      }
      std::uint32_t& a = next_[at];
      while (a < offset_[at + 1] && !(capacity_[a] > 0 && level_[to_[a]] == level_[at] + 1)) ++a;
      if (a < offset_[at + 1]) {
        path.push_back(a);
        at = to_[a];
        continue;
      }
      // A dead end: nothing more goes through `at` in this phase. Step back and skip the arc that led here.
      if (path.empty()) return pushed;
      level_[at] = kUnreached;
      at = to_[twin_[path.back()]];
      path.pop_back();
      ++next_[at];
    }
  }

  std::vector<std::uint32_t> offset_;
  std::vector<std::uint32_t> fill_;
  std::vector<std::uint32_t> to_;
  std::vector<std::int64_t> capacity_;
  std::vector<std::uint32_t> twin_;
  std::vector<std::int32_t> level_;
  std::vector<std::uint32_t> queue_;
  std::vector<std::uint32_t> next_;
};

}  // namespace

Bandwidth max_flow(const Topology& topology, std::span<const NodeId> sources, std::span<const NodeId> sinks) {
  if (sources.empty() || sinks.empty()) return Bandwidth{};
  const std::size_t n = topology.node_count();
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  ResidualGraph graph(n + 2);
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    graph.declare(topology.link(LinkId{l}).src.value(), topology.link(LinkId{l}).dst.value());
  }
  for (const NodeId v : sources) graph.declare(source, v.value());
  for (const NodeId v : sinks) graph.declare(v.value(), sink);
  graph.finish_declaring();

  std::int64_t total = 0;
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    graph.add(link.src.value(), link.dst.value(), capacity_of(link));
    total = saturating_add(total, capacity_of(link));
  }
  // More than every link together can carry: never the bottleneck.
  const std::int64_t unlimited = saturating_add(total, 1);
  for (const NodeId v : sources) graph.add(source, v.value(), unlimited);
  for (const NodeId v : sinks) graph.add(v.value(), sink, unlimited);
  const std::int64_t flow = graph.max_flow(static_cast<std::uint32_t>(source), static_cast<std::uint32_t>(sink));
  return Bandwidth{static_cast<double>(flow)};
}

}  // namespace syncsim::topology_detail
