#pragma once
// The maximum flow from one set of nodes to another over the topology's directed links (the bisection bandwidth
// when the sets are the two halves of the GPUs).
#include <span>

#include "syncsim/core/units.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::topology_detail {

Bandwidth max_flow(const Topology& topology, std::span<const NodeId> sources, std::span<const NodeId> sinks);

}  // namespace syncsim::topology_detail
