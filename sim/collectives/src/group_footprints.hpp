#pragma once
// Which of a collective's groups can slow each other down, and which run alike: worked out once per set of groups on
// a router from the routes between their members, and kept for the next collectives over the same groups (a
// layout's data-parallel groups run one reduction per bucket size).
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "syncsim/collectives/collective_runner.hpp"

namespace syncsim::collectives_detail {

// Groups' routes and hosts as a simulation sees them: every member-to-member route's links (rate, latency, class) and
// the nodes they lead to (kind, latency, in-network reduction), then each member's own links out and back (what an
// NVLink switch's reduction uses), and which members share a host. Alike shapes run
// isomorphic simulations; `links` lists the routes' links in order, to carry the representative's traffic over link by
// link. Kept as link ids, not properties: a 64-rank group's routes are 4,032.
struct GroupShape {
  std::uint64_t hash = 0;           // of what alike() compares
  std::vector<std::int32_t> hosts;  // per member, its host's index among its group's (-1 ends a group)
  std::vector<std::uint32_t> ends;  // per route, where its links end in `links`
  std::vector<LinkId> links;
};

// Whether a and b would simulate alike: same hosts pattern, same routes' lengths, and link for link the same rate,
// latency, class and far node (kind, latency, reduction), compared by the links' trait classes.
bool alike(Router& router, const GroupShape& a, const GroupShape& b);

struct GroupFootprints {
  // Groups joined (transitively) when a link lies on routes of both: a component's groups can slow only each other,
  // so each component can be simulated alone, exactly. Components in the order of their first group; a component's
  // groups (indices into the set) in the set's order. One component holding every group when the set was too large to
  // check (kMaxFootprintRanks).
  std::vector<std::vector<std::size_t>> components;
  // Per component: its groups' shapes one after another (empty when the set was not checked).
  std::vector<GroupShape> shapes;
};

// Groups larger than this are taken as one component: all pairs' routes would cost more than the run-cost budget
// allows at frontier scale (128-rank groups over 16,384 GPUs pass 2^27 route-search link visits).
inline constexpr std::size_t kMaxFootprintRanks = 64;

// The footprints of `groups` on `router`, from a small per-thread cache when the same groups were asked of the same
// router lately.
std::shared_ptr<const GroupFootprints> footprints(Router& router, const std::vector<std::vector<std::size_t>>& groups);

// Which of a shape's route links are the same link, as a number: the shape's hash with each link numbered by its
// first place in the shape. Alike shapes of equal patterns map link to link one to one (carried_over succeeds);
// alike shapes whose routes collide differently (destination-mod-k spreads one group's routes over spines that
// another group's share) differ.
std::uint64_t sharing_pattern(const GroupShape& shape);

// `traffic` of the component shaped `from`, on the links of the one shaped `to` (alike); nullopt when their
// links do not correspond one to one (a link shared by two routes in one and not in the other).
std::optional<std::vector<LinkTraffic>> carried_over(const std::vector<LinkTraffic>& traffic, const GroupShape& from,
                                                     const GroupShape& to);

}  // namespace syncsim::collectives_detail
