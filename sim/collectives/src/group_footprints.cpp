#include "group_footprints.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>

#include "hash_mix.hpp"

namespace syncsim::collectives_detail {

namespace {

// What a link and the node it leads to contribute to a simulation, as alike() compares them.
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

void mix(std::uint64_t& h, std::uint64_t value) {
  h = splitmix(h ^ value);
}

GroupShape shape_of(Router& router, const std::vector<std::size_t>& group) {
  const Topology& topology = router.topology();
  GroupShape shape;
  std::vector<int> hosts;
  for (const std::size_t gpu : group) {
    const auto host = topology.node(topology.gpu(gpu)).host.value_or(-1);
    const auto seen = std::find(hosts.begin(), hosts.end(), host);
    shape.hosts.push_back(static_cast<std::int32_t>(seen - hosts.begin()));
    mix(shape.hash, static_cast<std::uint64_t>(shape.hosts.back()));
    if (seen == hosts.end()) hosts.push_back(host);
  }
  shape.hosts.push_back(-1);
  const auto add = [&](LinkId id) {
    for (const std::int64_t trait : link_traits(topology, id)) mix(shape.hash, static_cast<std::uint64_t>(trait));
    shape.links.push_back(id);
  };
  const auto end_route = [&] {
    shape.ends.push_back(static_cast<std::uint32_t>(shape.links.size()));
    mix(shape.hash, shape.ends.back());
  };
  for (const std::size_t a : group) {
    for (const std::size_t b : group) {
      if (a == b) continue;
      for (const LinkId id : router.gpu_route(a, b).links) add(id);
      end_route();
    }
  }
  // And each member's own links both ways, as one more "route" per member: in-network reductions (NVLS) send from a
  // GPU to its NVLink switch and back, off every member-to-member route.
  for (const std::size_t gpu : group) {
    const NodeId node = topology.gpu(gpu);
    for (const LinkId out : topology.out_links(node)) {
      add(out);
      for (const LinkId back : topology.out_links(topology.link(out).dst)) {
        if (topology.link(back).dst == node) add(back);
      }
    }
    end_route();
  }
  return shape;
}

// `part` after what `whole` holds: a component's shape is its groups' one after another.
void append(GroupShape& whole, const GroupShape& part) {
  mix(whole.hash, part.hash);
  whole.hosts.insert(whole.hosts.end(), part.hosts.begin(), part.hosts.end());
  const auto offset = static_cast<std::uint32_t>(whole.links.size());
  for (const std::uint32_t end : part.ends) whole.ends.push_back(offset + end);
  whole.links.insert(whole.links.end(), part.links.begin(), part.links.end());
}

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t g) {
  while (parent[g] != g) g = parent[g] = parent[parent[g]];
  return g;
}

GroupFootprints analyse(Router& router, const std::vector<std::vector<std::size_t>>& groups) {
  GroupFootprints out;
  if (groups.size() < 2 || groups.front().size() > kMaxFootprintRanks) {
    out.components.emplace_back(groups.size());
    std::iota(out.components.back().begin(), out.components.back().end(), std::size_t{0});
    return out;
  }
  std::vector<std::size_t> parent(groups.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  // Each group's shape holds every member-to-member route's links: the footprint the components are joined by.
  std::vector<GroupShape> shapes;
  shapes.reserve(groups.size());
  std::vector<std::size_t> owner(router.topology().link_count(), groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    shapes.push_back(shape_of(router, groups[g]));
    for (const LinkId link : shapes.back().links) {
      std::size_t& o = owner[link.value()];
      if (o != groups.size() && o != g) parent[find_root(parent, o)] = find_root(parent, g);
      o = g;
    }
  }
  std::map<std::size_t, std::size_t> component_of_root;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto [it, added] = component_of_root.emplace(find_root(parent, g), out.components.size());
    if (added) out.components.emplace_back();
    out.components[it->second].push_back(g);
  }
  for (const std::vector<std::size_t>& component : out.components) {
    GroupShape& shape = out.shapes.emplace_back();
    for (const std::size_t g : component) append(shape, shapes[g]);
  }
  return out;
}

struct Known {
  std::uint64_t router = 0;
  std::vector<std::vector<std::size_t>> groups;
  std::shared_ptr<const GroupFootprints> footprints;
};

// Per link of the router's topology, a number shared by exactly the links of equal rate, latency, class and far node.
const std::vector<std::uint32_t>& trait_classes(Router& router) {
  // Per thread, the last router's: components are compared many times over one router (512 groups of a layout).
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

}  // namespace

std::shared_ptr<const GroupFootprints> footprints(Router& router, const std::vector<std::vector<std::size_t>>& groups) {
  // A layout has a handful of group sets (tensor, context, data, expert, the stage pairs); a few more entries keep
  // them all while a component's own simulation asks about its groups in between.
  constexpr std::size_t kKept = 16;
  thread_local std::vector<Known> kept;
  thread_local std::size_t next = 0;
  // Another router's (an earlier point's topology) are never asked again: a 64-rank set's shapes hold millions of
  // links, so they go now rather than when evicted.
  if (std::erase_if(kept, [&](const Known& k) { return k.router != router.serial(); }) > 0) next = 0;
  for (const Known& k : kept) {
    if (k.router == router.serial() && k.groups == groups) return k.footprints;
  }
  Known fresh{router.serial(), groups, std::make_shared<const GroupFootprints>(analyse(router, groups))};
  if (kept.size() < kKept) return kept.emplace_back(std::move(fresh)).footprints;
  Known& slot = kept[next];
  next = (next + 1) % kKept;
  slot = std::move(fresh);
  return slot.footprints;
}

bool alike(Router& router, const GroupShape& a, const GroupShape& b) {
  if (a.hash != b.hash || a.hosts != b.hosts || a.ends != b.ends) return false;
  const std::vector<std::uint32_t>& traits = trait_classes(router);
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    if (traits[a.links[i].value()] != traits[b.links[i].value()]) return false;
  }
  return true;
}

std::uint64_t sharing_pattern(const GroupShape& shape) {
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

std::optional<std::vector<LinkTraffic>> carried_over(const std::vector<LinkTraffic>& traffic, const GroupShape& from,
                                                     const GroupShape& to) {
  // The renaming from's links -> to's, one to one, by link id (a component's shape lists tens of thousands of route
  // links, many of them repeated): per-thread tables as large as the largest topology seen, cleared after use.
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  thread_local std::vector<std::uint32_t> image;
  thread_local std::vector<std::uint32_t> preimage;
  thread_local std::vector<std::uint32_t> touched;
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < from.links.size(); ++i)
    largest = std::max({largest, from.links[i].value(), to.links[i].value()});
  for (const LinkTraffic& t : traffic) largest = std::max(largest, t.link.value());
  if (image.size() <= largest) {
    image.resize(largest + std::size_t{1}, kNone);
    preimage.resize(largest + std::size_t{1}, kNone);
  }
  const auto clear = [&] {
    for (const std::uint32_t link : touched) image[link] = preimage[link] = kNone;
    touched.clear();
  };
  for (std::size_t i = 0; i < from.links.size(); ++i) {
    const std::uint32_t a = from.links[i].value();
    const std::uint32_t b = to.links[i].value();
    if (image[a] == kNone && preimage[b] == kNone) {
      image[a] = b;
      preimage[b] = a;
      touched.push_back(a);
      touched.push_back(b);
    } else if (image[a] != b || preimage[b] != a) {
      clear();
      return std::nullopt;
    }
  }
  std::vector<LinkTraffic> out;
  out.reserve(traffic.size());
  for (const LinkTraffic& t : traffic) {
    const std::uint32_t mapped = image[t.link.value()];
    if (mapped == kNone) {
      clear();
      return std::nullopt;
    }
    out.push_back({LinkId{mapped}, t.bytes_carried, t.busy_time});
  }
  clear();
  return out;
}

}  // namespace syncsim::collectives_detail
