#include "group_footprints.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <span>
#include <unordered_map>

#include "hash_mix.hpp"

namespace syncsim::collectives_detail {

namespace {

// What a link and the node it leads to contribute to a simulation, as alike shapes must match them.
std::array<std::int64_t, 6> link_traits(const Topology& topology, LinkId id) {
  const Link& link = topology.link(id);
  const Node& to = topology.node(link.dst);
  return {static_cast<std::int64_t>(link.bandwidth.bytes_per_second),
          link.latency.ps(),
          static_cast<std::int64_t>(link.kind),
          static_cast<std::int64_t>(to.kind),
          to.latency.ps(),
          static_cast<std::int64_t>(to.reduction)};
}

// Per link of the router's topology, a number shared by exactly the links of equal traits.
const std::vector<std::uint32_t>& trait_classes(Router& router) {
  // Per thread, the last router's: a point's group sets are all analysed on one router.
  thread_local std::uint64_t known = 0;
  thread_local std::vector<std::uint32_t> classes;
  if (known == router.serial()) return classes;
  const Topology& topology = router.topology();
  std::map<std::array<std::int64_t, 6>, std::uint32_t> numbered;
  classes.assign(topology.link_count(), 0);
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const auto [it, added] =
        numbered.emplace(link_traits(topology, LinkId{l}), static_cast<std::uint32_t>(numbered.size()));
    classes[l] = it->second;
  }
  known = router.serial();
  return classes;
}

void mix(std::uint64_t& h, std::uint64_t value) {
  h = splitmix(h ^ value);
}

using MemberPairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// A group's member-to-member routes, one after another: `links`, and where each route ends in it. Looked at twice
// (which groups share links, then which are alike) and then dropped: the router keeps none of them, as a 64-rank
// group has 4,032 and a collective's algorithm sends over a few per member.
struct MemberRoutes {
  std::vector<LinkId> links;
  std::vector<std::uint32_t> ends;
};

// The routes between `pairs` of a group's members (indices into the group), in their order.
MemberRoutes member_routes(Router& router, const std::vector<std::size_t>& group, const MemberPairs& pairs) {
  const Topology& topology = router.topology();
  MemberRoutes routes;
  routes.ends.reserve(pairs.size());
  for (const auto& [a, b] : pairs) {
    router.append_route_links(topology.gpu(group[a]), topology.gpu(group[b]), routes.links);
    routes.ends.push_back(static_cast<std::uint32_t>(routes.links.size()));
  }
  return routes;
}

// Every ordered pair of distinct members of a group of `ranks`.
MemberPairs all_pairs(std::size_t ranks) {
  MemberPairs pairs;
  pairs.reserve(ranks * (ranks - 1));
  for (std::uint32_t a = 0; a < ranks; ++a) {
    for (std::uint32_t b = 0; b < ranks; ++b) {
      if (a != b) pairs.emplace_back(a, b);
    }
  }
  return pairs;
}

// A group's routes (member_routes), then each member's own links both ways as one more "route" per member:
// in-network reductions (NVLS) send from a GPU to its NVLink switch and back, off every member-to-member route.
// `on_link(LinkId)` for each link in order, `on_end()` after each route.
template <typename OnLink, typename OnEnd>
void visit_routes(const Topology& topology, const std::vector<std::size_t>& group, const MemberRoutes& routes,
                  OnLink on_link, OnEnd on_end) {
  std::size_t at = 0;
  for (const std::uint32_t end : routes.ends) {
    for (; at < end; ++at) on_link(routes.links[at]);
    on_end();
  }
  for (const std::size_t gpu : group) {
    const NodeId node = topology.gpu(gpu);
    for (const LinkId out : topology.out_links(node)) {
      on_link(out);
      for (const LinkId back : topology.out_links(topology.link(out).dst)) {
        if (topology.link(back).dst == node) on_link(back);
      }
    }
    on_end();
  }
}

// A component's routes and hosts as a simulation sees them: its groups' routes one after another (visit_routes),
// which members share a host, and a hash of what alike() compares. Link ids, not properties: a 64-rank group's
// routes are 4,032.
struct Shape {
  std::uint64_t hash = 0;
  std::vector<std::int32_t> hosts;  // per member, its host's index among its group's (-1 ends a group)
  std::vector<std::uint32_t> ends;  // per route, where its links end in `links`
  std::vector<LinkId> links;
};

void add_group(const Topology& topology, const std::vector<std::uint32_t>& traits,
               const std::vector<std::size_t>& group, const MemberRoutes& routes, Shape& shape) {
  std::vector<int> hosts;
  for (const std::size_t gpu : group) {
    const auto host = topology.node(topology.gpu(gpu)).host.value_or(-1);
    const auto seen = std::find(hosts.begin(), hosts.end(), host);
    shape.hosts.push_back(static_cast<std::int32_t>(seen - hosts.begin()));
    mix(shape.hash, static_cast<std::uint64_t>(shape.hosts.back()));
    if (seen == hosts.end()) hosts.push_back(host);
  }
  shape.hosts.push_back(-1);
  visit_routes(
      topology, group, routes,
      [&](LinkId id) {
        mix(shape.hash, traits[id.value()]);
        shape.links.push_back(id);
      },
      [&] {
        shape.ends.push_back(static_cast<std::uint32_t>(shape.links.size()));
        mix(shape.hash, shape.ends.back());
      });
}

// Which of a shape's links are the same link, as a number: the shape's hash with each link numbered by its first
// place. Shapes that rename one to one have equal patterns; alike shapes whose routes collide differently
// (destination-mod-k spreads one group's routes over spines that another group's share) differ.
std::uint64_t sharing_pattern(const Shape& shape) {
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  thread_local std::vector<std::uint32_t> place;  // per link id: its first place, or kNone; cleared after use
  std::uint64_t h = shape.hash;
  std::uint32_t seen = 0;
  for (const LinkId link : shape.links) {
    if (place.size() <= link.value()) place.resize(link.value() + std::size_t{1}, kNone);
    std::uint32_t& at = place[link.value()];
    if (at == kNone) at = seen++;
    mix(h, at);
  }
  for (const LinkId link : shape.links) place[link.value()] = kNone;
  return h;
}

bool alike(const std::vector<std::uint32_t>& traits, const Shape& a, const Shape& b) {
  if (a.hash != b.hash || a.hosts != b.hosts || a.ends != b.ends) return false;
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    if (traits[a.links[i].value()] != traits[b.links[i].value()]) return false;
  }
  return true;
}

// The renaming of `from`'s links to `to`'s, position by position, when it is one to one; nullopt when a link is
// shared by two routes in one and not in the other.
std::optional<LinkRenaming> renaming(const Shape& from, const Shape& to) {
  // Per-thread tables as large as the largest topology seen, cleared after use: a component's shape lists tens of
  // thousands of route links, many of them repeated.
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  thread_local std::vector<std::uint32_t> image;
  thread_local std::vector<std::uint32_t> preimage;
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < from.links.size(); ++i)
    largest = std::max({largest, from.links[i].value(), to.links[i].value()});
  if (image.size() <= largest) {
    image.resize(largest + std::size_t{1}, kNone);
    preimage.resize(largest + std::size_t{1}, kNone);
  }
  LinkRenaming pairs;
  bool one_to_one = true;
  for (std::size_t i = 0; i < from.links.size() && one_to_one; ++i) {
    const std::uint32_t a = from.links[i].value();
    const std::uint32_t b = to.links[i].value();
    if (image[a] == kNone && preimage[b] == kNone) {
      image[a] = b;
      preimage[b] = a;
      pairs.emplace_back(a, b);
    } else {
      one_to_one = image[a] == b && preimage[b] == a;
    }
  }
  for (const auto& [a, b] : pairs) image[a] = preimage[b] = kNone;
  if (!one_to_one) return std::nullopt;
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t g) {
  while (parent[g] != g) g = parent[g] = parent[parent[g]];
  return g;
}

// Groups joined (union-find) over the links their routes share, into components in the order of their first group.
std::vector<std::vector<std::size_t>> components_of(const Topology& topology,
                                                    const std::vector<std::vector<std::size_t>>& groups,
                                                    const std::vector<MemberRoutes>& routes) {
  std::vector<std::size_t> parent(groups.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  std::vector<std::size_t> owner(topology.link_count(), groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    visit_routes(
        topology, groups[g], routes[g],
        [&](LinkId link) {
          std::size_t& o = owner[link.value()];
          if (o != groups.size() && o != g) parent[find_root(parent, o)] = find_root(parent, g);
          o = g;
        },
        [] {});
  }
  std::vector<std::vector<std::size_t>> components;
  std::map<std::size_t, std::size_t> component_of_root;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto [it, added] = component_of_root.emplace(find_root(parent, g), components.size());
    if (added) components.emplace_back();
    components[it->second].push_back(g);
  }
  return components;
}

// One component holding every group: what a set too large to check is taken as.
GroupFootprints one_component(std::size_t groups) {
  GroupFootprints out;
  out.components.emplace_back(groups);
  std::iota(out.components.back().begin(), out.components.back().end(), std::size_t{0});
  out.alike_to.assign(1, 0);
  out.renamings.resize(1);
  return out;
}

// The footprints of `groups` from the routes between `pairs` of each group's members.
GroupFootprints analyse(Router& router, const std::vector<std::vector<std::size_t>>& groups, const MemberPairs& pairs) {
  GroupFootprints out;
  const Topology& topology = router.topology();
  std::vector<MemberRoutes> routes;
  routes.reserve(groups.size());
  for (const std::vector<std::size_t>& group : groups) routes.push_back(member_routes(router, group, pairs));
  out.components = components_of(topology, groups, routes);
  out.alike_to.assign(out.components.size(), 0);
  out.renamings.resize(out.components.size());
  if (out.components.size() < 2) return out;
  // Each component's shape against those of the components simulated so far (only theirs are kept: a class of alike
  // components needs one), by sharing pattern.
  const std::vector<std::uint32_t>& traits = trait_classes(router);
  std::vector<Shape> simulated;
  std::unordered_multimap<std::uint64_t, std::size_t> by_pattern;  // -> index into `simulated`
  std::vector<std::size_t> component_of;                           // per entry of `simulated`
  for (std::size_t c = 0; c < out.components.size(); ++c) {
    Shape shape;
    for (const std::size_t g : out.components[c]) add_group(topology, traits, groups[g], routes[g], shape);
    const std::uint64_t pattern = sharing_pattern(shape);
    out.alike_to[c] = c;
    const auto [first, end] = by_pattern.equal_range(pattern);
    for (auto it = first; it != end && out.alike_to[c] == c; ++it) {
      const Shape& known = simulated[it->second];
      if (!alike(traits, known, shape)) continue;
      if (std::optional<LinkRenaming> renamed = renaming(known, shape)) {
        out.alike_to[c] = component_of[it->second];
        out.renamings[c] = std::move(*renamed);
      }
    }
    if (out.alike_to[c] != c) continue;
    by_pattern.emplace(pattern, simulated.size());
    simulated.push_back(std::move(shape));
    component_of.push_back(c);
  }
  return out;
}

struct Known {
  std::uint64_t router = 0;
  std::vector<std::vector<std::size_t>> groups;
  MemberPairs pairs;  // empty for every pair
  std::shared_ptr<const GroupFootprints> footprints;
};

// The footprints of `groups` over `pairs` (every pair when empty), from a small per-thread cache when the same were
// asked of the same router lately.
std::shared_ptr<const GroupFootprints> kept_footprints(Router& router,
                                                       const std::vector<std::vector<std::size_t>>& groups,
                                                       MemberPairs pairs) {
  // A layout has a handful of group sets (tensor, context, data, expert, the stage pairs); a few more entries keep
  // them all while a component's own simulation asks about its groups in between.
  constexpr std::size_t kKept = 16;
  thread_local std::vector<Known> kept;
  thread_local std::size_t next = 0;
  // Another router's (an earlier point's topology) are never asked again, so they go now rather than when evicted.
  if (std::erase_if(kept, [&](const Known& k) { return k.router != router.serial(); }) > 0) next = 0;
  for (const Known& k : kept) {
    if (k.router == router.serial() && k.pairs == pairs && k.groups == groups) return k.footprints;
  }
  const GroupFootprints found =
      pairs.empty() ? analyse(router, groups, all_pairs(groups.front().size())) : analyse(router, groups, pairs);
  Known fresh{router.serial(), groups, std::move(pairs), std::make_shared<const GroupFootprints>(found)};
  if (kept.size() < kKept) return kept.emplace_back(std::move(fresh)).footprints;
  Known& slot = kept[next];
  next = (next + 1) % kKept;
  slot = std::move(fresh);
  return slot.footprints;
}

}  // namespace

std::shared_ptr<const GroupFootprints> footprints(Router& router, const std::vector<std::vector<std::size_t>>& groups) {
  if (groups.size() < 2 || groups.front().size() > kMaxFootprintRanks) {
    return std::make_shared<const GroupFootprints>(one_component(groups.size()));
  }
  return kept_footprints(router, groups, {});
}

std::shared_ptr<const GroupFootprints> plan_footprints(Router& router,
                                                       const std::vector<std::vector<std::size_t>>& groups,
                                                       std::span<const std::unique_ptr<CollectivePlan>> plans) {
  // The member pairs any channel sends between (a rank's second stream runs on its own GPU: no route).
  MemberPairs pairs;
  std::vector<PeerSends> peers;
  for (const std::unique_ptr<CollectivePlan>& plan : plans) {
    const auto member = [&](std::uint32_t participant) -> std::optional<std::uint32_t> {
      if (participant < plan->rank_count()) return participant;
      const Participant who = plan->participant(participant);
      if (who.node) return std::nullopt;
      return who.rank.value();
    };
    for (std::uint32_t p = 0; p < plan->participant_count(); ++p) {
      const std::optional<std::uint32_t> from = member(p);
      plan->send_totals(Rank{p}, peers);
      for (const PeerSends& peer : peers) {
        const std::optional<std::uint32_t> to = member(peer.dst.value());
        // A switch among the participants (NVLink or InfiniBand SHARP) reduces for every group of its domain.
        if (!from || !to) return std::make_shared<const GroupFootprints>(one_component(groups.size()));
        if (*from != *to) pairs.emplace_back(*from, *to);
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  if (groups.size() < 2 || pairs.empty() || pairs.size() * groups.size() > kMaxPlanFootprintRoutes) {
    return std::make_shared<const GroupFootprints>(one_component(groups.size()));
  }
  return kept_footprints(router, groups, std::move(pairs));
}

std::optional<std::vector<LinkTraffic>> renamed(const std::vector<LinkTraffic>& traffic, const LinkRenaming& renaming) {
  std::vector<LinkTraffic> out;
  out.reserve(traffic.size());
  for (const LinkTraffic& t : traffic) {
    const auto it = std::lower_bound(renaming.begin(), renaming.end(), std::pair{t.link.value(), std::uint32_t{0}});
    if (it == renaming.end() || it->first != t.link.value()) return std::nullopt;
    out.push_back({LinkId{it->second}, t.bytes_carried, t.busy_time});
  }
  return out;
}

}  // namespace syncsim::collectives_detail
