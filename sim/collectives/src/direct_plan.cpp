#include "syncsim/collectives/direct_plan.hpp"

#include <fmt/format.h>

#include <optional>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

DirectPlan::DirectPlan(CollectiveOp op, std::size_t ranks, Bytes size, Rank root)
    : op_(op), size_(size), n_(static_cast<std::uint32_t>(ranks)), root_(root) {
  if (ranks < 2) throw InputError(fmt::format("direct needs at least 2 ranks, got {}", ranks));
  if (op == CollectiveOp::alltoall && ranks > kMaxAllToAllRanks) {
    throw InputError(fmt::format(
        "a direct alltoall of {} ranks needs {} routes and transfers in memory; at most {} ranks are supported", ranks,
        ranks * (ranks - 1), kMaxAllToAllRanks));
  }
  if (op != CollectiveOp::alltoall && ranks > kMaxRanks) {
    throw InputError(
        fmt::format("direct is for small groups: n*(n-1) flows per step; {} ranks is more than {}", ranks, kMaxRanks));
  }
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  if (root.value() >= ranks)
    throw InputError(fmt::format("root {} does not exist among {} ranks", root.value(), ranks));
}

std::uint32_t DirectPlan::step_count(Rank) const {
  return op_ == CollectiveOp::allreduce ? 2 : 1;
}

void DirectPlan::step(Rank rank, std::uint32_t t, PlanStep& out) const {
  out.clear();
  const double size = static_cast<double>(size_.value);
  const double chunk = size / n_;
  const std::uint32_t r = rank.value();
  // `piece` nullopt: each receiver gets its own chunk.
  const auto to_everyone = [&](double bytes, std::optional<std::uint32_t> piece) {
    for (std::uint32_t d = 0; d < n_; ++d) {
      if (d != r) out.sends.push_back(PlanSend{Rank{d}, bytes, t, piece.value_or(d)});
    }
  };
  switch (op_) {
    case CollectiveOp::allreduce:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather: {
      const bool scatter = op_ == CollectiveOp::reduce_scatter || (op_ == CollectiveOp::allreduce && t == 0);
      // Scatter: rank d gets chunk d from everyone and sums it. Gather: rank r hands its chunk r to everyone.
      to_everyone(chunk, scatter ? std::nullopt : std::optional<std::uint32_t>{r});
      out.recv_count = n_ - 1;
      if (scatter) out.reduce_bytes = (n_ - 1) * chunk;
      return;
    }
    case CollectiveOp::broadcast:
      if (rank == root_) {
        to_everyone(size, 0);
      } else {
        out.recv_count = 1;
      }
      return;
    case CollectiveOp::reduce:
      if (rank == root_) {
        out.recv_count = n_ - 1;
        out.reduce_bytes = (n_ - 1) * size;
      } else {
        out.sends.push_back(PlanSend{root_, size, 0, 0});
      }
      return;
    case CollectiveOp::alltoall:
      // Block (r, d) is piece r * n + d of the n x n blocks; the receiver keeps it as block r of its buffer.
      for (std::uint32_t d = 0; d < n_; ++d) {
        if (d != r) out.sends.push_back(PlanSend{Rank{d}, chunk, 0, r * n_ + d});
      }
      out.recv_count = n_ - 1;
      return;
  }
}

std::optional<std::uint32_t> DirectPlan::uniform_pattern(std::uint32_t step) const {
  // Every rank sends the same bytes to every other rank: one pattern per step; a root breaks the symmetry.
  if (op_ == CollectiveOp::broadcast || op_ == CollectiveOp::reduce) return std::nullopt;
  return step;
}

}  // namespace syncsim
