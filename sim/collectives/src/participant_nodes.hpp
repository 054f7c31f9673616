#pragma once
// Where a plan's participants run: rank r on gpus[r]; a second stream on its rank's GPU; a switch (an in-network
// reduction) on itself. The executor and the load bound read a plan's routes through it.
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/core/strong_id.hpp"

namespace syncsim {

// Throws InputError when the plan has another rank count than `gpus`.
std::vector<NodeId> participant_nodes(const CollectivePlan& plan, std::vector<NodeId> gpus);

}  // namespace syncsim
