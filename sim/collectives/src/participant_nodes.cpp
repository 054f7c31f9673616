#include "participant_nodes.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

std::vector<NodeId> participant_nodes(const CollectivePlan& plan, std::vector<NodeId> gpus) {
  if (gpus.size() != plan.rank_count()) {
    throw InputError(fmt::format("the {} collective has {} ranks but {} GPUs were given", plan.algorithm(),
                                 plan.rank_count(), gpus.size()));
  }
  std::vector<NodeId> nodes = gpus;
  for (auto p = static_cast<std::uint32_t>(gpus.size()); p < plan.participant_count(); ++p) {
    const Participant who = plan.participant(p);
    SYNCSIM_INVARIANT(who.node || who.rank.value() < gpus.size(), "a plan's stream runs on a rank that does not exist");
    nodes.push_back(who.node ? *who.node : gpus[who.rank.value()]);
  }
  return nodes;
}

}  // namespace syncsim
