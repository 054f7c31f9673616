#include "channel_copies.hpp"

#include <algorithm>

namespace syncsim::collectives_detail {

namespace {

bool is_copy(const CollectivePlan& plan, const CollectivePlan& of) {
  if (plan.participant_count() != of.participant_count()) return false;
  const std::vector<std::uint32_t> map = plan.relabelling_of(of);
  if (map.size() != plan.participant_count()) return false;
  for (std::uint32_t p = 0; p < map.size(); ++p) {
    if (map[p] != p) return false;
  }
  return true;
}

}  // namespace

ChannelCopies channel_copies(std::span<const std::unique_ptr<CollectivePlan>> plans) {
  ChannelCopies none;
  for (std::size_t i = 0; i < plans.size(); ++i) none.kept.push_back(i);
  if (plans.size() < 2) return none;
  ChannelCopies out;
  std::vector<std::uint32_t> class_size;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto known = std::find_if(out.kept.begin(), out.kept.end(),
                                    [&](std::size_t kept) { return is_copy(*plans[i], *plans[kept]); });
    if (known == out.kept.end()) {
      out.kept.push_back(i);
      class_size.push_back(1);
    } else {
      ++class_size[static_cast<std::size_t>(known - out.kept.begin())];
    }
  }
  if (out.kept.size() == plans.size() ||
      std::any_of(class_size.begin(), class_size.end(), [&](std::uint32_t n) { return n != class_size.front(); })) {
    return none;
  }
  out.copies = class_size.front();
  return out;
}

ExecutorStats for_all_copies(ExecutorStats stats, std::uint32_t copies) {
  stats.flows *= copies;
  stats.bulk_steps *= copies;
  stats.transfers *= copies;
  stats.bytes_sent *= copies;
  stats.bytes_reduced *= copies;
  return stats;
}

}  // namespace syncsim::collectives_detail
