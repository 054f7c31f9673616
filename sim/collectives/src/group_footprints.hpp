#pragma once
// Which of a collective's groups can slow each other down, and which run alike: worked out once per set of groups on
// a router from the routes between their members, and kept for the next collectives over the same groups (a
// layout's data-parallel groups run one reduction per bucket size).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/collectives/collective_runner.hpp"

namespace syncsim::collectives_detail {

// How one component's links correspond to an alike earlier one's: (the earlier one's link, this one's), by the
// earlier one's link id.
using LinkRenaming = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

struct GroupFootprints {
  // Groups joined (transitively) when a link lies on routes of both: a component's groups can slow only each other,
  // so each component can be simulated alone, exactly. Components in the order of their first group; a component's
  // groups (indices into the set) in the set's order. One component holding every group when the set was too large to
  // check (kMaxFootprintRanks).
  std::vector<std::vector<std::size_t>> components;
  // Per component: the first component that simulates alike to it, link for link (its own index when that is itself:
  // it is simulated), and how that one's links rename to its own (empty for itself). Alike means the same hosts
  // pattern, routes of the same lengths, and position for position links of equal rate, latency, class and far node
  // (kind, latency, reduction) that are shared between routes exactly where the other's are: every member-to-member
  // route's links, then each member's own links out and back (what an NVLink switch's reduction uses).
  std::vector<std::size_t> alike_to;
  std::vector<LinkRenaming> renamings;
};

// Groups larger than this are taken as one component: all pairs' routes would cost more than the run-cost budget
// allows at frontier scale (128-rank groups over 16,384 GPUs pass 2^27 route-search link visits).
inline constexpr std::size_t kMaxFootprintRanks = 64;

// The footprints of `groups` on `router`, from every member pair's route (any algorithm's), kept per thread for the
// next collectives over the same groups.
std::shared_ptr<const GroupFootprints> footprints(Router& router, const std::vector<std::vector<std::size_t>>& groups);

// A set of larger groups' footprints once their algorithm is chosen: `groups` each running `plans` (every group the
// same plans on its own GPUs, as the runner builds them) over the routes the plans send on, instead of every pair
// (a 1,024-rank ring or PAT sends to a few dozen peers per rank, not 1,023). One component when a plan has a switch
// among its participants, or the routes would number more than kMaxPlanFootprintRoutes.
std::shared_ptr<const GroupFootprints> plan_footprints(Router& router,
                                                       const std::vector<std::vector<std::size_t>>& groups,
                                                       std::span<const std::unique_ptr<CollectivePlan>> plans);
// Twice the routes of the largest all-pairs set a frontier layout asks (512 groups of 64 ranks: 2 million).
inline constexpr std::size_t kMaxPlanFootprintRoutes = std::size_t{1} << 22;

// `traffic` of a component on the links of one alike to it (`renaming`, from footprints), in the same order; nullopt
// when a link carrying traffic lies on none of the component's routes.
std::optional<std::vector<LinkTraffic>> renamed(const std::vector<LinkTraffic>& traffic, const LinkRenaming& renaming);

}  // namespace syncsim::collectives_detail
