#include "syncsim/training/server_placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

namespace {

// The network switch with the most links (ties: the first), or nullopt when there is none.
std::optional<NodeId> core_switch(const Topology& topology) {
  std::optional<NodeId> best;
  std::size_t best_degree = 0;
  for (std::size_t i = 0; i < topology.node_count(); ++i) {
    const NodeId id{static_cast<std::uint32_t>(i)};
    if (topology.node(id).kind != NodeKind::network_switch) continue;
    const std::size_t degree = topology.out_links(id).size();
    if (!best || degree > best_degree) {
      best = id;
      best_degree = degree;
    }
  }
  return best;
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
                            std::optional<Bandwidth> nic, std::int64_t workers) {
  const Topology& topology = network.topology();
  PlacedServers out{topology, {}, Bandwidth{}};
  if (placement == ServerPlacement::colocated) {
    if (count > workers) {
      throw InputError(fmt::format("{} colocated servers need as many workers, but there are {}", count, workers));
    }
    for (std::int64_t j = 0; j < count; ++j) out.servers.push_back(topology.gpu(static_cast<std::size_t>(j)));
    return out;
  }
  const std::optional<NodeId> core = core_switch(topology);
  if (!core) {
    throw InputError(
        "dedicated servers attach to a network switch, and this topology has none; use placement: colocated");
  }
  out.server_link = nic.value_or(gpu_network_link(network, *core));
  SimTime latency;
  if (!topology.out_links(*core).empty()) latency = topology.link(topology.out_links(*core).front()).latency;
  for (std::int64_t j = 0; j < count; ++j) {
    const NodeId server = out.topology.add_node({fmt::format("ps{}", j), NodeKind::cpu, SimTime::zero(), std::nullopt});
    out.topology.add_duplex_link(server, *core, out.server_link, latency, LinkKind::network);
    out.servers.push_back(server);
  }
  return out;
}

}  // namespace syncsim
