#pragma once
// The groups of CollectiveSpec::groups: checked, and run component by component when some cannot share a link.
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "group_footprints.hpp"
#include "syncsim/collectives/collective_runner.hpp"

namespace syncsim::collectives_detail {

// simulate_collective at the spec's size alone, without the calibrated size envelope (calibrated_envelope.cpp): what
// the envelope and the groups' own runs call.
CollectiveOutcome simulate_one_size(Router& router, const CollectiveSpec& spec);

// spec.groups, checked: one size (spec.ranks's, unless 0), disjoint, every index a GPU. Throws InputError.
std::vector<std::vector<std::size_t>> checked_groups(const CollectiveSpec& spec, std::size_t gpu_count);

// The groups' collective as its components' (group_footprints.hpp), each simulated alone: the slowest component's time
// and choice, every component's traffic and statistics. A component alike an earlier one (a layout's tensor groups
// node by node, its data-parallel groups rail by rail) takes that one's outcome, its traffic carried over to its own
// links.
CollectiveOutcome simulate_components(Router& router, const CollectiveSpec& spec,
                                      const std::vector<std::vector<std::size_t>>& groups,
                                      const GroupFootprints& prints);

// Groups too large for every member pair's route (footprints) split into components by the routes `plans` send on
// (plan_footprints), each simulated alone as simulate_components does; nullopt when they stay one component. At
// 32,768 B200s, 32 data-parallel groups of 1,024 otherwise run PAT as one simulation.
std::optional<CollectiveOutcome> simulate_split_by_plan(Router& router, const CollectiveSpec& spec,
                                                        const std::vector<std::vector<std::size_t>>& groups,
                                                        std::span<const std::unique_ptr<CollectivePlan>> plans);

// Whether the algorithm (and with the nccl latency model the protocol) is left to the automatic choice.
bool chooses(const CollectiveSpec& spec);

// Several groups with the choice left open: the algorithm and protocol the first group alone gets (NCCL tunes each
// communicator by itself, blind to the others' traffic), then every group at once with them.
CollectiveOutcome simulate_as_first_chooses(Router& router, const CollectiveSpec& spec);

}  // namespace syncsim::collectives_detail
