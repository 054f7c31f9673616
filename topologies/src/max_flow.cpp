// Max flow with Boost's push-relabel on a view of the topology built for the purpose.
//
//   super source --inf--> each source node ... links (capacity = bandwidth) ... each sink node --inf--> super sink
//
// Capacities are whole bytes per second in int64, not doubles: push-relabel's flow-conservation checks compare
// exactly, and a rounding of at most 1 B/s per link is far below anything a summary prints.
#include "max_flow.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <cmath>

namespace syncsim::topology_detail {

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, std::int64_t,
                    boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

// Adds the edge u->v and its zero-capacity residual twin, as push-relabel requires.
void add_arc(FlowGraph& graph, std::size_t u, std::size_t v, std::int64_t capacity) {
  const auto forward = boost::add_edge(u, v, graph).first;
  const auto backward = boost::add_edge(v, u, graph).first;
  boost::put(boost::edge_capacity, graph, forward, capacity);
  boost::put(boost::edge_capacity, graph, backward, std::int64_t{0});
  boost::put(boost::edge_reverse, graph, forward, backward);
  boost::put(boost::edge_reverse, graph, backward, forward);
}

}  // namespace

Bandwidth max_flow(const Topology& topology, std::span<const NodeId> sources, std::span<const NodeId> sinks) {
  if (sources.empty() || sinks.empty()) return Bandwidth{};
  const std::size_t n = topology.node_count();
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  FlowGraph graph(n + 2);
  std::int64_t total = 0;
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    const auto capacity = static_cast<std::int64_t>(std::llround(link.bandwidth.bytes_per_second));
    add_arc(graph, link.src.value(), link.dst.value(), capacity);
    total += capacity;
  }
  // More than every link together can carry: never the bottleneck.
  const std::int64_t unlimited = total + 1;
  for (const NodeId v : sources) add_arc(graph, source, v.value(), unlimited);
  for (const NodeId v : sinks) add_arc(graph, v.value(), sink, unlimited);
  const std::int64_t flow = boost::push_relabel_max_flow(graph, source, sink);
  return Bandwidth{static_cast<double>(flow)};
}

}  // namespace syncsim::topology_detail
