#pragma once
// The maximum flow from one set of nodes to another over the topology's directed links (the bisection bandwidth
// when the sets are the two halves of the GPUs).
#include <cstdint>
#include <limits>
#include <span>

#include "syncsim/core/units.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::topology_detail {

// a + b, or int64's largest where that would overflow: the links of a huge network at absurd rates (a DOT file may
// say bw="1e30Bps") still add up.
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return b > kMax - a ? kMax : a + b;
}

Bandwidth max_flow(const Topology& topology, std::span<const NodeId> sources, std::span<const NodeId> sinks);

}  // namespace syncsim::topology_detail
