#pragma once
// Which workers a failed link cuts off. Workers are ranks 0..N-1 on GPUs 0..N-1; once the links are gone, the
// workers that still reach each other form groups, the largest group trains on (on a tie, the one with the lowest
// rank) and the others are cut off. None are when a redundant path exists.
#include <cstdint>
#include <vector>

#include "syncsim/topology/topology.hpp"

namespace syncsim {

// The workers (ranks 0..workers-1) that no longer reach the largest group of workers once `links` are gone.
std::vector<std::int64_t> cut_off_workers(const Topology& topology, const std::vector<LinkId>& links,
                                          std::int64_t workers);

}  // namespace syncsim
