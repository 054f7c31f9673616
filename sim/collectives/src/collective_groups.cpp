#include "collective_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "syncsim/core/input_error.hpp"

namespace syncsim::collectives_detail {

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

CollectiveOutcome simulate_components(Router& router, const CollectiveSpec& spec,
                                      const std::vector<std::vector<std::size_t>>& groups,
                                      const GroupFootprints& prints) {
  std::optional<CollectiveOutcome> out;
  std::vector<LinkTraffic> links;
  ExecutorStats stats;
  struct Simulated {
    std::size_t component;
    CollectiveOutcome outcome;
  };
  // By sharing pattern: components whose routes collide alike (not only alike link for link) carry over.
  std::unordered_multimap<std::uint64_t, Simulated> simulated;
  for (std::size_t c = 0; c < prints.components.size(); ++c) {
    const GroupShape& shape = prints.shapes[c];
    const std::uint64_t pattern = sharing_pattern(shape);
    std::optional<CollectiveOutcome> outcome;
    const auto [first, end] = simulated.equal_range(pattern);
    for (auto it = first; it != end && !outcome; ++it) {
      const GroupShape& known = prints.shapes[it->second.component];
      if (!alike(router, known, shape)) continue;
      if (auto carried = carried_over(it->second.outcome.links, known, shape)) {
        outcome = it->second.outcome;
        outcome->links = std::move(*carried);
      }
    }
    if (!outcome) {
      CollectiveSpec one = spec;
      one.groups.clear();
      for (const std::size_t g : prints.components[c]) one.groups.push_back(groups[g]);
      outcome = simulate_one_size(router, one);
      simulated.emplace(pattern, Simulated{c, *outcome});
    }
    links.insert(links.end(), outcome->links.begin(), outcome->links.end());
    stats += outcome->stats;
    if (!out || outcome->time > out->time) out = std::move(outcome);
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
  const CollectiveOutcome choice = simulate_one_size(router, first);
  CollectiveSpec all = spec;
  all.algorithm = choice.algorithm;
  all.protocol = choice.protocol;
  return simulate_one_size(router, all);
}

}  // namespace syncsim::collectives_detail
