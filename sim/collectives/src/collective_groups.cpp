#include "collective_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
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

CollectiveOutcome simulate_each(Router& router, const CollectiveSpec& spec) {
  std::optional<CollectiveOutcome> out;
  std::vector<LinkTraffic> links;
  ExecutorStats stats;
  for (const std::vector<std::size_t>& group : spec.groups) {
    CollectiveSpec one = spec;
    one.groups = {group};
    CollectiveOutcome outcome = simulate_collective(router, one);
    links.insert(links.end(), outcome.links.begin(), outcome.links.end());
    stats.flows += outcome.stats.flows;
    stats.bulk_steps += outcome.stats.bulk_steps;
    stats.transfers += outcome.stats.transfers;
    stats.bytes_sent += outcome.stats.bytes_sent;
    stats.bytes_reduced += outcome.stats.bytes_reduced;
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
