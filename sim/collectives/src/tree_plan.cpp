#include "syncsim/collectives/tree_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
std::uint32_t lowbit(std::uint32_t p) {
  return p & (~p + 1);
}
// The position one level up in the full in-order tree on 1..2T-1 (it may lie past n-1).
std::uint32_t level_up(std::uint32_t p) {
  const std::uint32_t b = lowbit(p);
  return (p ^ b) | (b << 1);
}
}  // namespace

TreePlan::TreePlan(CollectiveOp op, std::size_t ranks, Bytes size, TreeOptions options)
    : op_(op),
      size_(size),
      n_(static_cast<std::uint32_t>(ranks)),
      slices_(options.pipeline_slices),
      tree_(options.tree) {
  if (ranks < 2) throw InputError(fmt::format("a tree needs at least 2 ranks, got {}", ranks));
  if (ranks > std::uint32_t{1} << 30) throw InputError(fmt::format("a tree of {} ranks is too large", ranks));
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  if (op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather) {
    throw InputError(fmt::format(
        "the tree algorithm cannot run {}: a tree moves one buffer to or from its root, while {} leaves every rank "
        "a different piece (use ring, halving_doubling or direct)",
        to_string(op), to_string(op)));
  }
  if (slices_ == 0) throw InputError("pipeline slices must be at least 1");
  if (tree_ > 1) throw InputError(fmt::format("a double binary tree has trees 0 and 1, not {}", tree_));
  if (options.root.value() >= ranks) {
    throw InputError(fmt::format("root {} does not exist among {} ranks", options.root.value(), ranks));
  }
  top_ = std::bit_floor(n_ - 1);
  height_ = static_cast<std::uint32_t>(std::countr_zero(top_)) + 1;
  // The unswapped rank at position 0; AllReduce has no root to honour.
  const std::uint32_t natural_root = tree_ == 0 ? 0 : (n_ % 2 == 0 ? n_ - 1 : 1);
  swap_a_ = natural_root;
  swap_b_ = op == CollectiveOp::allreduce ? natural_root : options.root.value();
}

std::uint32_t TreePlan::position(Rank rank) const {
  std::uint32_t r = rank.value();
  if (r == swap_a_) {
    r = swap_b_;
  } else if (r == swap_b_) {
    r = swap_a_;
  }
  if (tree_ == 0) return r;
  return n_ % 2 == 0 ? n_ - 1 - r : (r + n_ - 1) % n_;
}

Rank TreePlan::at(std::uint32_t p) const {
  std::uint32_t r = tree_ == 0 ? p : (n_ % 2 == 0 ? n_ - 1 - p : (p + 1) % n_);
  if (r == swap_a_) {
    r = swap_b_;
  } else if (r == swap_b_) {
    r = swap_a_;
  }
  return Rank{r};
}

TreePlan::Children TreePlan::children_of(std::uint32_t p) const {
  Children c;
  if (p == 0) {
    c.position[c.count++] = top_;
    return c;
  }
  const std::uint32_t half = lowbit(p) >> 1;
  if (half == 0) return c;           // odd positions are leaves
  c.position[c.count++] = p - half;  // the left subtree is always complete
  std::uint32_t right = p + half;
  while (right >= n_ && lowbit(right) > 1) right -= lowbit(right) >> 1;
  if (right < n_) c.position[c.count++] = right;
  return c;
}

std::uint32_t TreePlan::parent_of(std::uint32_t p) const {
  if (p == top_) return 0;
  std::uint32_t q = level_up(p);
  while (q >= n_) q = level_up(q);  // climbs to T at the latest
  return q;
}

std::uint32_t TreePlan::depth_of(std::uint32_t p) const {
  std::uint32_t d = 0;
  for (; p != 0; p = parent_of(p)) ++d;
  return d;
}

std::uint32_t TreePlan::pace_of(std::uint32_t p) const {
  if (p == 0) return height_;
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::countr_zero(p)));
}

// e = H + d - hh: the step at which this position receives broadcast slice 0, so that it arrives at (H + d) tau,
// one tau after the parent received it, and the step ends exactly then.
std::uint32_t TreePlan::broadcast_offset(std::uint32_t p) const {
  return height_ + depth_of(p) - pace_of(p);
}

std::optional<Rank> TreePlan::parent(Rank rank) const {
  const std::uint32_t p = position(rank);
  if (p == 0) return std::nullopt;
  return at(parent_of(p));
}

std::uint32_t TreePlan::step_count(Rank rank) const {
  const std::uint32_t p = position(rank);
  const bool leaf = p != 0 && p % 2 == 1;
  switch (op_) {
    case CollectiveOp::allreduce:
      if (p == 0) return slices_ + 1;
      return broadcast_offset(p) + slices_ + (leaf ? 0 : 1);
    case CollectiveOp::reduce:
    case CollectiveOp::broadcast:
      return (p == 0 || leaf) ? slices_ : slices_ + 1;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::alltoall:  // refused by make_plan
      break;
  }
  return 0;
}

void TreePlan::step(Rank rank, std::uint32_t t, PlanStep& out) const {
  out.clear();
  const std::uint32_t p = position(rank);
  const std::uint32_t k = slices_;
  const double slice = static_cast<double>(size_.value) / k;
  const Children children = children_of(p);
  const bool leaf = children.count == 0;
  const bool up = op_ == CollectiveOp::allreduce || op_ == CollectiveOp::reduce;

  if (up) {
    if (!leaf && t < k) {
      out.recv_count += children.count;
      out.reduce_bytes += children.count * slice;
    }
    if (p != 0) {
      // A leaf sends slice t at once; an interior rank sends slice t-1, reduced at its previous step.
      const std::uint32_t parent = parent_of(p);
      if (leaf && t < k) out.sends.push_back(PlanSend{at(parent), slice, t, t});
      if (!leaf && t >= 1 && t <= k) out.sends.push_back(PlanSend{at(parent), slice, t - 1, t - 1});
    }
  }

  if (op_ == CollectiveOp::broadcast) {
    if (p != 0 && t < k) ++out.recv_count;
    // The root sends slice t at step t; others forward at step t the slice received at step t-1. Every receiver
    // takes slice j at its step j.
    const std::uint32_t first = p == 0 ? 0 : 1;
    if (t >= first && t - first < k) {
      const std::uint32_t j = t - first;
      for (std::uint32_t c = 0; c < children.count; ++c) {
        out.sends.push_back(PlanSend{at(children.position[c]), slice, j, j});
      }
    }
  }

  if (op_ == CollectiveOp::allreduce) {
    // The root forwards at step t the slice it finished at step t-1; others receive slice j at step e + j.
    const std::uint32_t e = p == 0 ? 0 : broadcast_offset(p);
    if (p != 0 && t >= e && t < e + k) ++out.recv_count;
    if (t >= e + 1 && t <= e + k) {
      const std::uint32_t j = t - e - 1;
      for (std::uint32_t c = 0; c < children.count; ++c) {
        const std::uint32_t child = children.position[c];
        out.sends.push_back(PlanSend{at(child), slice, broadcast_offset(child) + j, j});
      }
    }
  }
}

}  // namespace syncsim
