#include "syncsim/collectives/halving_doubling_plan.hpp"

#include <fmt/format.h>

#include <bit>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

HalvingDoublingPlan::HalvingDoublingPlan(CollectiveOp op, std::size_t ranks, Bytes size)
    : op_(op), size_(size), n_(static_cast<std::uint32_t>(ranks)) {
  if (ranks < 2) throw InputError(fmt::format("halving-doubling needs at least 2 ranks, got {}", ranks));
  if (ranks > std::uint32_t{1} << 30) throw InputError(fmt::format("{} ranks are too many", ranks));
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  if (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) {
    throw InputError(fmt::format(
        "halving_doubling cannot run {}: it exchanges between pairs of ranks, it has no root (use tree or ring)",
        to_string(op)));
  }
  m_ = std::bit_floor(n_);
  levels_ = static_cast<std::uint32_t>(std::countr_zero(m_));
  extra_ = n_ - m_;
  if (extra_ > 0 && op != CollectiveOp::allreduce) {
    throw InputError(
        fmt::format("halving_doubling runs {} only on a power-of-two number of ranks, got {}: recursive halving "
                    "leaves rank v with piece v, and folding ranks away would leave their pieces with no owner",
                    to_string(op), ranks));
  }
}

std::uint32_t HalvingDoublingPlan::halving_steps() const {
  return op_ == CollectiveOp::all_gather ? 0 : levels_;
}

std::uint32_t HalvingDoublingPlan::doubling_steps() const {
  return op_ == CollectiveOp::reduce_scatter ? 0 : levels_;
}

std::uint32_t HalvingDoublingPlan::step_count(Rank rank) const {
  if (folded(rank.value())) return 2;
  return halving_steps() + doubling_steps() + (extra_ > 0 ? 2 : 0);
}

void HalvingDoublingPlan::step(Rank rank, std::uint32_t t, PlanStep& out) const {
  out.clear();
  const double size = static_cast<double>(size_.value);
  const double piece = size / m_;
  const std::uint32_t q = rank.value();
  const bool fold = extra_ > 0;
  const std::uint32_t last = step_count(rank) - 1;
  if (folded(q)) {
    // Hands its buffer to its even partner's first step, then takes the result from its partner's last step.
    if (t == 0) out.sends.push_back(PlanSend{Rank{q - 1}, size, 0, 0});
    if (t == 1) out.recv_count = 1;
    return;
  }
  const std::uint32_t v = virtual_of(q);
  const bool has_partner = q < 2 * extra_;
  if (fold && t == 0) {
    if (has_partner) {
      out.recv_count = 1;
      out.reduce_bytes = size;
    }
    return;
  }
  if (fold && t == last) {
    if (has_partner) out.sends.push_back(PlanSend{Rank{q + 1}, size, 1, 0});
    return;
  }
  const std::uint32_t core = t - (fold ? 1 : 0);
  if (core < halving_steps()) {
    const std::uint32_t distance = m_ >> (core + 1);
    const std::uint32_t w = v ^ distance;
    const std::uint32_t first = w & ~(distance - 1);  // the aligned block of `distance` pieces around w
    out.sends.push_back(PlanSend{real_of(w), distance * piece, t, first});
    out.recv_count = 1;
    out.reduce_bytes = distance * piece;
    return;
  }
  const std::uint32_t j = core - halving_steps();
  const std::uint32_t distance = std::uint32_t{1} << j;
  const std::uint32_t first = v & ~(distance - 1);  // the block of `distance` pieces v holds
  out.sends.push_back(PlanSend{real_of(v ^ distance), distance * piece, t, first});
  out.recv_count = 1;
}

std::optional<std::uint32_t> HalvingDoublingPlan::uniform_pattern(std::uint32_t step) const {
  // Each step pairs ranks at its own distance with its own block size: one pattern per step. The fold is not
  // uniform (half the ranks of its steps send nothing).
  if (extra_ > 0) return std::nullopt;
  return step;
}

}  // namespace syncsim
