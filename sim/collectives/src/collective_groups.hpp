#pragma once
// The groups of CollectiveSpec::groups: checked, and run one by one when they cannot share a link.
#include <vector>

#include "syncsim/collectives/collective_runner.hpp"

namespace syncsim::collectives_detail {

// spec.groups, checked: one size (spec.ranks's, unless 0), disjoint, every index a GPU. Throws InputError.
std::vector<std::vector<std::size_t>> checked_groups(const CollectiveSpec& spec, std::size_t gpu_count);

// Groups are independent when no link is on a route between two members of one group and also of another: every
// algorithm's transfers run between members (NVLS's and the trees' through the switches on those routes), so such
// groups cannot slow each other down and each can be simulated alone, exactly. Checked for groups of at most 64
// ranks (all pairs' routes); larger ones are taken as sharing.
bool independent_groups(Router& router, const std::vector<std::vector<std::size_t>>& groups);

// Independent groups one by one: the slowest group's time and choice, every group's traffic and statistics. A group
// whose routes and hosts match an earlier one's link for link (same rates, latencies, classes; a layout's tensor
// groups, node by node) takes that group's outcome, its traffic carried over to its own links.
CollectiveOutcome simulate_each(Router& router, const CollectiveSpec& spec);

// Whether the algorithm (and with the nccl latency model the protocol) is left to the automatic choice.
bool chooses(const CollectiveSpec& spec);

// Several groups with the choice left open: the algorithm and protocol the first group alone gets (NCCL tunes each
// communicator by itself, blind to the others' traffic), then every group at once with them.
CollectiveOutcome simulate_as_first_chooses(Router& router, const CollectiveSpec& spec);

}  // namespace syncsim::collectives_detail
