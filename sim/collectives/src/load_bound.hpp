#pragma once
// A lower bound on how long channels take on the flow model, read from their plans without simulating them:
//
//     T  >=  max over links l of  W_l / C_l        W_l = the wire bytes (payload / efficiency) all transfers put on l
//
// The flow model never pushes a link past its capacity C_l, and every transfer starts at or after the collective
// does, so the last byte over the busiest link leaves no earlier than that. `auto` uses it to skip a candidate
// that cannot beat the best one already simulated (a bandwidth-poor protocol on a large message: NCCL's LL moves
// about four wire bytes per payload byte), at O(peers x route length) where a plan sums its sends in closed form
// (CollectivePlan::send_totals: trees) and O(transfers) otherwise, instead of a fluid simulation.
#include <span>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/collectives/latency_model.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

// Channel c's rank r on gpus[c][r]. Slightly below the exact quotient (see the .cpp), so that the flow model's
// rounding of drain times to whole picoseconds can never take a run below it.
SimTime busiest_link_bound(Router& router, std::span<const CollectivePlan* const> channels,
                           const std::vector<std::vector<NodeId>>& gpus, const TransferCost& cost);

}  // namespace syncsim
