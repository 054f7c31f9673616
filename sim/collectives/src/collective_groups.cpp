#include "collective_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

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
  // The outcomes of the components simulated, which alike ones take with their traffic renamed.
  std::vector<std::optional<CollectiveOutcome>> simulated(prints.components.size());
  for (std::size_t c = 0; c < prints.components.size(); ++c) {
    std::optional<CollectiveOutcome> outcome;
    const std::optional<CollectiveOutcome>& like = simulated[prints.alike_to[c]];
    if (like) {
      if (auto carried = renamed(like->links, prints.renamings[c])) {
        outcome = *like;
        outcome->links = std::move(*carried);
      }
    }
    if (!outcome) {
      CollectiveSpec one = spec;
      one.groups.clear();
      for (const std::size_t g : prints.components[c]) one.groups.push_back(groups[g]);
      outcome = simulate_one_size(router, one);
      simulated[c] = outcome;
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

std::optional<CollectiveOutcome> simulate_split_by_plan(Router& router, const CollectiveSpec& spec,
                                                        const std::vector<std::vector<std::size_t>>& groups,
                                                        std::span<const std::unique_ptr<CollectivePlan>> plans) {
  if (groups.size() < 2 || groups.front().size() <= kMaxFootprintRanks) return std::nullopt;
  const auto prints = plan_footprints(router, groups, plans);
  if (prints->components.size() < 2) return std::nullopt;
  return simulate_components(router, spec, groups, *prints);
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
