#include "syncsim/collectives/transfer_cost.hpp"

namespace syncsim {

LinkKind classify(const Topology& topology, const Route& route) {
  LinkKind result = LinkKind::nvlink;
  for (const LinkId id : route.links) {
    const LinkKind kind = topology.link(id).kind;
    if (kind == LinkKind::network) return LinkKind::network;
    if (kind == LinkKind::pcie) result = LinkKind::pcie;
  }
  return result;
}

double wire_bytes(const TransferCost& cost, const Topology& topology, const Route& route, double bytes) {
  return wire_bytes(cost, classify(topology, route), bytes);
}

SimTime step_latency(const TransferCost& cost, const Topology& topology, const Route& route) {
  return step_latency(cost, classify(topology, route), route);
}

double wire_bytes(const TransferCost& cost, LinkKind route_class, double bytes) {
  return bytes / cost.efficiency[static_cast<std::size_t>(route_class)];
}

SimTime step_latency(const TransferCost& cost, LinkKind route_class, const Route& route) {
  if (!cost.step_latency) return route.latency;
  return (*cost.step_latency)[static_cast<std::size_t>(route_class)];
}

SimTime reduction_time(const std::optional<Bandwidth>& reduction_rate, double bytes) {
  if (!reduction_rate || bytes <= 0) return SimTime::zero();
  return SimTime::from_seconds(bytes / reduction_rate->bytes_per_second);
}

}  // namespace syncsim
