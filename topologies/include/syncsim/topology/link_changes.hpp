#pragma once
// Copies of a topology with some links running below their bandwidth or gone: what `degraded_links:` and
// link_down faults in a scenario do to the machine.
//
//   const NodeId nic = *find_node(topology, "nic3"), leaf = *find_node(topology, "leaf0");
//   std::map<LinkId, double> factors;
//   for (const LinkId link : links_between(topology, nic, leaf)) factors[link] = 0.25;   // both directions
//   Topology slow = with_link_factors(topology, factors);   // nic3 <-> leaf0 at a quarter of its bandwidth
//
// The copy has the same nodes with the same ids and GPU indices. A factor in (0, 1] scales a directed link's
// bandwidth and keeps its id; factor 0 removes the link, which renumbers the links after it (a Router built on
// the copy routes around it).
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "syncsim/core/strong_id.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

// The node called `name`, as `syncsim topo` prints it; nullopt when there is none.
std::optional<NodeId> find_node(const Topology& topology, std::string_view name);

// Every directed link a -> b and b -> a (parallel links included), in id order; empty when the nodes are not
// adjacent.
std::vector<LinkId> links_between(const Topology& topology, NodeId a, NodeId b);

// A copy in which each directed link in `factors` runs at factor x its bandwidth (latency unchanged), or is
// removed with factor 0. Throws InputError for a factor outside [0, 1] or a link id out of range.
Topology with_link_factors(const Topology& topology, const std::map<LinkId, double>& factors);

}  // namespace syncsim
