#include "syncsim/collectives/hierarchical_alltoall_plan.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

HierarchicalAllToAllPlan::HierarchicalAllToAllPlan(std::size_t ranks, Bytes size,
                                                   const std::vector<std::vector<Rank>>& hosts)
    : size_(size) {
  if (ranks < 2) throw InputError(fmt::format("hierarchical needs at least 2 ranks, got {}", ranks));
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  layout_ = host_layout(ranks, hosts);
}

std::uint32_t HierarchicalAllToAllPlan::step_count(Rank) const {
  return layout_.per_host > 1 ? 2 : 1;
}

void HierarchicalAllToAllPlan::step(Rank rank, std::uint32_t t, PlanStep& out) const {
  out.clear();
  const std::uint32_t g = layout_.per_host;
  const std::uint32_t h = layout_.hosts;
  const std::uint32_t a = layout_.host_of[rank.value()];
  const std::uint32_t i = layout_.local_of[rank.value()];
  const auto n = static_cast<std::uint32_t>(layout_.host_of.size());
  const double block = static_cast<double>(size_.value) / n;
  const bool rail_step = g == 1 || t == 1;
  // PlanSend::chunk names the first block a send carries, as block src * n + dst.
  if (!rail_step) {
    for (std::uint32_t j = 0; j < g; ++j) {
      if (j != i)
        out.sends.push_back(
            PlanSend{layout_.member(a, j), h * block, t, rank.value() * n + layout_.member(0, j).value()});
    }
    out.recv_count = g - 1;
    return;
  }
  for (std::uint32_t b = 0; b < h; ++b) {
    if (b != a)
      out.sends.push_back(PlanSend{layout_.member(b, i), g * block, t,
                                   layout_.member(a, 0).value() * n + layout_.member(b, i).value()});
  }
  out.recv_count = h - 1;
}

std::optional<std::uint32_t> HierarchicalAllToAllPlan::uniform_pattern(std::uint32_t step) const {
  // Each step moves the same bytes between the same pairs on every rank: one pattern per step.
  return step;
}

}  // namespace syncsim
