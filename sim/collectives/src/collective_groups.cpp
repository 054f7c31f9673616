#include "collective_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "syncsim/core/input_error.hpp"

namespace syncsim::collectives_detail {

namespace {
// Groups larger than this are not checked for independence: all pairs' routes would cost too much.
constexpr std::size_t kMaxFootprintRanks = 64;
}  // namespace

std::vector<std::vector<std::size_t>> checked_groups(const CollectiveSpec& spec, std::size_t gpu_count) {
  const std::size_t size = spec.groups.front().size();
  if (spec.ranks != 0 && spec.ranks != size) {
    throw InputError(fmt::format("{} ranks asked of groups of {}", spec.ranks, size));
  }
  std::vector<bool> taken(gpu_count, false);
  for (const std::vector<std::size_t>& group : spec.groups) {
    if (group.size() != size) {
      throw InputError(fmt::format("collective groups of different sizes ({} and {})", size, group.size()));
    }
    for (const std::size_t gpu : group) {
      if (gpu >= gpu_count) throw InputError(fmt::format("GPU {} of a group is not among the {} GPUs", gpu, gpu_count));
      if (taken[gpu]) throw InputError(fmt::format("GPU {} is in two collective groups", gpu));
      taken[gpu] = true;
    }
  }
  return spec.groups;
}

bool independent_groups(Router& router, const std::vector<std::vector<std::size_t>>& groups) {
  if (groups.size() < 2 || groups.front().size() > kMaxFootprintRanks) return false;
  std::vector<std::size_t> owner(router.topology().link_count(), groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const std::size_t a : groups[g]) {
      for (const std::size_t b : groups[g]) {
        if (a == b) continue;
        for (const LinkId link : router.gpu_route(a, b).links) {
          std::size_t& o = owner[link.value()];
          if (o != groups.size() && o != g) return false;
          o = g;
        }
      }
    }
  }
  return true;
}

namespace {

// What a group's collective depends on: every member-to-member route's links (rate, latency, class) and the nodes it
// passes (kind, latency, in-network reduction), and which members share a host. Groups with equal signatures run
// isomorphic simulations, so one stands for all; `links` lists the routes' links in the same order, to carry the
// representative's traffic over link by link.
struct GroupShape {
  std::vector<std::int64_t> signature;
  std::vector<LinkId> links;
};

GroupShape shape_of(Router& router, const std::vector<std::size_t>& group) {
  const Topology& topology = router.topology();
  GroupShape shape;
  std::vector<int> hosts;
  for (const std::size_t gpu : group) {
    const auto host = topology.node(topology.gpu(gpu)).host.value_or(-1);
    const auto seen = std::find(hosts.begin(), hosts.end(), host);
    shape.signature.push_back(seen - hosts.begin());
    if (seen == hosts.end()) hosts.push_back(host);
  }
  for (const std::size_t a : group) {
    for (const std::size_t b : group) {
      if (a == b) continue;
      for (const LinkId id : router.gpu_route(a, b).links) {
        const Link& link = topology.link(id);
        const Node& to = topology.node(link.dst);
        shape.signature.insert(shape.signature.end(),
                               {static_cast<std::int64_t>(link.bandwidth.bytes_per_second), link.latency.ps(),
                                static_cast<std::int64_t>(link.kind), static_cast<std::int64_t>(to.kind),
                                to.latency.ps(), static_cast<std::int64_t>(to.reduction)});
        shape.links.push_back(id);
      }
      shape.signature.push_back(-1);  // the route's end
    }
  }
  return shape;
}

// The representative's traffic on `to`'s links; nullopt when the routes do not map link to link.
std::optional<std::vector<LinkTraffic>> carried_over(const std::vector<LinkTraffic>& traffic, const GroupShape& from,
                                                     const GroupShape& to) {
  std::map<LinkId, LinkId> image;
  for (std::size_t i = 0; i < from.links.size(); ++i) {
    const auto [it, inserted] = image.emplace(from.links[i], to.links[i]);
    if (!inserted && it->second != to.links[i]) return std::nullopt;
  }
  std::vector<LinkTraffic> out;
  for (const LinkTraffic& t : traffic) {
    const auto it = image.find(t.link);
    if (it == image.end()) return std::nullopt;
    out.push_back({it->second, t.bytes_carried, t.busy_time});
  }
  return out;
}

}  // namespace

CollectiveOutcome simulate_each(Router& router, const CollectiveSpec& spec) {
  std::optional<CollectiveOutcome> out;
  std::vector<LinkTraffic> links;
  ExecutorStats stats;
  struct Simulated {
    GroupShape shape;
    CollectiveOutcome outcome;
  };
  std::map<std::vector<std::int64_t>, Simulated> by_shape;
  for (const std::vector<std::size_t>& group : spec.groups) {
    GroupShape shape = shape_of(router, group);
    CollectiveOutcome outcome;
    const auto same = by_shape.find(shape.signature);
    std::optional<std::vector<LinkTraffic>> carried;
    if (same != by_shape.end()) carried = carried_over(same->second.outcome.links, same->second.shape, shape);
    if (carried) {
      outcome = same->second.outcome;
      outcome.links = std::move(*carried);
    } else {
      CollectiveSpec one = spec;
      one.groups = {group};
      outcome = simulate_collective(router, one);
      if (same == by_shape.end()) by_shape.emplace(shape.signature, Simulated{shape, outcome});
    }
    links.insert(links.end(), outcome.links.begin(), outcome.links.end());
    stats += outcome.stats;
    if (!out || outcome.time > out->time) out = std::move(outcome);
  }
  std::sort(links.begin(), links.end(), [](const LinkTraffic& a, const LinkTraffic& b) { return a.link < b.link; });
  out->links = std::move(links);
  out->stats = stats;
  return *out;
}

bool chooses(const CollectiveSpec& spec) {
  return spec.latency != LatencySource::calibrated &&
         (!spec.algorithm || (spec.latency == LatencySource::nccl && !spec.protocol));
}

CollectiveOutcome simulate_as_first_chooses(Router& router, const CollectiveSpec& spec) {
  CollectiveSpec first = spec;
  first.groups = {spec.groups.front()};
  const CollectiveOutcome choice = simulate_collective(router, first);
  CollectiveSpec all = spec;
  all.algorithm = choice.algorithm;
  all.protocol = choice.protocol;
  return simulate_collective(router, all);
}

}  // namespace syncsim::collectives_detail
