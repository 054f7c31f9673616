#include "syncsim/collectives/ring_plan.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::uint32_t kNotPlaced = ~std::uint32_t{0};
}

RingPlan::RingPlan(CollectiveOp op, std::size_t ranks, Bytes size, RingOptions options)
    : op_(op), size_(size), order_(std::move(options.order)), slices_(options.pipeline_slices) {
  if (ranks < 2) throw InputError(fmt::format("a ring needs at least 2 ranks, got {}", ranks));
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  if (order_.empty()) {
    for (std::size_t r = 0; r < ranks; ++r) order_.push_back(Rank{static_cast<std::uint32_t>(r)});
  }
  if (order_.size() != ranks) {
    throw InputError(fmt::format("ring order has {} ranks, expected {}", order_.size(), ranks));
  }
  position_of_.assign(ranks, kNotPlaced);
  for (std::uint32_t p = 0; p < order_.size(); ++p) {
    const std::uint32_t r = order_[p].value();
    if (r >= ranks || position_of_[r] != kNotPlaced) {
      throw InputError(
          fmt::format("ring order is not a permutation of 0..{}: rank {} is out of range or repeated", ranks - 1, r));
    }
    position_of_[r] = p;
  }
  if (options.root.value() >= ranks) {
    throw InputError(fmt::format("root {} does not exist among {} ranks", options.root.value(), ranks));
  }
  root_position_ = position_of_[options.root.value()];
  if (slices_ == 0) throw InputError("pipeline slices must be at least 1");
  const bool chain = op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
  if (slices_ > 1 && !chain) {
    throw InputError(
        fmt::format("pipelining applies to broadcast and reduce; a ring {} already keeps every link busy at every step",
                    to_string(op)));
  }
}

std::uint32_t RingPlan::step_count(Rank rank) const {
  const auto n = static_cast<std::uint32_t>(order_.size());
  switch (op_) {
    case CollectiveOp::allreduce:
      return 2 * (n - 1);
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
      return n - 1;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: {
      // Chain position: the first sender is 0, the last receiver n-1. Middle ranks also forward the last slice.
      const std::uint32_t c = (position(rank) + n - root_position_ - (op_ == CollectiveOp::reduce ? 1 : 0)) % n;
      return (c == 0 || c == n - 1) ? slices_ : slices_ + 1;
    }
    case CollectiveOp::alltoall:  // not a ring's: make_plan refuses it
      break;
  }
  return 0;
}

void RingPlan::step(Rank rank, std::uint32_t s, PlanStep& out) const {
  out.clear();
  const auto n = static_cast<std::uint32_t>(order_.size());
  const std::uint32_t i = position(rank);
  if (op_ == CollectiveOp::broadcast || op_ == CollectiveOp::reduce) {
    broadcast_step(i, s, out);
    return;
  }
  const double chunk_bytes = static_cast<double>(size_.value) / n;
  const Rank next = at(i + 1);
  // Reduce-scatter step s sends chunk i-s-1, so position i ends up owning the sum of chunk i (as NCCL's
  // ReduceScatter leaves chunk r on rank r); all-gather step t then passes chunk i-t along.
  const bool gather = op_ == CollectiveOp::all_gather || (op_ == CollectiveOp::allreduce && s >= n - 1);
  const std::uint32_t t = op_ == CollectiveOp::allreduce && gather ? s - (n - 1) : s;
  const std::uint32_t chunk = gather ? (i + n - t) % n : (i + n - (t + 1)) % n;
  const bool reduces = !gather;
  out.sends.push_back(PlanSend{next, chunk_bytes, s, chunk});
  out.recv_count = 1;
  out.reduce_bytes = reduces ? chunk_bytes : 0.0;
}

// A chain from the root along the ring (broadcast), or along the ring into the root (reduce), pipelined in
// `slices_` slices: chain position c receives slice j at its step j and forwards it at step j+1.
void RingPlan::broadcast_step(std::uint32_t i, std::uint32_t s, PlanStep& out) const {
  const auto n = static_cast<std::uint32_t>(order_.size());
  const bool reduce = op_ == CollectiveOp::reduce;
  const std::uint32_t c = (i + n - root_position_ - (reduce ? 1 : 0)) % n;
  const double slice_bytes = static_cast<double>(size_.value) / slices_;
  const Rank next = at(i + 1);
  const bool first = c == 0;
  const bool last = c == n - 1;
  if (first) {
    out.sends.push_back(PlanSend{next, slice_bytes, s, s});
    return;
  }
  if (s < slices_) {
    out.recv_count = 1;
    if (reduce) out.reduce_bytes = slice_bytes;
  }
  if (!last && s >= 1) out.sends.push_back(PlanSend{next, slice_bytes, s - 1, s - 1});
}

std::optional<std::uint32_t> RingPlan::uniform_pattern(std::uint32_t step) const {
  (void)step;
  // Every step of a ring AllReduce, ReduceScatter or AllGather sends S/n from each position to the next; the
  // reduce-scatter half also reduces, so it is a pattern of its own.
  switch (op_) {
    case CollectiveOp::allreduce:
      return step < order_.size() - 1 ? 0u : 1u;
    case CollectiveOp::reduce_scatter:
      return 0u;
    case CollectiveOp::all_gather:
      return 1u;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::alltoall:
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::uint32_t> RingPlan::relabelling_of(const CollectivePlan& other_plan) const {
  const auto* other = dynamic_cast<const RingPlan*>(&other_plan);
  if (other == nullptr || other->op_ != op_ || other->size_ != size_ || other->order_.size() != order_.size() ||
      other->slices_ != slices_) {
    return {};
  }
  const bool rooted = op_ == CollectiveOp::broadcast || op_ == CollectiveOp::reduce;
  const std::uint32_t mine = rooted ? root_position_ : 0;
  const std::uint32_t theirs = rooted ? other->root_position_ : 0;
  std::vector<std::uint32_t> map(order_.size());
  for (std::uint32_t t = 0; t < order_.size(); ++t) map[other->at(theirs + t).value()] = at(mine + t).value();
  return map;
}

}  // namespace syncsim
