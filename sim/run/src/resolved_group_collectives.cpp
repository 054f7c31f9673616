// A layout's collectives over groups of ranks (ResolvedScenario::group_collective): every group at once, or by a
// given algorithm.
#include "resolved_scenario.hpp"

namespace syncsim::run {

const CollectiveOutcome& ResolvedScenario::group_collective(CollectiveOp op, Bytes size,
                                                            const std::vector<std::vector<std::size_t>>& groups) {
  auto key = std::make_tuple(op, size.value, groups);
  if (const auto it = group_cache_.find(key); it != group_cache_.end()) return it->second;
  return group_cache_.emplace(std::move(key), shared_or_simulated(group_spec(op, size, groups))).first->second;
}

CollectiveOutcome ResolvedScenario::group_collective(CollectiveOp op, Bytes size,
                                                     const std::vector<std::vector<std::size_t>>& groups,
                                                     Algorithm algorithm) {
  CollectiveSpec spec = group_spec(op, size, groups);
  spec.algorithm = algorithm;
  return shared_or_simulated(spec);
}

CollectiveSpec ResolvedScenario::group_spec(CollectiveOp op, Bytes size,
                                            const std::vector<std::vector<std::size_t>>& groups) const {
  CollectiveSpec spec = collective_spec(op, 0);
  spec.size = size;
  spec.groups = groups;
  spec.record_steps = false;
  return spec;
}

}  // namespace syncsim::run
