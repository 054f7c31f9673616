#include "syncsim/training/server_placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

namespace {

// The network switches farthest (in hops) from every GPU: the top tier (a fat tree's spines or cores, a rail
// fabric's spines; the one switch of a star), in node order. Servers spread over them, so none sits behind a
// worker's leaf and no one spine carries them all. Empty when the topology has no network switch.
std::vector<NodeId> top_switches(const Topology& topology) {
  const std::size_t n = topology.node_count();
  constexpr std::size_t kUnreached = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> hops(n, kUnreached);
  std::deque<NodeId> frontier;
  for (std::size_t g = 0; g < topology.gpu_count(); ++g) {
    hops[topology.gpu(g).value()] = 0;
    frontier.push_back(topology.gpu(g));
  }
  while (!frontier.empty()) {  // breadth first from every GPU at once
    const NodeId at = frontier.front();
    frontier.pop_front();
    for (const LinkId link : topology.out_links(at)) {
      const NodeId next = topology.link(link).dst;
      if (hops[next.value()] != kUnreached) continue;
      hops[next.value()] = hops[at.value()] + 1;
      frontier.push_back(next);
    }
  }
  std::vector<NodeId> top;
  std::size_t farthest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const NodeId id{static_cast<std::uint32_t>(i)};
    if (topology.node(id).kind != NodeKind::network_switch || hops[i] == kUnreached) continue;
    if (hops[i] > farthest) top.clear();
    if (hops[i] >= farthest) {
      farthest = hops[i];
      top.push_back(id);
    }
  }
  return top;
}

// The narrowest network-kind link on GPU 0's way to `core`: what one GPU can push into the fabric.
Bandwidth gpu_network_link(Router& network, NodeId core) {
  const Topology& topology = network.topology();
  const Route& route = network.route(topology.gpu(0), core);
  std::optional<Bandwidth> narrowest;
  for (const LinkId link : route.links) {
    const Link& l = topology.link(link);
    if (l.kind != LinkKind::network) continue;
    if (!narrowest || l.bandwidth.bytes_per_second < narrowest->bytes_per_second) narrowest = l.bandwidth;
  }
  return narrowest.value_or(route.bottleneck);
}

}  // namespace

PlacedServers place_servers(Router& network, std::int64_t count, ServerPlacement placement,
                            std::optional<Bandwidth> nic, std::int64_t clients, std::int64_t client_gpus) {
  const Topology& topology = network.topology();
  PlacedServers out{topology, {}, Bandwidth{}};
  if (placement == ServerPlacement::colocated) {
    if (count > clients) {
      throw InputError(fmt::format("{} colocated servers need as many {}, but there are {}", count,
                                   client_gpus > 1 ? "groups" : "workers", clients));
    }
    for (std::int64_t j = 0; j < count; ++j)
      out.servers.push_back(topology.gpu(static_cast<std::size_t>(j * client_gpus)));
    return out;
  }
  const std::vector<NodeId> top = top_switches(topology);
  if (top.empty()) {
    throw InputError(
        "dedicated servers attach to a network switch, and this topology has none; use placement: colocated");
  }
  out.server_link = nic.value_or(gpu_network_link(network, top.front()));
  for (std::int64_t j = 0; j < count; ++j) {
    const NodeId attach = top[static_cast<std::size_t>(j) % top.size()];
    SimTime latency;
    if (!topology.out_links(attach).empty()) latency = topology.link(topology.out_links(attach).front()).latency;
    const NodeId server = out.topology.add_node({fmt::format("ps{}", j), NodeKind::cpu, SimTime::zero(), std::nullopt});
    out.topology.add_duplex_link(server, attach, out.server_link, latency, LinkKind::network);
    out.servers.push_back(server);
  }
  return out;
}

}  // namespace syncsim
