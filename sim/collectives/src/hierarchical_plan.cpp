#include "syncsim/collectives/hierarchical_plan.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

HierarchicalPlan::HierarchicalPlan(CollectiveOp op, std::size_t ranks, Bytes size,
                                   const std::vector<std::vector<Rank>>& hosts)
    : op_(op), size_(size) {
  if (op != CollectiveOp::allreduce) {
    throw InputError(
        fmt::format("hierarchical runs allreduce only, not {}: splitting it by host gains nothing over ring or tree",
                    to_string(op)));
  }
  if (ranks < 2) throw InputError(fmt::format("hierarchical needs at least 2 ranks, got {}", ranks));
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  layout_ = host_layout(ranks, hosts);
}

std::uint32_t HierarchicalPlan::step_count(Rank) const {
  return 2 * (layout_.per_host - 1) + 2 * (layout_.hosts - 1);
}

HierarchicalPlan::Place HierarchicalPlan::place(std::uint32_t step) const {
  const std::uint32_t intra = layout_.per_host - 1;
  const std::uint32_t inter = layout_.hosts - 1;
  if (step < intra) return {Phase::intra_reduce_scatter, step};
  step -= intra;
  if (step < inter) return {Phase::inter_reduce_scatter, step};
  step -= inter;
  if (step < inter) return {Phase::inter_all_gather, step};
  return {Phase::intra_all_gather, step - inter};
}

void HierarchicalPlan::step(Rank rank, std::uint32_t t, PlanStep& out) const {
  out.clear();
  const std::uint32_t g = layout_.per_host;
  const std::uint32_t h = layout_.hosts;
  const std::uint32_t host = layout_.host_of[rank.value()];
  const std::uint32_t i = layout_.local_of[rank.value()];
  const double size = static_cast<double>(size_.value);
  const double block = size / g;
  const double piece = block / h;
  const Place at = place(t);
  out.recv_count = 1;
  switch (at.phase) {
    case Phase::intra_reduce_scatter: {
      // Ring reduce-scatter over the host's list (as RingPlan): local i ends with block i.
      const std::uint32_t b = (i + g - (at.index + 1) % g) % g;
      out.sends.push_back(PlanSend{layout_.member(host, (i + 1) % g), block, t, b * h});
      out.reduce_bytes = block;
      return;
    }
    case Phase::inter_reduce_scatter: {
      // Ring reduce-scatter of block i over the hosts: host j ends with piece j of block i.
      const std::uint32_t c = (host + h - (at.index + 1) % h) % h;
      out.sends.push_back(PlanSend{layout_.member((host + 1) % h, i), piece, t, i * h + c});
      out.reduce_bytes = piece;
      return;
    }
    case Phase::inter_all_gather: {
      const std::uint32_t c = (host + h - at.index % h) % h;
      out.sends.push_back(PlanSend{layout_.member((host + 1) % h, i), piece, t, i * h + c});
      return;
    }
    case Phase::intra_all_gather: {
      const std::uint32_t b = (i + g - at.index % g) % g;
      out.sends.push_back(PlanSend{layout_.member(host, (i + 1) % g), block, t, b * h});
      return;
    }
  }
}

std::optional<std::uint32_t> HierarchicalPlan::uniform_pattern(std::uint32_t step) const {
  // Within a phase every step moves the same bytes between the same pairs; the phases differ.
  return static_cast<std::uint32_t>(place(step).phase);
}

}  // namespace syncsim
